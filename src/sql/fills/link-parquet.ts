import { rmSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Storage } from '../../storage/storage.js';
import { quoteText } from '../tables/column-model.js';
import { ParquetRowWriter, type ParquetColumn } from '../tables/parquet-rows.js';
import { forEachLatestRecord } from '../../storage/records/latest-records.js';
import { DirectorySource } from '../../storage/source/directory-source.js';
import { linkRecordPass, memberCodesOf, stagedElementsSelect, type LinkType } from './link-tables.js';
import { ELEMENT_COLUMNS, LINK_FILE_CLAIM, REFERENCE_COLUMNS, STAGED_COLUMNS, startLinkThread, wantsLinkThread, type LinkThreadWork } from './link-thread.js';

/**
 * An export's `_elements` and `_references` as Parquet without DuckDB's appender: the link pass
 * writes its rows into Parquet files of our own (uncompressed, from typed arrays: the appender
 * took one thread about 16 s for the 48M rows of a 10M-object storage), and DuckDB's COPY reads
 * them with its parallel reader and writes the exported files as it writes every other table
 * (zstd), the staged elements joined to their value objects' texts in the same statement. The
 * files of our own lie beside the exported ones and are removed once read (or on a failure).
 */

const MEMBER_COLUMNS: readonly ParquetColumn[] = [
  { name: 'code', type: 'int32', nullable: false },
  { name: 'name', type: 'text', nullable: false },
];

/**
 * Writes `_elements` and `_references` (`files`, by lower-case table name) as DuckDB writes
 * every table (zstd), `_values` read from `connection`'s database for the texts of value objects.
 * A directory storage's files are shared with a worker thread (link-thread.ts) when it is large
 * enough and a second core is there (`threads` says yes or no instead). Rows per table written.
 */
export async function writeLinkTablesAsParquet(
  connection: DuckDBConnection,
  storage: Storage,
  types: ReadonlyMap<bigint, LinkType>,
  files: ReadonlyMap<string, string>,
  threads?: boolean,
  /** Told what the worker thread did, when there was one. */
  onWorker?: (work: LinkThreadWork) => void,
): Promise<Map<string, number>> {
  const first = files.values().next().value;
  if (first === undefined) return new Map();
  const scratch = (name: string): string => `${first}.${name}.rows`;
  const paths = { direct: scratch('elements'), staged: scratch('staged'), members: scratch('members'), references: scratch('references') };
  const theirs = { direct: scratch('elements-2'), staged: scratch('staged-2'), references: scratch('references-2') };
  const writers: ParquetRowWriter[] = [];
  const releases: (() => void)[] = [];
  let thread: ReturnType<typeof startLinkThread> | undefined;
  let threaded = false;
  try {
    const direct = new ParquetRowWriter(paths.direct, ELEMENT_COLUMNS);
    writers.push(direct);
    const staged = new ParquetRowWriter(paths.staged, STAGED_COLUMNS);
    writers.push(staged);
    const references = new ParquetRowWriter(paths.references, REFERENCE_COLUMNS);
    writers.push(references);
    const members = memberCodesOf(types);
    const pass = linkRecordPass(types, { direct, staged, references }, members);
    const dataFiles = storage.channels.flatMap((channel, index) => channel.files.map((file) => ({ channel: index, file })));
    const bytes = dataFiles.reduce((sum, { file }) => sum + file.totalLength, 0);
    if (storage.source instanceof DirectorySource && wantsLinkThread(threads, bytes)) {
      const claims = new Int32Array(new SharedArrayBuffer(4 * dataFiles.length));
      const indexes = storage.channels.map((channel) => {
        const { parts, release } = channel.objects.snapshot();
        releases.push(release);
        return parts;
      });
      threaded = true;
      thread = startLinkThread({
        types: [...types],
        members: [...members],
        files: dataFiles.map(({ channel, file }) => ({ path: file.path, slot: file.slot, totalLength: file.totalLength, channel })),
        indexes,
        claims,
        paths: theirs,
      });
      // This thread from the last file back, the worker from the first on, until they meet
      // (from once the worker has claimed the first: this thread's other work goes on meanwhile).
      await thread.started;
      for (let k = dataFiles.length - 1; k >= 0 && Atomics.compareExchange(claims, k, LINK_FILE_CLAIM.unclaimed, LINK_FILE_CLAIM.exporter) === LINK_FILE_CLAIM.unclaimed; k--) {
        const { channel, file } = dataFiles[k]!;
        const one = { channels: [{ files: [file], objects: storage.channels[channel]!.objects }], source: storage.source };
        await forEachLatestRecord(one, pass.typeIds, pass.handle, undefined, true, pass.visit);
      }
      const work = await thread.done;
      thread = undefined;
      onWorker?.(work);
    } else {
      await forEachLatestRecord(storage, pass.typeIds, pass.handle, undefined, true, pass.visit);
    }
    for (const writer of writers) writer.closeSync();
    const names = new ParquetRowWriter(paths.members, MEMBER_COLUMNS);
    writers.push(names);
    for (const [name, code] of members) {
      names.appendInteger(code);
      names.appendVarchar(name);
      names.endRow();
    }
    names.closeSync();
    const read = (...all: string[]): string => `read_parquet(${all.length === 1 ? quoteText(all[0]!) : `[${all.map(quoteText).join(', ')}]`})`;
    // The worker's files beside ours (the same columns) when there was one.
    const withTheirs = (ours: string, their: string): string => (threaded ? read(ours, their) : read(ours));
    const rows = new Map<string, number>();
    const copy = async (table: string, select: string): Promise<void> => {
      const file = files.get(table);
      if (file === undefined) return;
      const reader = await connection.runAndReadAll(`COPY (${select}) TO ${quoteText(file)} (FORMAT parquet, COMPRESSION zstd)`);
      rows.set(table, Number(reader.getRows()[0]![0]));
    };
    await copy('_elements', `SELECT * FROM ${withTheirs(paths.direct, theirs.direct)} UNION ALL SELECT * FROM (${stagedElementsSelect(withTheirs(paths.staged, theirs.staged), read(paths.members))})`);
    await copy('_references', `SELECT * FROM ${withTheirs(paths.references, theirs.references)}`);
    return rows;
  } catch (error) {
    // Closed without a footer (a no-op for those closed already); removed below.
    for (const writer of writers) writer.abort();
    await thread?.stop();
    throw error;
  } finally {
    for (const release of releases) release();
    for (const path of [...Object.values(paths), ...Object.values(theirs)]) rmSync(path, { force: true });
  }
}
