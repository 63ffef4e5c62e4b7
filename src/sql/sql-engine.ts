import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBResult } from '@duckdb/node-api';
import type { GraphIndex } from '../graph/model/graph-index.js';
import type { RecordPassProgress } from '../storage/records/latest-records.js';
import type { Storage } from '../storage/storage.js';
import { quoteIdent, quoteText } from './tables/column-model.js';
import { loadDuck, type DuckModule } from './duck-module.js';
import type { SchemaTable } from './tables/finish-tables.js';
import { mebibytes, PROCESS_ANSWER_BUDGET, type ByteBudget } from './answers/answer-budget.js';
import { DEFAULT_SQL_LIMITS, type SqlLimits } from './sql-limits.js';
import { BuiltTables, needsGraph } from './built-tables.js';
import { rowSizes } from './answers/cell-bytes.js';
import { converterFor, type CellConverter, type JsonCell } from './answers/result-values.js';
import { checkStatement, prepareChecked } from './sandbox.js';
import type { TableCache } from './cache/table-cache.js';
import { storageStateKey, type StorageStateKey } from './cache/table-cache-key.js';
import { invalid, SqlError } from './sql-error.js';
import type { CheckedStatement } from './statement-check.js';

// The limits live apart (sql-limits.ts): `serve` names their defaults in its help without loading this module.
export { DEFAULT_SQL_LIMITS, type SqlLimits } from './sql-limits.js';

/**
 * SQL over one storage: its tables built into a locked-down DuckDB (built-tables.ts) when a query
 * first needs them, rebuilt when the storage has changed since (each query runs against one built
 * state, which the storage's consistency gate kept still while it was read), every query bounded
 * by a timeout that interrupts it, a row limit (buffered answers) and a number running at once.
 */

/** Rows converted and handed over at once, in bytes (at least one row): bounds the memory of one step. */
const SLICE_BYTES = 4 * 1024 ** 2;

export interface SqlEngineOptions extends Partial<SqlLimits> {
  readonly storage: Storage;
  /** The graph index (`_objects.reachable`, the GigaMap tables): asked for when a statement first names `_objects`, and before a build only where the storage has GigaMaps; undefined: reachable is NULL. */
  readonly graph?: () => Promise<GraphIndex | undefined>;
  readonly onBuildProgress?: (progress: RecordPassProgress) => void;
  /** After the tables of a state are ready: built, or (`cached`) taken from the cache. */
  readonly onBuilt?: (figures: { objects: number; problems: number; buildMs: number; cached: boolean }) => void;
  readonly onProblem?: (message: string) => void;
  /** Our own exports only (no user statement runs there): leaves file access on for COPY. */
  readonly allowFiles?: boolean;
  /** Every value object's `_values` row made by the build (an engine that fills every table anyway: one pass fewer). */
  readonly everyValueFirst?: boolean;
  /** Bytes all answers of the process may hold at once (default: the process-wide budget). */
  readonly answerBudget?: ByteBudget;
  /**
   * Tables kept between runs (table-cache.ts): taken from there when the storage's state has an
   * entry, kept there after a build and after fills. Storages not kept in a directory are never cached.
   */
  readonly cache?: TableCache | undefined;
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
  /** The cache key of `built`'s state, when it may be kept. */
  private builtKey: StorageStateKey | undefined;
  /** Keeping a database in the cache, under way. */
  private keeping: Promise<void> = Promise.resolve();
  private readonly budget: ByteBudget;
  readonly limits: SqlLimits;

  constructor(private readonly options: SqlEngineOptions) {
    this.limits = {
      timeoutMs: options.timeoutMs ?? DEFAULT_SQL_LIMITS.timeoutMs,
      memoryLimitBytes: options.memoryLimitBytes ?? DEFAULT_SQL_LIMITS.memoryLimitBytes,
      maxConcurrent: options.maxConcurrent ?? DEFAULT_SQL_LIMITS.maxConcurrent,
      maxRowBytes: options.maxRowBytes ?? DEFAULT_SQL_LIMITS.maxRowBytes,
      maxAnswerBytes: options.maxAnswerBytes ?? DEFAULT_SQL_LIMITS.maxAnswerBytes,
    };
    this.budget = options.answerBudget ?? PROCESS_ANSWER_BUDGET;
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
    const columns = await this.run(sql, options.signal, this.limits.maxAnswerBytes, async (chunkRows) => {
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
    await this.run(sql, signal, undefined, onRows, onColumns);
  }

  /**
   * The statement's rows, converted a slice at a time: each slice's size is measured in DuckDB's
   * vectors first (cell-bytes.ts), a row over `maxRowBytes` or a buffered answer over
   * `maxAnswerBytes` stops the statement (too-large), and the bytes are drawn from the
   * process's answer budget (busy when spent): held until the session ends for a buffered
   * answer (`answerBytes` given), handed back once `onRows` has settled for a streamed one.
   */
  private async run(
    sql: string,
    signal: AbortSignal | undefined,
    answerBytes: number | undefined,
    onRows: (rows: JsonCell[][]) => Promise<boolean | void>,
    onColumns?: (columns: readonly SqlColumn[]) => Promise<void> | void,
  ): Promise<SqlColumn[]> {
    return this.session(sql, signal, async (duck, connection, stopping, checked, hold) => {
      const prepared = await prepareChecked(duck, connection, checked);
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
      let total = 0;
      for (;;) {
        if (stopping()) break;
        const chunk = await result.fetchChunk();
        if (chunk === null || chunk.rowCount === 0) break;
        const sizes = rowSizes(chunk);
        const vectors = Array.from({ length: chunk.columnCount }, (_, c) => chunk.getColumnVector(c));
        for (let from = 0; from < chunk.rowCount; ) {
          let bytes = 0;
          let to = from;
          // A slice of at most SLICE_BYTES (at least one row): what is converted and held at once.
          while (to < chunk.rowCount && (to === from || bytes + sizes[to]! <= SLICE_BYTES)) {
            const size = sizes[to]!;
            if (size > this.limits.maxRowBytes) {
              throw new SqlError('too-large', `row ${total + to - from + 1} of the answer takes ${mebibytes(size)}, over the limit of ${mebibytes(this.limits.maxRowBytes)} per row (--sql-max-row-bytes); select fewer or shorter columns (e.g. left(text, 1000))`);
            }
            bytes += size;
            to++;
          }
          if (answerBytes !== undefined) {
            answerBytes -= bytes;
            if (answerBytes < 0) {
              throw new SqlError('too-large', `the answer takes more than ${mebibytes(this.limits.maxAnswerBytes)} (--sql-max-answer-bytes); ask for fewer rows or columns, or stream it (Accept: text/csv or application/x-ndjson)`);
            }
          }
          if (!hold(bytes)) {
            throw new SqlError('busy', `the SQL answers being sent hold ${mebibytes(this.budget.inUse)} of the server's ${mebibytes(this.budget.limit)} (--sql-answer-budget); ask again`);
          }
          const rows: JsonCell[][] = [];
          for (let r = from; r < to; r++) {
            const row: JsonCell[] = new Array(vectors.length);
            for (let c = 0; c < vectors.length; c++) {
              const value = vectors[c]!.getItem(r);
              row[c] = value === null ? null : converters[c]!(value);
            }
            rows.push(row);
          }
          total += to - from;
          from = to;
          const more = await onRows(rows);
          if (answerBytes === undefined) hold(-bytes);
          if (more === false) return columns;
          // Give other requests (health checks, other statements) their turn between slices.
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
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
    return this.session(sql, signal, async (duck, connection, _stopping, checked, _hold, built) => {
      if (checked.kind !== 'select') throw new SqlError('refused', 'a Parquet answer is made of a query, not of EXPLAIN');
      (await prepareChecked(duck, connection, checked)).destroySync();
      const select = await connection.runAndReadAll('SELECT json_deserialize_sql(json_serialize_sql($1::VARCHAR))', [checked.text]);
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

  /**
   * One statement's turn: a slot among `maxConcurrent`; a connection of the current tables; the
   * statement checked (statement-check.ts) before anything is filled or run for it; the tables it
   * reads filled; then a read-only transaction, the timeout and the client's cancel. `hold`
   * draws bytes from the process's answer budget (negative: gives them back); whatever is still
   * held is given back when the turn ends.
   */
  private async session<T>(
    sql: string,
    signal: AbortSignal | undefined,
    work: (duck: DuckModule, connection: DuckDBConnection, stopping: () => boolean, checked: CheckedStatement, hold: (bytes: number) => boolean, built: BuiltTables) => Promise<T>,
  ): Promise<T> {
    if (this.running >= this.limits.maxConcurrent) throw new SqlError('busy', `${this.running} statements are running, the limit is ${this.limits.maxConcurrent}; ask again`);
    if (signal?.aborted === true) throw new SqlError('cancelled', 'cancelled');
    this.running++;
    let built: BuiltTables | undefined;
    let connection: DuckDBConnection | undefined;
    let stop: 'timeout' | 'cancelled' | undefined;
    let timer: NodeJS.Timeout | undefined;
    let held = 0;
    const hold = (bytes: number): boolean => {
      if (bytes < 0) {
        this.budget.give(-bytes);
        held += bytes;
        return true;
      }
      if (!this.budget.take(bytes)) return false;
      held += bytes;
      return true;
    };
    // A cancel is heard from the start: while the tables are built or filled it ends the wait
    // (the fill goes on for later statements), once the statement runs it interrupts DuckDB.
    let cancelled: () => void = () => undefined;
    const whenCancelled = new Promise<never>((_resolve, reject) => (cancelled = () => reject(new SqlError('cancelled', 'the statement was cancelled'))));
    whenCancelled.catch(() => undefined);
    const interrupt = (why: 'timeout' | 'cancelled'): void => {
      stop ??= why;
      if (why === 'cancelled') cancelled();
      connection?.interrupt();
    };
    const onAbort = (): void => interrupt('cancelled');
    signal?.addEventListener('abort', onAbort, { once: true });
    const unlessCancelled = <R>(step: Promise<R>): Promise<R> => Promise.race([step, whenCancelled]);
    let inTransaction = false;
    try {
      const duck = await loadDuck();
      built = await unlessCancelled(this.current());
      built.active++;
      connection = await built.sandbox.instance.connect();
      let checked = await checkStatement(connection, sql, built.sandbox.allowed);
      // A statement that reads `_objects`, `_elements`, `_references` or type tables not filled
      // yet waits for them to be filled from the same state as the other tables; a storage
      // changed meanwhile means a new build.
      for (let attempt = 0; !(await unlessCancelled(built.ready(duck, checked.tables, checked.columns))); attempt++) {
        if (attempt === 2) throw new Error('the storage keeps changing while its tables are built; ask again');
        connection.closeSync();
        connection = undefined;
        built.active--;
        this.release(built);
        built = await unlessCancelled(this.current());
        built.active++;
        connection = await built.sandbox.instance.connect();
        checked = await checkStatement(connection, sql, built.sandbox.allowed);
      }
      if (stop !== undefined) throw stopped(stop, this.limits.timeoutMs);
      // Whatever the checks let through cannot write: DuckDB refuses every change in a
      // read-only transaction (the layer that holds if another one is wrong).
      await connection.run('BEGIN TRANSACTION READ ONLY');
      inTransaction = true;
      if (this.limits.timeoutMs > 0) timer = setTimeout(() => interrupt('timeout'), this.limits.timeoutMs);
      const answer = await work(duck, connection, () => stop !== undefined, checked, hold, built);
      if (stop !== undefined) throw stopped(stop, this.limits.timeoutMs);
      return answer;
    } catch (error) {
      if (stop !== undefined) throw stopped(stop, this.limits.timeoutMs);
      const known = error instanceof SqlError ? error : error instanceof Error && /^[A-Z][A-Za-z ]* Error: /.test(error.message) ? invalid(error, sql) : undefined;
      if (known === undefined) throw error;
      // DuckDB's messages may name a file of the engine's private directory: never its path.
      const directory = built?.sandbox.tempDirectory;
      if (directory === undefined || !known.message.includes(directory)) throw known;
      throw new SqlError(known.kind, known.message.replaceAll(directory, '<sql-tables>'), known.position);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      // Ended here, not when the connection is collected: an open transaction (a result not read
      // to its end keeps one) would hold off the checkpoints of later fills.
      if (inTransaction) await connection?.run('ROLLBACK').catch(() => undefined);
      connection?.closeSync();
      if (held > 0) this.budget.give(held);
      this.running--;
      if (built !== undefined) {
        built.active--;
        // Nothing runs now, so the checkpoint before the copy is not held off by a statement.
        if (this.running === 0 && built.unkept) this.keep(built);
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
    const cache = this.options.cache;
    const started = performance.now();
    const options = { memoryLimitBytes: this.limits.memoryLimitBytes, allowFiles: this.options.allowFiles === true, everyValue: this.options.everyValueFirst === true, onProgress: this.options.onBuildProgress, onProblem: this.options.onProblem };
    if (cache !== undefined) {
      // The key and the copy in one gate: the state the key names is the state the tables serve.
      const hit = await storage.consistent(async () => {
        const key = await this.keyOf(duck);
        if (key === undefined) return undefined;
        const graph = async (): Promise<GraphIndex | undefined> => this.options.graph?.();
        const built = await BuiltTables.fromCache(duck, storage, graph, options, (file) => cache.take(key.key, file));
        return built === undefined ? undefined : { built, key };
      });
      if (hit !== undefined) {
        this.options.onBuilt?.({ objects: hit.built.objectCount, problems: hit.built.problemCount, buildMs: performance.now() - started, cached: true });
        return this.install(hit.built, hit.key);
      }
    }
    const graphOf = async (): Promise<GraphIndex | undefined> => this.options.graph?.();
    // Asked for before the storage's gate is entered (its build reads through the gate too).
    const graph = needsGraph(storage) ? await graphOf() : undefined;
    const fresh = await storage.consistent(async () => {
      const before = cache === undefined ? undefined : await this.keyOf(duck);
      const result = await BuiltTables.build(duck, storage, graph, graphOf, options);
      // Files changed while they were read (a same-size rewrite the storage's state does not show): not kept.
      const after = before === undefined ? undefined : await this.keyOf(duck);
      return { ...result, key: before !== undefined && after?.key === before.key ? before : undefined };
    });
    this.options.onBuilt?.({ objects: fresh.objects, problems: fresh.problems, buildMs: performance.now() - started, cached: false });
    // Kept once no statement runs (the end of a session, `settle`): with what the first statements filled.
    return this.install(fresh.built, fresh.key);
  }

  private install(fresh: BuiltTables, key: StorageStateKey | undefined): BuiltTables {
    const old = this.built;
    this.built = fresh;
    this.builtKey = key;
    if (old !== undefined) {
      old.retired = true;
      this.release(old);
    }
    if (this.closed) {
      fresh.retired = true;
      this.release(fresh);
    }
    return fresh;
  }

  /** The cache key of the storage's state now; undefined (the reason told) when it has none. */
  private async keyOf(duck: DuckModule): Promise<StorageStateKey | undefined> {
    try {
      return await storageStateKey(this.options.storage, duck.version());
    } catch (error) {
      this.options.onProblem?.(`the SQL tables are not cached: ${(error as Error).message}`);
      return undefined;
    }
  }

  /**
   * Keeps the current tables in the cache in the background (after the build, after fills): one
   * copy at a time, never failing a statement (a full disk or an unwritable cache is told to
   * `onProblem` and the tables are used from their private directory as always).
   */
  private keep(built: BuiltTables): void {
    const cache = this.options.cache;
    const key = this.builtKey;
    if (cache === undefined || key === undefined || built !== this.built || !built.unkept) return;
    built.active++;
    this.keeping = this.keeping
      .then(() => built.keepIn(cache, key.key, key.directory))
      .then(
        () => undefined,
        (error: unknown) => this.options.onProblem?.(`the SQL tables could not be kept in the cache ${cache.directory}: ${(error as Error).message}`),
      )
      .finally(() => {
        built.active--;
        this.release(built);
      });
  }

  /**
   * Waits for the cache to hold the tables as filled so far (a command that ends after its
   * statements calls it before `close`).
   */
  async settle(): Promise<void> {
    if (this.built !== undefined) this.keep(this.built);
    await this.keeping;
  }

  /**
   * Rows per table as DuckDB's catalog estimates them, read by our own code (no user statement
   * may call `duckdb_tables()`): which tables are filled so far. Diagnostics and tests.
   */
  async tableRowEstimates(): Promise<Map<string, number>> {
    const built = await this.current();
    built.active++;
    const connection = await built.sandbox.instance.connect();
    try {
      const reader = await connection.runAndReadAll(`SELECT table_name, estimated_size FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main'`);
      return new Map(reader.getRows().map((r) => [String(r[0]), Number(r[1])]));
    } finally {
      connection.closeSync();
      built.active--;
      this.release(built);
    }
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
      if (!(await built.ready(await loadDuck(), new Set([table.toLowerCase()])))) throw new Error('the storage changed while it was exported; export again');
      await connection.run(`COPY (SELECT * FROM ${quoteIdent(table)}) TO ${quoteText(file)} (FORMAT parquet, COMPRESSION zstd)`);
    } finally {
      connection.closeSync();
      built.active--;
      this.release(built);
    }
  }

  /**
   * Writes `_elements` and `_references` (`files`, by lower-case table name) as Parquet (zstd)
   * with DuckDB's writer, without filling them for statements (built-tables.ts
   * `copyLinkTables`): our own exports, on an engine made with `allowFiles`. Rows per table.
   */
  async copyLinkTablesToParquet(files: ReadonlyMap<string, string>): Promise<Map<string, number>> {
    if (this.options.allowFiles !== true) throw new Error('this SQL engine has no file access');
    const built = await this.current();
    built.active++;
    try {
      const rows = await built.copyLinkTables(await loadDuck(), files);
      if (rows === undefined) throw new Error('the storage changed while it was exported; export again');
      return rows;
    } finally {
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
