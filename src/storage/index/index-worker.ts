import { parentPort } from 'node:worker_threads';
import { indexChannel } from './channel-indexer.js';
import { failureOf, type WorkerReply, type WorkerRequest } from './index-worker-messages.js';
import { SYNC_LOCAL_FILES } from '../source/sync-file-chunks.js';

/**
 * Worker thread entry (index-workers.ts starts it): indexes the channels it is sent, one message
 * each, reading the data files by path, read-only, in synchronous reads (sync-file-chunks.ts: the
 * thread has nothing else to do meanwhile), and hands back the finished tables (shared memory: not copied).
 */
parentPort?.on('message', (request: WorkerRequest) => {
  indexChannel({ ...request.job, reads: SYNC_LOCAL_FILES, readAhead: false }).then(
    (result) => {
      const { objects, ...figures } = result;
      const parts = objects.toParts();
      const reply: WorkerReply = { ok: true, channel: request.channel, parts, ...figures };
      parentPort?.postMessage(reply);
    },
    (error: unknown) => {
      const reply: WorkerReply = { ok: false, channel: request.channel, failure: failureOf(error) };
      parentPort?.postMessage(reply);
    },
  );
});
