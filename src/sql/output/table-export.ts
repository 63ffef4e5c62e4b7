import type { TableCache } from '../cache/table-cache.js';
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { GraphIndex } from '../../graph/model/graph-index.js';
import type { Storage } from '../../storage/storage.js';
import type { SchemaTable } from '../tables/finish-tables.js';
import { csvHeaderLine, csvLines, ndjsonLines } from './result-text.js';
import { exportRoomNeeded, missingRoom, roomText } from './export-room.js';
import type { CsvCells } from '../answers/result-values.js';
import type { SqlColumn } from '../sql-engine.js';
import { SqlEngine } from '../sql-engine.js';
import { temporaryDirectory } from '../sandbox/temporary-directory.js';
import { removeAtExit } from '../sandbox/remove-while-written.js';

/**
 * Every table of a storage (or the chosen ones) written into a new directory: Parquet through
 * DuckDB's writer (zstd), or CSV / NDJSON with the value rules of the HTTP answers, plus a small
 * `manifest.json`. Written into a temporary directory beside the target and renamed into place
 * when complete, so a directory at `out` is always whole.
 */

export type TableExportFormat = 'parquet' | 'csv' | 'ndjson';

export interface TableExportOptions {
  readonly storage: Storage;
  readonly graph?: () => Promise<GraphIndex | undefined>;
  readonly out: string;
  readonly format: TableExportFormat;
  /** Only this table: its SQL name, simple-name alias or one of its type ids. */
  readonly table?: string | undefined;
  readonly memoryLimitBytes?: number;
  /** CSV: cells a spreadsheet would run as a formula neutralised (default) or written raw. */
  readonly csvCells?: CsvCells;
  readonly onTable?: (table: string, rows: number) => void;
  /** What the export starts next (the tables' build and the type fills say nothing else for tens of seconds at 10M objects). */
  readonly onStep?: (step: string) => void;
  /** Where the built tables are kept between runs (none: built here). */
  readonly cache?: TableCache | undefined;
  readonly onProblem?: (message: string) => void;
}

export interface ManifestTable {
  readonly name: string;
  readonly alias: string | null;
  readonly kind: 'type' | 'system';
  readonly typeIds: readonly string[];
  readonly file: string;
  readonly rows: number;
  readonly bytes: number;
  readonly columns: readonly { readonly name: string; readonly type: string; readonly objectId: boolean }[];
}

export interface ExportManifest {
  readonly format: TableExportFormat;
  readonly storage: string;
  readonly objects: number;
  readonly writtenAt: string;
  readonly tables: readonly ManifestTable[];
}

export class ExportTargetError extends Error {}

/** A file name for a table: its SQL name with anything unusual replaced. */
export function tableFileName(table: string, format: TableExportFormat): string {
  return `${table.replace(/[^A-Za-z0-9._$-]/g, '_')}.${format}`;
}

export async function exportTables(options: TableExportOptions): Promise<ExportManifest> {
  const out = resolve(options.out);
  if (existsSync(out)) throw new ExportTargetError(`--out ${options.out} exists already; give a new directory (nothing is overwritten)`);
  if (!existsSync(dirname(out)) || !statSync(dirname(out)).isDirectory()) throw new ExportTargetError(`--out ${options.out}: its parent directory does not exist`);
  // The room on the disk first: a full disk found by a write would cost the work done until then.
  const liveBytes = options.storage.channels.reduce((sum, channel) => channel.files.reduce((n, file) => n + file.liveLength, sum), 0);
  // One table alone asks only for the database's room, but for a link table: as Parquet its
  // uncompressed rows are written beside --out first (most of a whole export's room there), as
  // CSV or NDJSON it holds a line per link, so it asks what every table would.
  const besideAsWhole = options.table === undefined || LINK_TABLES.has(options.table);
  const missing = missingRoom(exportRoomNeeded(liveBytes, options.format, dirname(out), besideAsWhole, temporaryDirectory()), undefined, (label, error) =>
    options.onProblem?.(`the free space in ${label} could not be learnt (${error instanceof Error ? error.message : String(error)}); the export goes on unchecked there`),
  );
  if (missing !== undefined) throw new ExportTargetError(`not enough free space in ${missing.label}: the export needs about ${roomText(missing.bytes)} there (estimated from the storage's ${roomText(liveBytes)} of current records), ${roomText(missing.free)} are free; free some space or give --out (or TMPDIR) on another disk`);
  const partial = join(dirname(out), `.${basename(out)}.partial-${process.pid}`);
  const engine = new SqlEngine({ storage: options.storage, allowFiles: true, everyValueFirst: true, timeoutMs: 0, maxConcurrent: 1, cache: options.cache, ...(options.onProblem === undefined ? {} : { onProblem: options.onProblem }), ...(options.graph === undefined ? {} : { graph: options.graph }), ...(options.memoryLimitBytes === undefined ? {} : { memoryLimitBytes: options.memoryLimitBytes }) });
  // On process.exit (the CLI's SIGINT and SIGTERM handlers): DuckDB's threads may still be
  // writing a file in it, or making the next table's.
  const onSignal = (): void => removeAtExit(partial);
  process.once('exit', onSignal);
  // The passes started beside others (`_objects`' copy, the link pass): whatever ends the export
  // (a caller's callback that throws included), they have ended before the hidden directory is
  // removed and the engine closed, not writing into them afterwards unobserved.
  const branches: Promise<unknown>[] = [];
  try {
    options.onStep?.('building the tables');
    const { tables } = await engine.schema();
    const chosen = chooseTables(tables, options.table);
    mkdirSync(partial);
    const written = new Map<string, ManifestTable>();
    const entry = (table: SchemaTable, file: string, rows: number): void => {
      written.set(table.name, { name: table.name, alias: table.alias, kind: table.kind, typeIds: table.typeIds, file, rows, bytes: statSync(join(partial, file)).size, columns: table.columns });
      options.onTable?.(table.name, rows);
    };
    const write = async (table: SchemaTable): Promise<void> => {
      const file = tableFileName(table.name, options.format);
      const path = join(partial, file);
      // As Parquet, the rows COPY wrote: no statement of the engine's (one at a time) beside another table's copy.
      let rows: number;
      if (options.format === 'parquet') rows = await engine.copyToParquet(table.name, path);
      else {
        rows = Number((await engine.query(`SELECT count(*) FROM ${sqlName(table.name)}`, { limit: 1 })).rows[0]![0]);
        await writeText(engine, table.name, path, options.format, options.csvCells ?? 'safe');
      }
      entry(table, file, rows);
    };
    // As Parquet, `_objects` is written beside the type fills: its graph index is built in worker
    // threads and its rows written by DuckDB's threads while this thread walks the type fills'
    // records. Without a cache to keep the tables in, straight from its pass's rows into the file,
    // the table never filled (sql-engine.ts `copyObjectsToParquet`).
    const early = options.format === 'parquet' && chosen.length > 1 ? chosen.find((t) => t.name === '_objects') : undefined;
    const objectsUnkept = early !== undefined && options.cache === undefined;
    // A pass started beside the others: awaited below (or, on a failure, before the directory is
    // removed); its failure is noted so that the export ends at the next table, not after every
    // other table was written.
    let branchFailure: { readonly error: unknown } | undefined;
    const beside = <T>(pass: Promise<T>): Promise<T> => {
      pass.catch((error: unknown) => (branchFailure ??= { error }));
      branches.push(pass);
      return pass;
    };
    const earlyWritten = beside(
      (async (): Promise<void> => {
        if (early === undefined) return;
        if (!objectsUnkept) return write(early);
        const file = tableFileName(early.name, 'parquet');
        entry(early, file, await engine.copyObjectsToParquet(join(partial, file)));
      })(),
    );
    // As Parquet, `_elements` and `_references` are written by a pass of their own (sql-engine.ts
    // `copyLinkTablesToParquet`), started beside the other tables' copies: the pass is mostly this
    // thread's work, a copy mostly DuckDB's threads'. It leaves them unfilled; with a cache the
    // files it writes are kept in the entry (unless the cache had them: then copied from there).
    const links = options.format === 'parquet' ? chosen.filter((t) => LINK_TABLES.has(t.name)) : [];
    let linkRows: Promise<Map<string, number>> | undefined;
    // The fills are done (or, written straight into their files, their records walked): from
    // here on tables are written. Its failure (a staged file that cannot be written, a full disk)
    // ends the loop as `_objects`' does.
    const writing = (): void => {
      if (linkRows !== undefined) return;
      options.onStep?.(`writing ${chosen.length === 1 ? '1 table' : `${chosen.length} tables`}`);
      // With a cache the files written are kept with the other tables.
      const fill = options.cache === undefined ? undefined : { filling: () => options.onStep?.(LINK_FILL_STEP) };
      linkRows = links.length === 0 ? Promise.resolve(new Map()) : beside(engine.copyLinkTablesToParquet(new Map(links.map((t) => [t.name, join(partial, tableFileName(t.name, 'parquet'))])), fill));
    };
    // Without a cache to keep them in, the entity types' tables are written straight from their
    // staged rows (sql-engine.ts `copyTypeTablesToParquet`), the tables never filled; the link
    // pass starts once their records are walked, beside their copies.
    const straight = new Set<string>();
    // Every type table at once: one pass over the files, not one per table.
    if (chosen.length > 1) {
      const types = chosen.filter((t) => t.kind === 'type');
      options.onStep?.(`filling ${types.length} type tables`);
      if (objectsUnkept) {
        const byName = new Map(types.map((t) => [t.name, t]));
        await engine.copyTypeTablesToParquet(new Map(types.map((t) => [t.name, join(partial, tableFileName(t.name, 'parquet'))])), {
          walked: writing,
          written: (name, rows) => {
            // A pass beside that failed (`_objects`' copy, the link pass) ends the copies here.
            if (branchFailure !== undefined) throw branchFailure.error;
            straight.add(name);
            entry(byName.get(name)!, tableFileName(name, 'parquet'), rows);
          },
        });
      } else await engine.fillAll();
    }
    // `_objects` failed beside the fills (and has ended): told now.
    if (branchFailure !== undefined) throw branchFailure.error;
    writing();
    for (const table of chosen) {
      if (branchFailure !== undefined) break;
      if (!links.includes(table) && table !== early && !straight.has(table.name)) await write(table);
    }
    await earlyWritten;
    if (linkRows !== undefined) {
      const rows = await linkRows;
      for (const table of links) entry(table, tableFileName(table.name, 'parquet'), rows.get(table.name)!);
    }
    // Without `_objects` among the tables, the build's count: counting the table would fill it.
    const objects = written.get('_objects')?.rows ?? (await engine.objectCount());
    const manifest: ExportManifest = { format: options.format, storage: options.storage.directory, objects, writtenAt: new Date().toISOString(), tables: chosen.map((t) => written.get(t.name)!) };
    writeFileSync(join(partial, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    try {
      renameSync(partial, out);
    } catch (error) {
      // Another export to the same --out (another process) renamed its directory into place first.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') throw new ExportTargetError(`--out ${options.out} was written by another export meanwhile; nothing was overwritten`);
      throw error;
    }
    // Every table filled: kept whole for the next export or statement.
    await engine.settle();
    return manifest;
  } catch (error) {
    await Promise.allSettled(branches);
    rmSync(partial, { recursive: true, force: true });
    throw error;
  } finally {
    process.off('exit', onSignal);
    engine.close();
  }
}

/**
 * The step told when an export with a cache takes the `_elements` and `_references` files it
 * wrote to keep them in the cache (once: the next export copies them from the cache).
 */
export const LINK_FILL_STEP = '_elements and _references: kept for the cache';

/** The tables an export writes by a pass of their own (see `exportTables`). */
const LINK_TABLES: ReadonlySet<string> = new Set(['_elements', '_references']);

function sqlName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function chooseTables(tables: readonly SchemaTable[], wanted: string | undefined): SchemaTable[] {
  if (wanted === undefined) return [...tables];
  const found = tables.find((t) => t.name === wanted || t.alias === wanted || t.typeIds.includes(wanted));
  if (found === undefined) throw new ExportTargetError(`no table ${wanted}: give a type name with instances, its simple name or a type id`);
  return [found];
}

async function writeText(engine: SqlEngine, table: string, path: string, format: 'csv' | 'ndjson', cells: CsvCells): Promise<void> {
  const { createWriteStream } = await import('node:fs');
  const stream = createWriteStream(path, { flags: 'wx' });
  const failed = new Promise<never>((_resolve, reject) => stream.once('error', reject));
  failed.catch(() => undefined);
  const write = (text: string): Promise<void> =>
    stream.write(text) ? Promise.resolve() : Promise.race([new Promise<void>((done) => stream.once('drain', () => done())), failed]);
  let columns: readonly SqlColumn[] = [];
  await engine.stream(
    `SELECT * FROM ${sqlName(table)}`,
    undefined,
    async (c) => {
      columns = c;
      if (format === 'csv') await write(csvHeaderLine(columns, cells));
    },
    async (rows) => {
      await write(format === 'csv' ? csvLines(rows, cells) : ndjsonLines(columns, rows));
    },
  );
  await Promise.race([new Promise<void>((done) => stream.end(() => done())), failed]);
}
