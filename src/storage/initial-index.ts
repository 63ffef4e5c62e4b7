import { indexChannel, type ChannelIndexResult } from './index/channel-indexer.js';
import type { ChannelState, FileState, ScanJob, SplitId } from './channel-state.js';
import type { IndexWorkerPool } from './index/index-workers.js';
import type { ScanProblem } from './records/record-scan.js';
import { fileStateFor } from './scan-jobs.js';
import type { SourceReader } from './source/source.js';
import type { OpenOptions } from './storage-types.js';

/**
 * The first load of a storage: every channel's index built in one go by `indexChannel` (nobody
 * reads yet, so nothing is collected first and applied later as a refresh does), in worker
 * threads when there are (one channel per thread at a time: the walks and the page faults of the
 * fresh index memory of several channels share the cores), else in this thread.
 */

export interface InitialIndexing {
  readonly reads: SourceReader;
  readonly workers: IndexWorkerPool | undefined;
  /** A file whose walk stopped at damage. */
  noteProblem(file: FileState, problem: ScanProblem | undefined): void;
  /** An object id whose record is of the roots type. */
  rootsCandidate(id: bigint): void;
  /** Given: the latest records are counted per type id into it (`OpenOptions.countLatestTypes`). */
  readonly typeCounts?: Map<bigint, number>;
}

export async function indexInitially(jobs: ScanJob[], channels: ChannelState[], rootsType: SplitId, options: OpenOptions, how: InitialIndexing): Promise<void> {
  const bytesTotal = jobs.reduce((n, j) => n + (j.to - j.from), 0);
  let filesDone = 0;
  let bytesDone = 0;
  let entities = 0;
  const lists = channels.map((channel) => jobs.filter((j) => j.channel === channel));
  const channelJobs = lists.map((list) => ({
    files: list.map((j) => ({ path: j.target.path, from: j.from, to: j.to })),
    idShift: Math.log2(channels.length),
    rootsType,
    ...(how.typeCounts === undefined ? {} : { countTypes: true }),
  }));
  const take = (index: number, result: ChannelIndexResult): void => {
    const channel = channels[index]!;
    const list = lists[index]!;
    channel.objects = result.objects;
    list.forEach((job, i) => {
      const file = fileStateFor(job);
      file.totalLength = job.to;
      file.liveLength = result.live[i] ?? 0;
      file.metaLength = result.meta[i] ?? 0;
      how.noteProblem(file, result.problems[i]);
      job.count = -1;
      bytesDone += job.to - job.from;
    });
    for (const id of result.rootsCandidates) how.rootsCandidate(BigInt(id));
    const counts = how.typeCounts;
    const triples = result.typeCounts ?? [];
    for (let i = 0; counts !== undefined && i < triples.length; i += 3) {
      const typeId = BigInt.asIntN(64, (BigInt(triples[i + 1]!) << 32n) | BigInt(triples[i]! >>> 0));
      counts.set(typeId, (counts.get(typeId) ?? 0) + triples[i + 2]!);
    }
    filesDone += list.length;
    entities += channel.objects.size;
    options.onProgress?.({ filesDone, filesTotal: jobs.length, bytesDone, bytesTotal, entities });
  };
  const workers = how.workers;
  if (workers === undefined) {
    for (const [index, job] of channelJobs.entries()) take(index, await indexChannel({ ...job, reads: how.reads }));
    return;
  }
  // Channels finish in any order; taken in channel order, as in this thread (roots candidates).
  const results: (ChannelIndexResult | undefined)[] = [];
  let taken = 0;
  await workers.index(channelJobs, (index, result) => {
    results[index] = result;
    for (let next = results[taken]; next !== undefined; next = results[taken]) {
      results[taken] = undefined;
      take(taken++, next);
    }
  });
}
