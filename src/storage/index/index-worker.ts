import { parentPort } from 'node:worker_threads';
import { indexChannel } from './channel-indexer.js';
import { failureOf, type WorkerReply, type WorkerRequest } from './index-worker-messages.js';
import { samePrefix, TakenRecords } from '../source/prefix-compare.js';
import { SYNC_LOCAL_FILES } from '../source/sync-file-chunks.js';

/**
 * Worker thread entry (index-workers.ts starts it): indexes the channels it is sent, one message
 * each, reading the data files by path, read-only, in synchronous reads (sync-file-chunks.ts: the
 * thread has nothing else to do meanwhile), and hands back the finished tables (shared memory: not copied).
 * While a storage is opened as another's continuation it compares their files, one pair a message
 * (storage/basis-open.ts), and hands back the records taken on the way (their bytes transferred).
 */
parentPort?.on('message', (request: WorkerRequest) => {
  if (request.kind === 'prefix') {
    let reply: WorkerReply;
    let transfer: ArrayBuffer[] = [];
    try {
      const taken = new TakenRecords(request.offsets, request.budget);
      const same = samePrefix(request.files, taken);
      const data = taken.data();
      reply = { kind: 'prefix', ok: true, same, taken: data };
      transfer = [data.offsets.buffer, data.lengths.buffer, data.starts.buffer, data.bytes.buffer] as ArrayBuffer[];
    } catch (error) {
      reply = { ok: false, failure: failureOf(error) };
    }
    parentPort?.postMessage(reply, transfer);
    return;
  }
  indexChannel({ ...request.job, reads: SYNC_LOCAL_FILES, readAhead: false }).then(
    (result) => {
      const { objects, ...figures } = result;
      const parts = objects.toParts();
      const reply: WorkerReply = { kind: 'index', ok: true, channel: request.channel, parts, ...figures };
      parentPort?.postMessage(reply);
    },
    (error: unknown) => {
      const reply: WorkerReply = { ok: false, failure: failureOf(error) };
      parentPort?.postMessage(reply);
    },
  );
});
