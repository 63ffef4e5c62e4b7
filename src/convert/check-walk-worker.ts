import { parentPort } from 'node:worker_threads';
import { walkLatestRecords } from '../check/record-findings.js';
import { createTypeDictionary } from '../format/type-dictionary.js';
import { failureOf } from '../storage/index/index-worker-messages.js';
import { ObjectIndex } from '../storage/index/object-index.js';
import { SYNC_LOCAL_FILES } from '../storage/source/sync-file-chunks.js';
import type { Storage } from '../storage/storage.js';
import type { WalkReply, WalkRequest } from './check-walk-messages.js';
import { WalkedReachability } from './walked-reachability.js';

/**
 * Worker thread entry (check-walk-threads.ts starts it): the check's record walk over the data
 * files of the channels it is sent, read by path in synchronous reads, each record looked up in
 * the index the opening thread built (its tables are shared memory, not copied); with `reach`, the
 * references collected into lists of its own, handed back by transfer. One request per thread.
 */
parentPort?.once('message', (request: WalkRequest) => {
  const post = (reply: WalkReply, transfer: ArrayBuffer[] = []): void => parentPort?.postMessage(reply, transfer);
  walk(request, (bytesDone) => post({ kind: 'progress', bytesDone })).then(
    ({ findings, reach }) => {
      const transfer = reach === undefined ? [] : [reach.starts.buffer, reach.latestBits.buffer, ...reach.blocks.map((b) => b.buffer)];
      post({ kind: 'done', findings, reach }, transfer);
    },
    (error: unknown) => post({ kind: 'failed', failure: failureOf(error) }),
  );
});

async function walk(request: WalkRequest, progress: (bytesDone: number) => void): Promise<Extract<WalkReply, { kind: 'done' }>> {
  const channels = request.channels.map((c) => ({ index: c.index, files: c.files, objects: ObjectIndex.fromParts(c.parts) }));
  // What walkLatestRecords reads of a storage. The headers at a file's stop are read by the
  // opening thread (fileStops), so this thread's stops are left out and need no `read`.
  const storage = {
    channels,
    dictionary: createTypeDictionary(request.entries),
    family: { rootsTypeName: request.rootsTypeName },
    source: { chunks: SYNC_LOCAL_FILES.chunks, read: () => Promise.reject(new Error('not read here')) },
  } as unknown as Storage;
  const reach = request.reach === undefined ? undefined : WalkedReachability.inThread(request.reach, storage.channels);
  const { stops: _stops, ...findings } = await walkLatestRecords(storage, { references: reach, onProgress: (done) => progress(done) });
  return { kind: 'done', findings, reach: reach?.threadResult() };
}
