import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBResult } from '@duckdb/node-api';
import type { GraphIndex } from '../graph/model/graph-index.js';
import type { RecordPassProgress } from '../graph/queries/latest-records.js';
import type { Storage } from '../storage/storage.js';
import { quoteIdent, quoteText } from './column-model.js';
import { loadDuck, type DuckModule } from './duck-module.js';
import type { SchemaTable } from './finish-tables.js';
import { converterFor, type CellConverter, type JsonCell } from './result-values.js';
import { invalid, openSandbox, prepareReadOnly, SqlError, type Sandbox } from './sandbox.js';
import { buildLinkTables, namesLinkTables, type LinkType } from './link-tables.js';
import { FILL_OBJECTS, namesObjectsTable } from './object-rows.js';
import { buildTables } from './table-build.js';
import { fillTypeTables, typeTablesNamed } from './type-fill.js';
import type { TypeTablePlan } from './column-model.js';

/**
 * SQL over one storage: its tables built into a locked-down in-memory DuckDB when a query first
 * needs them, rebuilt when the storage has changed since (each query runs against one built
 * state, which the storage's consistency gate kept still while it was read), every query bounded
 * by a timeout that interrupts it, a row limit (buffered answers) and a number running at once.
 */

export interface SqlLimits {
  /** Interrupts a statement after this long (0: never). */
  readonly timeoutMs: number;
  readonly memoryLimitBytes: number;
  /** Statements running at once; more are refused (busy). */
  readonly maxConcurrent: number;
}

export const DEFAULT_SQL_LIMITS: SqlLimits = { timeoutMs: 30_000, memoryLimitBytes: 1024 ** 3, maxConcurrent: 4 };

export interface SqlEngineOptions extends Partial<SqlLimits> {
  readonly storage: Storage;
  /** The graph index (reachability for `_objects`), awaited before a build; undefined: reachable is NULL. */
  readonly graph?: () => Promise<GraphIndex | undefined>;
  readonly onBuildProgress?: (progress: RecordPassProgress) => void;
  readonly onBuilt?: (figures: { objects: number; problems: number; buildMs: number }) => void;
  readonly onProblem?: (message: string) => void;
  /** Our own exports only (no user statement runs there): leaves file access on for COPY. */
  readonly allowFiles?: boolean;
}

export interface SqlColumn {
  readonly name: string;
  readonly type: string;
}

export interface SqlAnswer {
  readonly columns: readonly SqlColumn[];
  readonly rows: JsonCell[][];
  readonly rowCount: number;
  readonly truncated: boolean;
  readonly elapsedMs: number;
}

export interface QueryOptions {
  readonly limit: number;
  readonly signal?: AbortSignal;
}

interface Built {
  readonly generation: number;
  readonly sandbox: Sandbox;
  readonly tables: readonly SchemaTable[];
  readonly linkTypes: ReadonlyMap<bigint, LinkType>;
  /** `_elements` and `_references` filled (or being filled), by the first statement that names them. */
  links: Promise<boolean> | undefined;
  /** `_objects` likewise (its rows are there, its names not yet joined). */
  objects: Promise<boolean> | undefined;
  /** Entity types' tables made empty, filled by the first statement that names them (by lower-case full or simple name). */
  readonly deferred: ReadonlyMap<string, TypeTablePlan>;
  readonly decimals: ReadonlyMap<string, string>;
  /** Per full type name: its table filled (or being filled). */
  readonly fills: Map<string, Promise<boolean>>;
  active: number;
  retired: boolean;
}

export class SqlEngine {
  private built: Built | undefined;
  private building: Promise<Built> | undefined;
  private running = 0;
  private closed = false;
  readonly limits: SqlLimits;

  constructor(private readonly options: SqlEngineOptions) {
    this.limits = {
      timeoutMs: options.timeoutMs ?? DEFAULT_SQL_LIMITS.timeoutMs,
      memoryLimitBytes: options.memoryLimitBytes ?? DEFAULT_SQL_LIMITS.memoryLimitBytes,
      maxConcurrent: options.maxConcurrent ?? DEFAULT_SQL_LIMITS.maxConcurrent,
    };
  }

  /** Tables and their columns (builds them if needed). */
  async schema(): Promise<{ tables: readonly SchemaTable[] }> {
    const built = await this.current();
    return { tables: built.tables };
  }

  /** Runs one read-only statement; at most `limit` rows are kept (`truncated` says whether more existed). */
  async query(sql: string, options: QueryOptions): Promise<SqlAnswer> {
    const rows: JsonCell[][] = [];
    let truncated = false;
    const started = performance.now();
    const columns = await this.run(sql, options.signal, async (chunkRows) => {
      for (const row of chunkRows) {
        if (rows.length >= options.limit) {
          truncated = true;
          return false;
        }
        rows.push(row);
      }
      return true;
    });
    return { columns, rows, rowCount: rows.length, truncated, elapsedMs: Math.round((performance.now() - started) * 1000) / 1000 };
  }

  /**
   * Runs one read-only statement and hands over its rows chunk by chunk (about 2,048 at a time);
   * the next chunk is fetched only when `onRows` has settled (back-pressure) and unless it
   * answered false. `onColumns` comes first.
   */
  async stream(sql: string, signal: AbortSignal | undefined, onColumns: (columns: readonly SqlColumn[]) => Promise<void> | void, onRows: (rows: JsonCell[][]) => Promise<boolean | void>): Promise<void> {
    await this.run(sql, signal, onRows, onColumns);
  }

  private async run(
    sql: string,
    signal: AbortSignal | undefined,
    onRows: (rows: JsonCell[][]) => Promise<boolean | void>,
    onColumns?: (columns: readonly SqlColumn[]) => Promise<void> | void,
  ): Promise<SqlColumn[]> {
    return this.session(sql, signal, async (duck, connection, stopping) => {
      const prepared = await prepareReadOnly(duck, connection, sql);
      let result: DuckDBResult;
      try {
        result = await prepared.stream();
      } finally {
        prepared.destroySync();
      }
      const columns: SqlColumn[] = [];
      const converters: CellConverter[] = [];
      for (let i = 0; i < result.columnCount; i++) {
        const type = result.columnType(i);
        columns.push({ name: result.columnName(i), type: type.toString() });
        converters.push(converterFor(type));
      }
      await onColumns?.(columns);
      for (;;) {
        if (stopping()) break;
        const chunk = await result.fetchChunk();
        if (chunk === null || chunk.rowCount === 0) break;
        const raw = chunk.getRows();
        const rows = raw.map((row) => row.map((value, i) => converters[i]!(value)));
        if ((await onRows(rows)) === false) break;
      }
      return columns;
    });
  }

  /**
   * The whole result of one read-only SELECT as a Parquet file (zstd), written by DuckDB's COPY
   * into the engine's private answers directory (never the storage's), under the same bounds as
   * a streamed answer (timeout, concurrency, cancel). The statement is checked as every other,
   * then re-rendered by DuckDB's own serializer before it is wrapped into the COPY (no comment or
   * `;` of the client's text reaches it). The caller streams the file and removes it.
   */
  async parquetFile(sql: string, signal?: AbortSignal): Promise<string> {
    return this.session(sql, signal, async (duck, connection, _stopping, built) => {
      (await prepareReadOnly(duck, connection, sql)).destroySync();
      const rendered = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [sql]);
      const tree = JSON.parse(String(rendered.getRows()[0]![0])) as { error: boolean; error_message?: string };
      if (tree.error) throw new SqlError('refused', `a Parquet answer is made of a SELECT statement: ${tree.error_message ?? 'this one cannot be rendered'}`);
      const select = await connection.runAndReadAll('SELECT json_deserialize_sql(json_serialize_sql($1::VARCHAR))', [sql]);
      const file = join(built.sandbox.exportDirectory, `${randomUUID()}.parquet`);
      try {
        await connection.run(`COPY (\n${String(select.getRows()[0]![0])}\n) TO ${quoteText(file)} (FORMAT parquet, COMPRESSION zstd)`);
      } catch (error) {
        rmSync(file, { force: true });
        throw error;
      }
      return file;
    });
  }

  /** One statement's turn: a slot among `maxConcurrent`, a connection of the current tables, the timeout and the client's cancel. */
  private async session<T>(
    sql: string,
    signal: AbortSignal | undefined,
    work: (duck: DuckModule, connection: DuckDBConnection, stopping: () => boolean, built: Built) => Promise<T>,
  ): Promise<T> {
    if (this.running >= this.limits.maxConcurrent) throw new SqlError('busy', `${this.running} statements are running, the limit is ${this.limits.maxConcurrent}; ask again`);
    if (signal?.aborted === true) throw new SqlError('cancelled', 'cancelled');
    this.running++;
    let built: Built | undefined;
    let connection: DuckDBConnection | undefined;
    let stop: 'timeout' | 'cancelled' | undefined;
    let timer: NodeJS.Timeout | undefined;
    const interrupt = (why: 'timeout' | 'cancelled'): void => {
      stop ??= why;
      connection?.interrupt();
    };
    const onAbort = (): void => interrupt('cancelled');
    try {
      const duck = await loadDuck();
      built = await this.current();
      built.active++;
      // A statement that may read `_elements`, `_references` or type tables not filled yet waits
      // for them to be filled from the same state as the other tables; a storage changed
      // meanwhile means a new build.
      for (let attempt = 0; !(await this.ready(built, duck, sql)); attempt++) {
        if (attempt === 2) throw new Error('the storage keeps changing while its tables are built; ask again');
        built.active--;
        this.release(built);
        built = await this.current();
        built.active++;
      }
      connection = await built.sandbox.instance.connect();
      signal?.addEventListener('abort', onAbort, { once: true });
      if (this.limits.timeoutMs > 0) timer = setTimeout(() => interrupt('timeout'), this.limits.timeoutMs);
      const answer = await work(duck, connection, () => stop !== undefined, built);
      if (stop !== undefined) throw stopped(stop, this.limits.timeoutMs);
      return answer;
    } catch (error) {
      if (stop !== undefined) throw stopped(stop, this.limits.timeoutMs);
      if (error instanceof SqlError) throw error;
      if (error instanceof Error && /^[A-Z][A-Za-z ]* Error: /.test(error.message)) throw invalid(error, sql);
      throw error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      connection?.closeSync();
      this.running--;
      if (built !== undefined) {
        built.active--;
        this.release(built);
      }
    }
  }

  /** The built tables of the storage's current state, built (once at a time) when missing or stale. */
  private async current(): Promise<Built> {
    if (this.closed) throw new Error('the SQL engine is closed');
    const storage = this.options.storage;
    if (this.built !== undefined && this.built.generation === storage.generation) return this.built;
    this.building ??= this.build().finally(() => (this.building = undefined));
    return this.building;
  }

  private async build(): Promise<Built> {
    const duck = await loadDuck();
    const storage = this.options.storage;
    const graph = await this.options.graph?.();
    const started = performance.now();
    const fresh = await storage.consistent(() => buildState(duck, storage, graph, this.limits, this.options));
    this.options.onBuilt?.({ objects: fresh.objects, problems: fresh.problems, buildMs: performance.now() - started });
    const old = this.built;
    this.built = fresh.built;
    if (old !== undefined) {
      old.retired = true;
      this.release(old);
    }
    if (this.closed) {
      fresh.built.retired = true;
      this.release(fresh.built);
    }
    return fresh.built;
  }

  /** What `sql` may read filled: false when the storage is no longer in the built state. */
  private async ready(built: Built, duck: DuckModule, sql: string): Promise<boolean> {
    if (namesObjectsTable(sql)) await this.objects(built);
    if (namesLinkTables(sql) && !(await this.links(built, duck))) return false;
    return this.fill(built, duck, typeTablesNamed(sql, built.deferred));
  }

  /** Every table filled (our own exports; benchmarks). */
  async fillAll(): Promise<void> {
    const built = await this.current();
    built.active++;
    try {
      await this.objects(built);
      if (!(await this.fill(built, await loadDuck(), new Set(built.deferred.values())))) throw new Error('the storage changed while its tables were built; ask again');
    } finally {
      built.active--;
      this.release(built);
    }
  }

  /**
   * Fills the tables of `plans` not filled yet, in one pass; false when the storage is no longer
   * in the built state. Tables being filled for another statement are waited for.
   */
  private async fill(built: Built, duck: DuckModule, plans: ReadonlySet<TypeTablePlan>): Promise<boolean> {
    const missing = [...plans].filter((plan) => !built.fills.has(plan.typeName));
    if (missing.length > 0) {
      const pass = this.options.storage
        .consistent(async () => {
          if (this.options.storage.generation !== built.generation) return false;
          const connection = await built.sandbox.instance.connect();
          try {
            await fillTypeTables(duck, connection, this.options.storage, missing, built.decimals, this.options.onProblem);
          } finally {
            connection.closeSync();
          }
          return true;
        })
        .then(
          (done) => {
            if (!done) for (const plan of missing) built.fills.delete(plan.typeName);
            return done;
          },
          (error: unknown) => {
            for (const plan of missing) built.fills.delete(plan.typeName);
            throw error;
          },
        );
      for (const plan of missing) built.fills.set(plan.typeName, pass);
    }
    for (const plan of plans) if (!(await built.fills.get(plan.typeName)!)) return false;
    return true;
  }

  /** Fills `_elements` and `_references` once; false when the storage is no longer in the built state. */
  private links(built: Built, duck: DuckModule): Promise<boolean> {
    built.links ??= this.options.storage
      .consistent(async () => {
        if (this.options.storage.generation !== built.generation) return false;
        const connection = await built.sandbox.instance.connect();
        try {
          await buildLinkTables(duck, connection, this.options.storage, built.linkTypes);
          await connection.run('CHECKPOINT');
        } finally {
          connection.closeSync();
        }
        return true;
      })
      .then(
        (done) => {
          if (!done) built.links = undefined;
          return done;
        },
        (error: unknown) => {
          built.links = undefined;
          throw error;
        },
      );
    return built.links;
  }

  /** Joins `_objects`' names once (no pass over the storage: its rows were made with the base tables). */
  private objects(built: Built): Promise<boolean> {
    built.objects ??= (async () => {
      const connection = await built.sandbox.instance.connect();
      try {
        await connection.run(FILL_OBJECTS);
      } finally {
        connection.closeSync();
      }
      return true;
    })().catch((error: unknown) => {
      built.objects = undefined;
      throw error;
    });
    return built.objects;
  }

  private release(built: Built): void {
    if (built.retired && built.active === 0) built.sandbox.close();
  }

  /**
   * Writes a table as Parquet (zstd) with DuckDB's writer: for exports by our own code, on an
   * engine made with `allowFiles` (a sandboxed engine refuses; its users' SQL never gets here).
   */
  async copyToParquet(table: string, file: string): Promise<void> {
    if (this.options.allowFiles !== true) throw new Error('this SQL engine has no file access');
    const built = await this.current();
    built.active++;
    const connection = await built.sandbox.instance.connect();
    try {
      if (!(await this.ready(built, await loadDuck(), quoteIdent(table)))) throw new Error('the storage changed while it was exported; export again');
      await connection.run(`COPY (SELECT * FROM ${quoteIdent(table)}) TO ${quoteText(file)} (FORMAT parquet, COMPRESSION zstd)`);
    } finally {
      connection.closeSync();
      built.active--;
      this.release(built);
    }
  }

  close(): void {
    this.closed = true;
    if (this.built !== undefined) {
      this.built.retired = true;
      this.release(this.built);
      this.built = undefined;
    }
  }
}

async function buildState(duck: DuckModule, storage: Storage, graph: GraphIndex | undefined, limits: SqlLimits, options: SqlEngineOptions): Promise<{ built: Built; objects: number; problems: number }> {
  const generation = storage.generation;
  const sandbox = await openSandbox(duck, { memoryLimitBytes: limits.memoryLimitBytes, storageDirectory: storage.directory, allowFiles: options.allowFiles === true });
  try {
    const connection = await sandbox.instance.connect();
    try {
      const result = await buildTables(duck, connection, storage, graph, { onProgress: options.onBuildProgress, onProblem: options.onProblem });
      // Written out compressed into the private database file; the memory limit bounds what stays cached.
      await connection.run('CHECKPOINT');
      await sandbox.lock(connection);
      const deferred = new Map<string, TypeTablePlan>();
      for (const table of result.tables) {
        const plan = table.typeName === null ? undefined : result.deferred.get(table.typeName);
        if (plan === undefined) continue;
        deferred.set(table.name.toLowerCase(), plan);
        if (table.alias !== null) deferred.set(table.alias.toLowerCase(), plan);
      }
      const built: Built = { generation, sandbox, tables: result.tables, linkTypes: result.linkTypes, links: undefined, objects: undefined, deferred, decimals: result.decimals, fills: new Map(), active: 0, retired: false };
      return { built, objects: result.objects, problems: result.problems };
    } finally {
      connection.closeSync();
    }
  } catch (error) {
    sandbox.close();
    throw error;
  }
}

function stopped(why: 'timeout' | 'cancelled', timeoutMs: number): SqlError {
  return why === 'timeout' ? new SqlError('timeout', `the statement was interrupted after the SQL timeout of ${timeoutMs} ms`) : new SqlError('cancelled', 'the statement was cancelled');
}
