import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, isAbsolute, resolve, sep } from 'node:path';
import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement } from '@duckdb/node-api';
import type { DuckModule } from './duck-module.js';

/**
 * The locked-down DuckDB a storage's tables live in: in memory, with a memory limit, spilling
 * to a temporary directory of its own (never inside the storage directory), no extensions. After
 * the tables are built, `enable_external_access=false` and `lock_configuration=true` make every
 * later statement unable to touch a file or the network or to change a setting; on top of that
 * only one read-only statement per request is run (checked by DuckDB's own parser).
 */

export class SqlError extends Error {
  constructor(
    /** refused: not allowed here; invalid: DuckDB's parser or binder said no; timeout; busy. */
    readonly kind: 'refused' | 'invalid' | 'timeout' | 'busy' | 'cancelled',
    message: string,
    /** 0-based character offset into the statement, where DuckDB located the error. */
    readonly position?: number,
  ) {
    super(message);
    this.name = 'SqlError';
  }
}

export interface SandboxOptions {
  readonly memoryLimitBytes: number;
  /** Never inside this directory (the storage's). */
  readonly storageDirectory?: string;
  /** Leave file access on (exports by our own code: no user SQL runs there). */
  readonly allowFiles?: boolean;
  readonly threads?: number;
}

export interface Sandbox {
  readonly instance: DuckDBInstance;
  readonly tempDirectory: string;
  /**
   * The one directory DuckDB may still write after `lock` (`allowed_directories`): Parquet
   * answers our own code COPYs there; nothing else of the temporary directory is reachable.
   */
  readonly exportDirectory: string;
  /** Locks it down: no file or network access, no configuration changes from now on. */
  lock(connection: DuckDBConnection): Promise<void>;
  close(): void;
}

function inside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

export async function openSandbox(duck: DuckModule, options: SandboxOptions): Promise<Sandbox> {
  let base = realpathSync(tmpdir());
  if (options.storageDirectory !== undefined) {
    let storage = resolve(options.storageDirectory);
    try {
      storage = realpathSync(storage);
    } catch {
      // a PostgreSQL-kept storage or a directory gone: nothing to stay out of
    }
    if (inside(base, storage)) throw new Error(`the temporary directory ${base} is inside the storage directory ${storage}; set TMPDIR elsewhere`);
  }
  const tempDirectory = mkdtempSync(join(base, 'storage-inspector-sql-'));
  const exportDirectory = join(tempDirectory, 'answers');
  mkdirSync(exportDirectory, { mode: 0o700 });
  const config: Record<string, string> = {
    memory_limit: `${Math.max(16, Math.floor(options.memoryLimitBytes / (1024 * 1024)))}MB`,
    temp_directory: tempDirectory,
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    allow_community_extensions: 'false',
    allow_unsigned_extensions: 'false',
    // DuckDB's allocator (jemalloc) hands freed memory back to the system from threads of its
    // own instead of keeping it until later allocations come by: 10M objects, every table built,
    // RSS two seconds after the build 1,027 -> 829 MB, ten seconds after 967 -> 769 MB.
    allocator_background_threads: 'true',
  };
  if (options.threads !== undefined) config.threads = String(options.threads);
  let instance: DuckDBInstance;
  try {
    // A database file of its own in the private directory, not `:memory:`: DuckDB compresses
    // the tables it writes there and keeps only what the memory limit allows in memory.
    instance = await duck.DuckDBInstance.create(join(tempDirectory, 'tables.duckdb'), config);
  } catch (error) {
    rmSync(tempDirectory, { recursive: true, force: true });
    throw error;
  }
  return {
    instance,
    tempDirectory,
    exportDirectory,
    async lock(connection) {
      if (options.allowFiles === true) return;
      await connection.run(`SET allowed_directories = ['${(exportDirectory + sep).replaceAll("'", "''")}']`);
      await connection.run('SET enable_external_access = false');
      await connection.run('SET lock_configuration = true');
    },
    close() {
      instance.closeSync();
      rmSync(tempDirectory, { recursive: true, force: true });
    },
  };
}

/** SELECT (DESCRIBE, SHOW, SUMMARIZE, PRAGMA queries parse as it) and EXPLAIN. */
const READ_ONLY_TYPES = new Set(['SELECT', 'EXPLAIN']);

/** The one read-only statement of `sql`, prepared; anything else refused before it runs. */
export async function prepareReadOnly(duck: DuckModule, connection: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement> {
  let extracted;
  try {
    extracted = await connection.extractStatements(sql);
  } catch (error) {
    throw invalid(error, sql);
  }
  if (extracted.count === 0) throw new SqlError('invalid', 'no statement given');
  if (extracted.count > 1) throw new SqlError('refused', `one statement per request, ${extracted.count} given`);
  let prepared: DuckDBPreparedStatement;
  try {
    prepared = await extracted.prepare(0);
  } catch (error) {
    throw invalid(error, sql);
  }
  const type = duck.StatementType[prepared.statementType] ?? String(prepared.statementType);
  if (!READ_ONLY_TYPES.has(type)) {
    prepared.destroySync();
    throw new SqlError('refused', `only read-only statements are run (SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN); this is ${type}`);
  }
  // EXPLAIN ANALYZE runs the statement it explains: that one must be read-only as well.
  if (type === 'EXPLAIN') {
    const analyzed = /^\s*EXPLAIN\s+ANALY[SZ]E\b([\s\S]*)$/i.exec(withoutComments(sql));
    if (analyzed !== undefined && analyzed !== null) {
      let inner: DuckDBPreparedStatement | undefined;
      try {
        inner = await prepareReadOnly(duck, connection, analyzed[1]!);
      } catch (error) {
        prepared.destroySync();
        throw error;
      } finally {
        inner?.destroySync();
      }
    }
  }
  if (prepared.parameterCount > 0) {
    prepared.destroySync();
    throw new SqlError('invalid', 'the statement has parameters ($1, ?); write the values into it');
  }
  return prepared;
}

/** The statement with its comments blanked (so that a comment cannot hide a keyword). */
function withoutComments(sql: string): string {
  let out = '';
  for (let i = 0; i < sql.length; ) {
    const ch = sql[i]!;
    if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
      out += ' ';
    } else if (ch === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
      out += ' ';
    } else if (ch === "'" || ch === '"') {
      const end = sql.indexOf(ch, i + 1);
      const stop = end < 0 ? sql.length : end + 1;
      out += sql.slice(i, stop);
      i = stop;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

/** DuckDB's message (its `LINE n:` excerpt dropped), with the 0-based character position the excerpt's caret points at. */
export function invalid(error: unknown, sql?: string): SqlError {
  const message = error instanceof Error ? error.message : String(error);
  const short = message.split('\n\nLINE ')[0]!.trim();
  if (/Interrupt/i.test(message)) return new SqlError('timeout', short);
  const position = sql === undefined ? undefined : caretPosition(message, sql);
  return new SqlError(/Permission Error|disabled/i.test(message) ? 'refused' : 'invalid', short, position);
}

/** Where `LINE n: <excerpt>` and the caret under it point in the statement, when that can be told. */
function caretPosition(message: string, sql: string): number | undefined {
  const match = /\n\nLINE (\d+): (.*)\n( *)\^/.exec(message);
  if (match === null) return undefined;
  const line = Number(match[1]);
  const prefix = `LINE ${match[1]}: `.length;
  let excerpt = match[2]!;
  let column = match[3]!.length - prefix;
  if (excerpt.startsWith('...')) {
    excerpt = excerpt.slice(3);
    column -= 3;
  }
  excerpt = excerpt.replace(/\.\.\.$/, '');
  const lines = sql.split('\n');
  if (line < 1 || line > lines.length || column < 0) return undefined;
  const text = lines[line - 1]!;
  const at = text.indexOf(excerpt.slice(0, Math.max(1, Math.min(excerpt.length, 40))));
  if (at < 0) return undefined;
  const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  return Math.min(sql.length, start + at + column);
}
