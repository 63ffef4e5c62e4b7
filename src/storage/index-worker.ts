import { parentPort } from 'node:worker_threads';
import { indexChannel, type ChannelIndexJob } from './channel-indexer.js';

/** Worker thread entry: indexes the channels it is sent, one message each, and returns the tables. */
parentPort?.on('message', (job: ChannelIndexJob) => {
  indexChannel(job).then(
    (result) => parentPort?.postMessage({ ok: true, result }, [result.table.words.buffer as ArrayBuffer]),
    (error: unknown) => parentPort?.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) }),
  );
});
