import { quoteIdent, quoteText } from './tables/column-model.js';
import { EXPORT_PARQUET_OPTIONS } from './tables/parquet-options.js';
import { loadDuck } from './duck-module.js';
import type { BuiltTables, LinkFill, TypeCopyEvents } from './built-tables.js';
import type { EngineBuilds } from './engine-builds.js';
import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * What our own code asks of an engine's tables besides statements (sql-engine.ts's methods of the
 * same names): every table filled, tables written as Parquet by DuckDB's writer for our exports
 * (only on an engine made with `allowFiles`: a sandboxed engine refuses, its users' SQL never gets
 * here), and the rows per table the catalog estimates (diagnostics, tests). Each holds the current
 * build while it works, as a statement does.
 */

/** Runs `work` on the current build, counted as in use until it ends. */
async function withCurrent<T>(builds: EngineBuilds, work: (built: BuiltTables) => Promise<T>): Promise<T> {
  const built = await builds.current();
  built.active++;
  try {
    return await work(built);
  } finally {
    built.active--;
    builds.release(built);
  }
}

/**
 * `work` with a connection of the current build, counted as in use until it ends: the connect
 * inside, so that one refused (the engine closing) does not leave the build counted forever.
 */
async function withConnection<T>(builds: EngineBuilds, work: (built: BuiltTables, connection: DuckDBConnection) => Promise<T>): Promise<T> {
  return withCurrent(builds, async (built) => {
    const connection = await built.sandbox.instance.connect();
    try {
      return await work(built, connection);
    } finally {
      connection.closeSync();
    }
  });
}

/**
 * Rows per table as DuckDB's catalog estimates them, read by our own code (no user statement
 * may call `duckdb_tables()`): which tables are filled so far. Diagnostics and tests.
 */
export async function tableRowEstimates(builds: EngineBuilds): Promise<Map<string, number>> {
  return withConnection(builds, async (built, connection) => {
    await built.settled();
    const reader = await connection.runAndReadAll(`SELECT table_name, estimated_size FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main'`);
    return new Map(reader.getRows().map((r) => [String(r[0]), Number(r[1])]));
  });
}

/**
 * The current objects of the dictionary's types: the rows `_objects` holds, as the base pass
 * counted them (base-pass.ts `objects`), without filling `_objects` (its graph index, dominator
 * tree and pass: tens of seconds at 10M objects for an export of one other table).
 */
export async function objectCount(builds: EngineBuilds): Promise<number> {
  return withCurrent(builds, async (built) => built.objectCount);
}

/** Every table filled (our own exports; benchmarks); `_objects` too unless `withObjects` is false. */
export async function fillAll(builds: EngineBuilds, withObjects = true): Promise<void> {
  await withCurrent(builds, async (built) => {
    if (!(await built.fillAll(await loadDuck(), withObjects))) throw new Error('the storage changed while its tables were built; ask again');
  });
}

/**
 * Writes `_objects` as Parquet (zstd) with DuckDB's writer, without filling it for statements
 * unless a statement has (built-tables.ts `copyObjects`): an export that keeps no tables. Rows written.
 */
export async function copyObjectsToParquet(builds: EngineBuilds, allowFiles: boolean, file: string): Promise<number> {
  if (!allowFiles) throw new Error('this SQL engine has no file access');
  return withCurrent(builds, async (built) => {
    const rows = await built.copyObjects(await loadDuck(), file);
    if (rows === undefined) throw new Error('the storage changed while it was exported; export again');
    return rows;
  });
}

/**
 * Writes entity types' tables (`files`, by full type name) as Parquet (zstd) straight from the
 * type fill's staged rows, without filling them for statements (built-tables.ts `copyTypeTables`,
 * which says what `told` is told). Rows per table written: the names of tables it did not write
 * (filled for a statement already, or no entity type's table) are not among them.
 */
export async function copyTypeTablesToParquet(builds: EngineBuilds, allowFiles: boolean, files: ReadonlyMap<string, string>, told?: TypeCopyEvents): Promise<Map<string, number>> {
  if (!allowFiles) throw new Error('this SQL engine has no file access');
  return withCurrent(builds, async (built) => {
    const rows = await built.copyTypeTables(await loadDuck(), files, told);
    if (rows === undefined) throw new Error('the storage changed while it was exported; export again');
    return rows;
  });
}

/** Writes a table as Parquet (zstd) with DuckDB's writer; rows written (COPY's answer). */
export async function copyToParquet(builds: EngineBuilds, allowFiles: boolean, table: string, file: string): Promise<number> {
  if (!allowFiles) throw new Error('this SQL engine has no file access');
  return withConnection(builds, async (built, connection) => {
    if (!(await built.ready(await loadDuck(), new Set([table.toLowerCase()])))) throw new Error('the storage changed while it was exported; export again');
    const reader = await connection.runAndReadAll(`COPY (SELECT * FROM ${quoteIdent(table)}) TO ${quoteText(file)} (${EXPORT_PARQUET_OPTIONS})`);
    return Number(reader.getRows()[0]![0]);
  });
}

/**
 * Writes `_elements` and `_references` (`files`, by lower-case table name) as Parquet (zstd)
 * with DuckDB's writer, without filling them for statements unless `fill` is given
 * (built-tables.ts `copyLinkTables`). Rows per table.
 */
export async function copyLinkTablesToParquet(builds: EngineBuilds, allowFiles: boolean, files: ReadonlyMap<string, string>, fill?: LinkFill): Promise<Map<string, number>> {
  if (!allowFiles) throw new Error('this SQL engine has no file access');
  return withCurrent(builds, async (built) => {
    const rows = await built.copyLinkTables(await loadDuck(), files, fill);
    if (rows === undefined) throw new Error('the storage changed while it was exported; export again');
    return rows;
  });
}
