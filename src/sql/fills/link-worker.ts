import { parentPort } from 'node:worker_threads';
import { ObjectIndex } from '../../storage/index/object-index.js';
import { forEachLatestRecord } from '../../storage/records/latest-records.js';
import { readHeadAhead, SYNC_LOCAL_FILES } from '../../storage/source/sync-file-chunks.js';
import { ParquetRowWriter } from '../tables/parquet-rows.js';
import { LINK_FILE_CLAIM, REFERENCE_COLUMNS, STAGED_COLUMNS, ELEMENT_COLUMNS, type LinkThreadJob, type LinkThreadReply } from './link-thread.js';
import { linkRecordPass } from './link-tables.js';

/**
 * Worker thread entry (link-thread.ts starts it): the link pass over the data files it claims,
 * from the first on, read by path in synchronous reads, into Parquet files of its own beside the
 * exporting thread's; it stops at the first file the exporting thread (taking them from the last
 * one back) has claimed.
 */

parentPort!.once('message', (job: LinkThreadJob) => {
  run(job).then(
    ({ files, rows }) => parentPort!.postMessage({ kind: 'done', files, rows } satisfies LinkThreadReply),
    (error: unknown) => parentPort!.postMessage({ kind: 'failed', message: error instanceof Error ? error.message : String(error) } satisfies LinkThreadReply),
  );
});

async function run(job: LinkThreadJob): Promise<{ files: number; rows: number }> {
  const writers: ParquetRowWriter[] = [];
  try {
    const direct = new ParquetRowWriter(job.paths.direct, ELEMENT_COLUMNS);
    writers.push(direct);
    const staged = new ParquetRowWriter(job.paths.staged, STAGED_COLUMNS);
    writers.push(staged);
    const references = new ParquetRowWriter(job.paths.references, REFERENCE_COLUMNS);
    writers.push(references);
    const pass = linkRecordPass(new Map(job.types), { direct, staged, references }, new Map(job.members));
    const indexes = job.indexes.map((parts) => ObjectIndex.fromParts(parts));
    let k = 0;
    for (; k < job.files.length && Atomics.compareExchange(job.claims, k, LINK_FILE_CLAIM.unclaimed, LINK_FILE_CLAIM.worker) === LINK_FILE_CLAIM.unclaimed; k++) {
      if (k === 0) parentPort!.postMessage({ kind: 'started' } satisfies LinkThreadReply);
      const { channel, ...file } = job.files[k]!;
      if (k + 1 < job.files.length) readHeadAhead(job.files[k + 1]!.path);
      await forEachLatestRecord({ channels: [{ files: [file], objects: indexes[channel]! }], source: SYNC_LOCAL_FILES }, pass.typeIds, pass.handle, undefined, true, pass.visit);
    }
    let rows = 0;
    for (const writer of writers) rows += writer.closeSync();
    return { files: k, rows };
  } catch (error) {
    for (const writer of writers) writer.abort();
    throw error;
  }
}
