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
import { invalid, prepareReadOnly, SqlError } from './sandbox.js';
import { BuiltTables } from './built-tables.js';

/**
 * SQL over one storage: its tables built into a locked-down DuckDB (built-tables.ts) when a query
 * first needs them, rebuilt when the storage has changed since (each query runs against one built
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

export class SqlEngine {
  private built: BuiltTables | undefined;
  private building: Promise<BuiltTables> | undefined;
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
    work: (duck: DuckModule, connection: DuckDBConnection, stopping: () => boolean, built: BuiltTables) => Promise<T>,
  ): Promise<T> {
    if (this.running >= this.limits.maxConcurrent) throw new SqlError('busy', `${this.running} statements are running, the limit is ${this.limits.maxConcurrent}; ask again`);
    if (signal?.aborted === true) throw new SqlError('cancelled', 'cancelled');
    this.running++;
    let built: BuiltTables | undefined;
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
      for (let attempt = 0; !(await built.ready(duck, sql)); attempt++) {
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
  private async current(): Promise<BuiltTables> {
    if (this.closed) throw new Error('the SQL engine is closed');
    const storage = this.options.storage;
    if (this.built !== undefined && this.built.generation === storage.generation) return this.built;
    this.building ??= this.build().finally(() => (this.building = undefined));
    return this.building;
  }

  private async build(): Promise<BuiltTables> {
    const duck = await loadDuck();
    const storage = this.options.storage;
    const graph = await this.options.graph?.();
    const started = performance.now();
    const fresh = await storage.consistent(() =>
      BuiltTables.build(duck, storage, graph, { memoryLimitBytes: this.limits.memoryLimitBytes, allowFiles: this.options.allowFiles === true, onProgress: this.options.onBuildProgress, onProblem: this.options.onProblem }),
    );
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

  /** Every table filled (our own exports; benchmarks). */
  async fillAll(): Promise<void> {
    const built = await this.current();
    built.active++;
    try {
      if (!(await built.fillAll(await loadDuck()))) throw new Error('the storage changed while its tables were built; ask again');
    } finally {
      built.active--;
      this.release(built);
    }
  }

  private release(built: BuiltTables): void {
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
      if (!(await built.ready(await loadDuck(), quoteIdent(table)))) throw new Error('the storage changed while it was exported; export again');
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

function stopped(why: 'timeout' | 'cancelled', timeoutMs: number): SqlError {
  return why === 'timeout' ? new SqlError('timeout', `the statement was interrupted after the SQL timeout of ${timeoutMs} ms`) : new SqlError('cancelled', 'the statement was cancelled');
}
