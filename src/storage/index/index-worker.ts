import { parentPort } from 'node:worker_threads';
import { indexChannel } from './channel-indexer.js';
import { failureOf, type PrefixReply, type PrefixRequest, type WorkerReply, type WorkerRequest } from './index-worker-messages.js';
import { comparePrefixTask } from './prefix-compare.js';
import { SYNC_LOCAL_FILES } from '../source/sync-file-chunks.js';

/**
 * Worker thread entry (index-workers.ts starts it): indexes the channels it is sent, one message
 * each, reading the data files by path, read-only, in synchronous reads (sync-file-chunks.ts: the
 * thread has nothing else to do meanwhile), and hands back the finished tables (shared memory: not copied);
 * or compares a file pair of a storage opened as another's continuation (prefix-compare.ts).
 */
parentPort?.on('message', (request: WorkerRequest | PrefixRequest) => {
  if (request.kind === 'prefix') return comparePrefix(request);
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

function comparePrefix(request: PrefixRequest): void {
  let reply: PrefixReply;
  try {
    reply = { ok: true, result: comparePrefixTask(request.task) };
  } catch (error) {
    reply = { ok: false, failure: failureOf(error) };
  }
  // The taken records' bytes are handed over, not copied.
  parentPort?.postMessage(reply, reply.ok ? [reply.result.taken.bytes.buffer as ArrayBuffer] : []);
}
