import { parentPort } from 'node:worker_threads';
import { int32At } from '../format/int32-at.js';
import { RECORD_HEADER_SIZE } from '../format/entity-record.js';
import { failureOf } from '../storage/index/index-worker-messages.js';
import { ObjectIndex } from '../storage/index/object-index.js';
import { streamRecords } from '../storage/records/record-stream.js';
import { SYNC_LOCAL_FILES } from '../storage/source/sync-file-chunks.js';
import type { Storage } from '../storage/storage.js';
import type { CopyPlanReply, CopyPlanRequest, PlannedFigures } from './copy-plan-messages.js';
import { WalkedReachability } from './walked-reachability.js';
import { wholeRanges } from './changed-source-reads.js';

/**
 * Worker thread entry (copy-plan-thread.ts starts it): the copy's decisions for the files of the
 * channels after the copying thread's, read by path: each record's number in the walk tells a
 * superseded version, the reach bit garbage, and the records to write are sent per file as runs
 * (records back to back going to one channel), with the counts per type at the end. The copying
 * thread then copies the runs without looking at each record. One request per thread.
 */
parentPort?.once('message', (request: CopyPlanRequest) => {
  const post = (reply: CopyPlanReply, transfer: ArrayBuffer[] = []): void => parentPort?.postMessage(reply, transfer);
  plan(request, post).then(
    (done) => post(done),
    (error: unknown) => post({ kind: 'failed', failure: failureOf(error) }),
  );
});

type Counts = { -readonly [K in keyof PlannedFigures]: PlannedFigures[K] };

async function plan(request: CopyPlanRequest, post: (reply: CopyPlanReply, transfer: ArrayBuffer[]) => void): Promise<CopyPlanReply> {
  const channels = request.indexes.map((parts, index) => ({ index, objects: ObjectIndex.fromParts(parts) })) as unknown as Storage['channels'];
  const reach = WalkedReachability.inCopyThread(request.reach, channels);
  const { latest, records } = request.reach;
  const channelMask = request.channelMask;
  const figures = new Map<bigint, Counts>();
  const bySlot = new Map<number, Counts>();
  let ordinal = request.ordinal;
  let newest = 0;
  let sentKiB = 0;
  const files = wholeRanges(SYNC_LOCAL_FILES, request.named);
  for (const { path, end } of request.files) {
    // The runs sent wait in the copying thread's memory until taken: so much at most.
    for (let taken = Atomics.load(request.taken, 0); sentKiB - taken > request.aheadKiB; taken = Atomics.load(request.taken, 0)) Atomics.wait(request.taken, 0, taken);
    let runs = new Int32Array(1024 * 3);
    let count = 0;
    let runEnd = -1;
    let runChannel = -1;
    const visit = (bytes: Buffer, at: number, offset: number, length: number): void => {
      const low = int32At(bytes, at + 16);
      const high = int32At(bytes, at + 20);
      // The counts of the record's type: by the low half of its id where the high half is 0.
      const typeLow = int32At(bytes, at + 8);
      let f = int32At(bytes, at + 12) === 0 ? bySlot.get(typeLow) : undefined;
      if (f === undefined) {
        const typeId = bytes.readBigInt64LE(at + 8);
        f = figures.get(typeId);
        if (f === undefined) {
          f = { typeId, written: 0, writtenBytes: 0, superseded: 0, supersededBytes: 0, garbage: 0, garbageBytes: 0 };
          figures.set(typeId, f);
        }
        if (int32At(bytes, at + 12) === 0) bySlot.set(typeLow, f);
      }
      const n = ordinal++;
      const isLatest = n < records && ((latest[n >>> 3] as number) & (1 << (n & 7))) !== 0;
      if (!isLatest) {
        f.superseded++;
        f.supersededBytes += length;
        return;
      }
      newest++;
      if (!reach.reachable(low, high)) {
        f.garbage++;
        f.garbageBytes += length;
        return;
      }
      f.written++;
      f.writtenBytes += length;
      if (runEnd === offset && (low & channelMask) === runChannel) {
        runs[count * 3 - 2] = offset + length;
        runs[count * 3 - 1]! += 1;
      } else {
        if ((count + 1) * 3 > runs.length) {
          const next = new Int32Array(runs.length * 2);
          next.set(runs);
          runs = next;
        }
        runs[count * 3] = offset;
        runs[count * 3 + 1] = offset + length;
        runs[count * 3 + 2] = 1;
        count++;
        runChannel = low & channelMask;
      }
      runEnd = offset + length;
    };
    const run = (bytes: Buffer, at: number, offset: number, chunkEnd: number): number => {
      const limit = Math.min(chunkEnd, at + (end - offset));
      while (limit - at >= RECORD_HEADER_SIZE) {
        const length = int32At(bytes, at) >>> 0;
        if (int32At(bytes, at + 4) !== 0 || length < RECORD_HEADER_SIZE || length > limit - at) break;
        visit(bytes, at, offset, length);
        at += length;
        offset += length;
      }
      return at;
    };
    // Read as the copying thread reads: this thread may be the first to meet a file deleted or
    // cut since the check (the copying thread reads a file ahead, possibly before this thread
    // gets to it), and its failure is the one reported then.
    await streamRecords(files, path, 0, end, visit, undefined, run);
    const sent = runs.slice(0, count * 3);
    const kib = Math.ceil(sent.byteLength / 1024);
    sentKiB += kib;
    post({ kind: 'file', runs: sent, count, kib }, [sent.buffer]);
  }
  return { kind: 'done', figures: [...figures.values()], newest, records: ordinal - request.ordinal };
}
