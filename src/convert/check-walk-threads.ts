import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { fileStops, MAX_LISTED_DANGLING, walkLatestRecords, type LatestRecordsFindings, type LatestRecordsOptions, type OpaqueType } from '../check/record-findings.js';
import { errorOf } from '../storage/index/index-worker-messages.js';
import type { Storage } from '../storage/storage.js';
import { startWorker } from '../threads/worker-thread.js';
import type { WalkReply, WalkRequest } from './check-walk-messages.js';
import { WalkedReachability, type ReachabilityThreadResult } from './walked-reachability.js';

/**
 * convert's check walk (every newest version checked, its references collected for reachability)
 * split across threads by channel: this thread walks the first run of channels' data files, each
 * worker thread another run itself (check-walk-worker.ts), over the index this thread built
 * (shared memory), and the findings and reference lists are joined here as one walk in channel
 * order would have made them. On one core
 * the walk took 2.5-6.5 s of the opening thread's CPU at 10M entities, most of convert's time.
 */

/**
 * From this many bytes of data files on, the walk runs in threads (a thread costs about 50 ms of
 * CPU to start and compiles the walk once more).
 */
export const CHECK_THREADS_FROM_BYTES = 256 * 1024 * 1024;

/**
 * The walk allocates next to nothing per record: a small young generation keeps the thread's heap
 * (counted in convert's peak RSS, which the walk's end comes close to) small.
 */
const WALK_THREAD_LIMITS = { maxYoungGenerationSizeMb: 4 };

/**
 * Threads the walk takes unless asked for more: each worker thread (its isolate, heap and read
 * buffer, alive until the walk's end, where convert's peak RSS lies) costs memory. Convert of the
 * 10M bench storage (4 channels), peak RSS: one thread 266 MB, two 284-292 MB, four 310-338 MB,
 * against the 319 MB target (graph index + 64 MB).
 */
const MAX_DEFAULT_CHECK_THREADS = 2;

/**
 * How many threads walk `channels` channels of `bytes` bytes when the caller asks for `asked`
 * (undefined: decide, on `processors`); below 2, none.
 */
export function checkWalkThreads(asked: number | undefined, channels: number, bytes: number, processors = availableParallelism()): number {
  const wanted = asked ?? (bytes >= CHECK_THREADS_FROM_BYTES ? Math.min(processors, MAX_DEFAULT_CHECK_THREADS) : 0);
  const threads = Math.max(0, Math.min(Math.floor(wanted), channels));
  // Not `threads < 2`: NaN (asked for NaN) is none too.
  return threads >= 2 ? threads : 0;
}

/**
 * `walkLatestRecords` split across threads (`checkWalkThreads` of `asked`, this one included; the
 * workers read a directory's files by path), telling
 * `reach` (when given, it must be the options' `references`) what one walk would have told it.
 * A walk that hands records over (`onReadable`) or judges them by the caller's functions runs here,
 * as one walk.
 */
export function threadedRecordWalk(asked: number | undefined, reach: WalkedReachability | undefined): (storage: Storage, options: LatestRecordsOptions) => Promise<LatestRecordsFindings> {
  return async (storage, options) => {
    const bytesTotal = storage.channels.reduce((n, c) => n + c.files.reduce((m, f) => m + f.totalLength, 0), 0);
    const count = checkWalkThreads(asked, storage.channels.length, bytesTotal);
    if (count < 2 || options.onReadable !== undefined || options.damagedAt !== undefined || options.present !== undefined || options.references !== reach) {
      return walkLatestRecords(storage, options);
    }
    // Runs of channels, one per thread, in channel order (so the joined findings keep walk order).
    const groups: { from: number; to: number }[] = [];
    for (let t = 0; t < count; t++) groups.push({ from: Math.floor((t * storage.channels.length) / count), to: Math.floor(((t + 1) * storage.channels.length) / count) });
    const done = new Array<number>(count).fill(0);
    const progress = (): void => options.onProgress?.(done.reduce((n, d) => n + d, 0), bytesTotal);
    const workers: Worker[] = [];
    try {
      // The first run of channels is walked here (this thread would only wait), the others in workers.
      const inWorkers = groups.slice(1).map((group, k) => {
        const t = k + 1;
        const request: WalkRequest = {
          channels: storage.channels.map((c) => ({ index: c.index, parts: c.objects.toParts(), files: c.index >= group.from && c.index < group.to ? c.files : [] })),
          entries: storage.dictionary.entries,
          rootsTypeName: storage.family.rootsTypeName,
          reach: reach?.threadStart(storage, group.from, group.to),
        };
        const worker = startWorker(import.meta.url, 'check-walk-worker', WALK_THREAD_LIMITS);
        workers.push(worker);
        return new Promise<Extract<WalkReply, { kind: 'done' }>>((resolve, reject) => {
          worker.on('message', (reply: WalkReply) => {
            if (reply.kind === 'progress') {
              done[t] = reply.bytesDone;
              progress();
            } else if (reply.kind === 'failed') reject(errorOf(reply.failure));
            else resolve(reply);
          });
          worker.once('error', reject);
          worker.once('exit', (code) => reject(new Error(`a check walk thread stopped (exit code ${code}) before its end`)));
          worker.postMessage(request);
        });
      });
      // Failures are thrown where they are awaited, after this thread's walk; not unhandled meanwhile.
      for (const w of inWorkers) w.catch(() => undefined);
      const first = groups[0]!;
      const mine = reach === undefined ? undefined : WalkedReachability.inThread(reach.threadStart(storage, first.from, first.to), storage.channels);
      const part = {
        channels: storage.channels.map((c) => ({ index: c.index, files: c.index >= first.from && c.index < first.to ? c.files : [], objects: c.objects })),
        dictionary: storage.dictionary,
        family: storage.family,
        source: storage.source,
      } as unknown as Storage; // what walkLatestRecords reads of a storage: these channels' files only
      const { stops: _stops, ...findings } = await walkLatestRecords(part, {
        references: mine,
        onProgress: (bytesDone) => {
          done[0] = bytesDone;
          progress();
        },
      });
      const replies = [{ kind: 'done' as const, findings, reach: mine?.threadResult() }, ...(await Promise.all(inWorkers))];
      // The threads' memory (their heaps) before the lists are joined.
      await Promise.all(workers.splice(0).map((w) => w.terminate()));
      if (reach !== undefined) {
        reach.adopt(
          replies.map((r) => r.reach as ReachabilityThreadResult),
          replies.map((r) => r.findings.records),
          groups.map((g) => g.from),
        );
      }
      return { ...joined(replies.map((r) => r.findings)), stops: await fileStops(storage) };
    } finally {
      await Promise.all(workers.map((w) => w.terminate().catch(() => undefined)));
    }
  };
}

/** The threads' findings, in channel order, as one walk would have found them. */
function joined(all: readonly Omit<LatestRecordsFindings, 'stops'>[]): Omit<LatestRecordsFindings, 'stops'> {
  const opaque = new Map<bigint, OpaqueType>();
  for (const f of all) {
    for (const t of f.opaqueTypes) {
      const seen = opaque.get(t.typeId);
      if (seen === undefined) opaque.set(t.typeId, { ...t });
      else seen.count += t.count;
    }
  }
  const sum = (pick: (f: Omit<LatestRecordsFindings, 'stops'>) => number): number => all.reduce((n, f) => n + pick(f), 0);
  return {
    records: sum((f) => f.records),
    objects: sum((f) => f.objects),
    readableObjects: sum((f) => f.readableObjects),
    readableBytes: sum((f) => f.readableBytes),
    defects: all.flatMap((f) => f.defects),
    danglingCount: sum((f) => f.danglingCount),
    dangling: all.flatMap((f) => f.dangling).slice(0, MAX_LISTED_DANGLING),
    rootsEntities: sum((f) => f.rootsEntities),
    opaqueTypes: [...opaque.values()],
  };
}
