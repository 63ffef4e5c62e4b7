import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBResult } from '@duckdb/node-api';
import { quoteText } from './tables/column-model.js';
import { loadDuck, type DuckModule } from './duck-module.js';
import type { SchemaTable } from './tables/finish-tables.js';
import { PROCESS_ANSWER_BUDGET, type ByteBudget } from './answers/answer-budget.js';
import { DEFAULT_SQL_LIMITS, type SqlLimits } from './sql-limits.js';
import type { BuiltTables, LinkFill, TypeCopyEvents } from './built-tables.js';
import type { JsonCell } from './answers/result-values.js';
import { checkStatement, prepareChecked } from './sandbox/sandbox.js';
import { invalid, SqlError } from './sandbox/sql-error.js';
import type { CheckedStatement } from './sandbox/statement-check.js';
import { readAnswerRows, type SqlColumn } from './answer-rows.js';
import type { StateTablesOptions } from './current-tables.js';
import { EngineBuilds } from './engine-builds.js';
import { copyLinkTablesToParquet, copyObjectsToParquet, copyToParquet, copyTypeTablesToParquet, fillAll, objectCount, tableRowEstimates } from './engine-exports.js';

// The limits live apart (sql-limits.ts): `serve` names their defaults in its help without loading this module.
export { DEFAULT_SQL_LIMITS, type SqlLimits } from './sql-limits.js';
export type { SqlColumn } from './answer-rows.js';

/**
 * SQL over one storage: its tables built into a locked-down DuckDB (built-tables.ts; taken from
 * the cache or built by current-tables.ts) when a query first needs them, rebuilt when the storage has changed since (each query runs against one built
 * state, which the storage's consistency gate kept still while it was read), every query bounded
 * by a timeout that interrupts it, a row limit (buffered answers) and a number running at once.
 * This file is a statement's turn; the builds over the storage's life are engine-builds.ts's, and
 * what our own code asks besides statements (exports, every table filled) engine-exports.ts's.
 */

/** How often a cancel or timeout is said to DuckDB again until the statement's turn ends (see `session`). */
const INTERRUPT_AGAIN_MS = 50;

export interface SqlEngineOptions extends Partial<SqlLimits>, StateTablesOptions {
  /** Bytes all answers of the process may hold at once (default: the process-wide budget). */
  readonly answerBudget?: ByteBudget;
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
  private running = 0;
  /** The tables' builds: made, rebuilt, retired, kept in the cache (engine-builds.ts). */
  private readonly builds: EngineBuilds;
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
    this.builds = new EngineBuilds(options, this.limits.memoryLimitBytes);
  }

  /** Tables and their columns (builds them if needed). */
  async schema(): Promise<{ tables: readonly SchemaTable[] }> {
    const built = await this.builds.current();
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
   * The statement's rows, converted a slice at a time within the row, answer and budget bounds
   * (answer-rows.ts): `answerBytes` given, a buffered answer (its bytes held until the session
   * ends), else a streamed one.
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
      return readAnswerRows(result, { limits: this.limits, budget: this.budget, answerBytes, stopping, hold }, onRows, onColumns);
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
    // DuckDB forgets an interrupt that lands while none of the connection's queries runs: each
    // query (the prepare, the execution) begins by clearing it. A cancel or timeout heard between
    // two of them, or while the next waits for a thread, was lost and the statement ran on (with
    // no timeout, for ever). So it is said again until the session ends.
    let again: NodeJS.Timeout | undefined;
    const interrupt = (why: 'timeout' | 'cancelled'): void => {
      stop ??= why;
      if (why === 'cancelled') cancelled();
      connection?.interrupt();
      again ??= setInterval(() => connection?.interrupt(), INTERRUPT_AGAIN_MS);
    };
    const onAbort = (): void => interrupt('cancelled');
    signal?.addEventListener('abort', onAbort, { once: true });
    const unlessCancelled = <R>(step: Promise<R>): Promise<R> => Promise.race([step, whenCancelled]);
    let inTransaction = false;
    try {
      const duck = await loadDuck();
      built = await unlessCancelled(this.builds.current(sql));
      built.active++;
      connection = await built.sandbox.instance.connect();
      let checked = await checkStatement(connection, sql, built.sandbox.allowed);
      // A statement that reads `_objects`, `_elements`, `_references` or type tables not filled
      // yet waits for them to be filled from the same state as the other tables; a storage
      // changed meanwhile means a new build.
      for (let attempt = 0; !(await unlessCancelled(built.ready(duck, checked.tables, checked.columns))); attempt++) {
        if (attempt === 2) throw built.failure ?? new Error('the storage keeps changing while its tables are built; ask again');
        connection.closeSync();
        connection = undefined;
        built.active--;
        this.builds.release(built);
        built = await unlessCancelled(this.builds.current(sql));
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
      // Before the rollback, which an interrupt would stop.
      clearInterval(again);
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
        if (this.running === 0 && built.unkept) this.builds.keep(built);
        this.builds.release(built);
      }
    }
  }

  /**
   * Waits for the cache to hold the tables as filled so far (a command that ends after its
   * statements calls it before `close`).
   */
  async settle(): Promise<void> {
    await this.builds.settle();
  }

  /** Rows per table as DuckDB's catalog estimates them (engine-exports.ts). Diagnostics and tests. */
  async tableRowEstimates(): Promise<Map<string, number>> {
    return tableRowEstimates(this.builds);
  }

  /** The rows `_objects` holds, counted by the build: `_objects` not filled for it (engine-exports.ts). */
  async objectCount(): Promise<number> {
    return objectCount(this.builds);
  }

  /** Every table filled (our own exports; benchmarks); `_objects` too unless `withObjects` is false. */
  async fillAll(withObjects = true): Promise<void> {
    await fillAll(this.builds, withObjects);
  }

  /**
   * Writes `_objects` as Parquet (zstd) without filling it for statements (engine-exports.ts):
   * our own exports that keep no tables, on an engine made with `allowFiles`. Rows written.
   */
  async copyObjectsToParquet(file: string): Promise<number> {
    return copyObjectsToParquet(this.builds, this.options.allowFiles === true, file);
  }

  /**
   * Writes entity types' tables (`files`, by full type name) as Parquet (zstd) straight from the
   * type fill's staged rows, without filling them for statements (engine-exports.ts): our own
   * exports that keep no tables; `told` as built-tables.ts `copyTypeTables` says. Rows per table written.
   */
  async copyTypeTablesToParquet(files: ReadonlyMap<string, string>, told?: TypeCopyEvents): Promise<Map<string, number>> {
    return copyTypeTablesToParquet(this.builds, this.options.allowFiles === true, files, told);
  }

  /**
   * Writes a table as Parquet (zstd) with DuckDB's writer: for exports by our own code, on an
   * engine made with `allowFiles` (a sandboxed engine refuses; its users' SQL never gets here).
   * Rows written.
   */
  async copyToParquet(table: string, file: string): Promise<number> {
    return copyToParquet(this.builds, this.options.allowFiles === true, table, file);
  }

  /**
   * Writes `_elements` and `_references` (`files`, by lower-case table name) as Parquet (zstd)
   * with DuckDB's writer (built-tables.ts `copyLinkTables`): our own exports, on an engine made
   * with `allowFiles`. Without `fill` the tables stay unfilled for statements; with it they are
   * filled first (kept in the cache like every table filled). Rows per table.
   */
  async copyLinkTablesToParquet(files: ReadonlyMap<string, string>, fill?: LinkFill): Promise<Map<string, number>> {
    return copyLinkTablesToParquet(this.builds, this.options.allowFiles === true, files, fill);
  }

  /**
   * Ends the engine. The tables' private directory is removed once nothing uses them: at once, or
   * when the statements under way and the build's last step (its big numbers moved into `_values`)
   * are done; the promise resolves then. A process that ends by a signal's default action before
   * (a test runner's worker, stopped with SIGTERM once its file has run) skips the 'exit' event
   * that would remove it (sandbox.ts): the directory and its database file stayed.
   */
  async close(): Promise<void> {
    await this.builds.close();
  }
}

function stopped(why: 'timeout' | 'cancelled', timeoutMs: number): SqlError {
  return why === 'timeout' ? new SqlError('timeout', `the statement was interrupted after the SQL timeout of ${timeoutMs} ms`) : new SqlError('cancelled', 'the statement was cancelled');
}
