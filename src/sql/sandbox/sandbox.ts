import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { join, relative, isAbsolute, resolve, sep } from 'node:path';
import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement } from '@duckdb/node-api';
import { invalid, SqlError } from './sql-error.js';
import { checkStatement, type AllowedTables, type CheckedStatement } from './statement-check.js';
import { TemporaryDirectoryError, temporaryDirectory } from './temporary-directory.js';
import { removeAtExit } from './remove-while-written.js';

export { invalid, SqlError } from './sql-error.js';

/**
 * The DuckDB module as duck-module.ts loads it, named from the package itself (a type, nothing is
 * loaded): this room imports nothing from src/sql above it, which imports the room.
 */
type DuckModule = typeof import('@duckdb/node-api');

/**
 * The locked-down DuckDB a storage's tables live in: a database file in a temporary directory of
 * its own (never inside the storage directory), a memory limit, no extensions. After the tables
 * are built, `enable_external_access=false` and `lock_configuration=true` make every later
 * statement unable to touch a file or the network or to change a setting. A user's statement
 * runs only once statement-check.ts has allowed it from DuckDB's parse, and then inside a
 * read-only transaction (`prepareUserStatement`, sql-engine.ts): layers that each refuse alone.
 */

export interface SandboxOptions {
  readonly memoryLimitBytes: number;
  /** Never inside this directory (the storage's). */
  readonly storageDirectory?: string;
  /** Leave file access on (exports by our own code: no user SQL runs there). */
  readonly allowFiles?: boolean;
  readonly threads?: number;
  /**
   * The database is never kept (a statement's engine without a cache, `sql --no-cache`): its file
   * goes with the private directory at close, so DuckDB writes its blocks uncompressed
   * (`force_compression`, which DuckDB lists among its debug settings). Why: compressing a fill's
   * rows as they are written (1.79M of a type at 10M) cost DuckDB's threads more than the bytes
   * saved on a file no one copies. The memory limit bounds memory as before (blocks are evicted
   * to the file either way); the file is larger (at 10M, books per tag: about 60 MB against 10).
   * A database that may be kept (copied into the cache) is compressed as always.
   */
  readonly neverKept?: boolean | undefined;
  /**
   * Puts a database into place before DuckDB opens it (`file`, inside the private directory):
   * a copy of the cached tables (table-cache.ts); false when it did not, and DuckDB starts an
   * empty one. Opened and locked exactly as a new one.
   */
  readonly seed?: (file: string) => Promise<boolean>;
}

export interface Sandbox {
  readonly instance: DuckDBInstance;
  readonly tempDirectory: string;
  /**
   * The directory we let DuckDB write after `lock` (`allowed_directories`): Parquet answers our
   * own code COPYs there. DuckDB adds its own `temp_directory` (the spill files, inside
   * `tempDirectory`) to the allowed ones by itself, so the lock alone would still let a `COPY`
   * write there; the statement check (one SELECT) and the function allow-list (no file
   * functions) each refuse that on their own.
   */
  readonly exportDirectory: string;
  /**
   * Locks it down: no file or network access, no configuration changes from now on. `readable`:
   * files inside `tempDirectory` our own views read (`allowed_paths`: the link tables a cache
   * entry kept as Parquet files, kept-link-files.ts; DuckDB allows paths not there yet, so they
   * are copied and their views made after the lock); a user's statement cannot name them (no
   * file function is on the allow-list), only read the views.
   */
  lock(connection: DuckDBConnection, readable?: readonly string[]): Promise<void>;
  /** The tables a user's statement may read, known once `lock` has run. */
  readonly allowed: AllowedTables;
  /** The database file (inside `tempDirectory`). */
  readonly databaseFile: string;
  /** Whether `seed` put a database into place. */
  readonly seeded: boolean;
  /** File access left on (`SandboxOptions.allowFiles`): our own code may stage Parquet in `tempDirectory` for DuckDB to read. */
  readonly allowFiles: boolean;
  /**
   * Ends DuckDB and removes the private directory: at once when no connection is open or being
   * made, else (once the connections being made are there) the statements still running are
   * interrupted and the directory is removed once their owners have closed the last connection.
   * Before that, a statement still running spilled into the directory after it was removed, and
   * DuckDB made it again: a process killed meanwhile (a test runner's worker, stopped with
   * SIGTERM) left it behind. `instance.connect()` is refused from the call on. Resolves once the
   * directory is removed.
   */
  close(): Promise<void>;
}

function inside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

export async function openSandbox(duck: DuckModule, options: SandboxOptions): Promise<Sandbox> {
  // Checked first: a TMPDIR naming no directory is a usage error naming it, not a raw ENOENT.
  let base = realpathSync(temporaryDirectory());
  if (options.storageDirectory !== undefined) {
    let storage = resolve(options.storageDirectory);
    try {
      storage = realpathSync(storage);
    } catch {
      // a PostgreSQL-kept storage or a directory gone: nothing to stay out of
    }
    if (inside(base, storage)) throw new TemporaryDirectoryError(`the temporary directory ${base} is inside the storage directory ${storage}; set TMPDIR elsewhere`);
  }
  const tempDirectory = mkdtempSync(join(base, 'storage-inspector-sql-'));
  removedAtExit(tempDirectory, true);
  const exportDirectory = join(tempDirectory, 'answers');
  mkdirSync(exportDirectory, { mode: 0o700 });
  const config: Record<string, string> = {
    memory_limit: `${Math.max(16, Math.floor(options.memoryLimitBytes / (1024 * 1024)))}MB`,
    // A directory inside the private one, which DuckDB makes (one level, never its parents) when
    // it first spills: a first spill after the private directory was removed at exit fails
    // instead of making that directory again, as a spill into the private directory itself did
    // (an empty directory left by a sql interrupted while it spilled).
    temp_directory: join(tempDirectory, SPILL_DIRECTORY),
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
  if (options.neverKept === true) config.force_compression = 'uncompressed';
  let instance: DuckDBInstance;
  const databaseFile = join(tempDirectory, 'tables.duckdb');
  let seeded = false;
  try {
    seeded = options.seed === undefined ? false : await options.seed(databaseFile);
    // A database file of its own in the private directory, not `:memory:`: DuckDB compresses
    // the tables it writes there and keeps only what the memory limit allows in memory.
    instance = await duck.DuckDBInstance.create(databaseFile, config);
  } catch (error) {
    rmSync(tempDirectory, { recursive: true, force: true });
    removedAtExit(tempDirectory, false);
    throw error;
  }
  const connections = trackConnections(instance);
  let removed: Promise<void> | undefined;
  let allowed: AllowedTables = { own: new Set(), reserved: new Set() };
  return {
    instance,
    tempDirectory,
    exportDirectory,
    databaseFile,
    seeded,
    allowFiles: options.allowFiles === true,
    get allowed() {
      return allowed;
    },
    async lock(connection, readable = []) {
      allowed = await tablesOf(connection);
      if (options.allowFiles === true) return;
      const text = (path: string): string => `'${path.replaceAll("'", "''")}'`;
      await connection.run(`SET allowed_directories = [${text(exportDirectory + sep)}]`);
      const files = readable.map((path) => resolve(path));
      const outside = files.find((path) => !inside(path, tempDirectory) || path === tempDirectory);
      if (outside !== undefined) throw new Error(`a file the tables read must be inside their private directory: ${outside}`);
      if (files.length > 0) await connection.run(`SET allowed_paths = [${files.map(text).join(', ')}]`);
      await connection.run('SET enable_external_access = false');
      await connection.run('SET lock_configuration = true');
    },
    close() {
      if (removed !== undefined) return removed;
      const remove = (): void => {
        // The last connection closed, DuckDB has ended: nothing writes into the directory now.
        rmSync(tempDirectory, { recursive: true, force: true });
        removedAtExit(tempDirectory, false);
      };
      const end = (): Promise<void> => {
        instance.closeSync();
        if (connections.open.size === 0) {
          // Removed before `close` returns, as callers that do not wait for it expect.
          remove();
          return Promise.resolve();
        }
        // Interrupted, not closed here: the owner of a connection closes it once its statement
        // has ended (closing it under a running statement is not safe).
        for (const connection of connections.open) connection.interrupt();
        return connections.allClosed().then(remove);
      };
      // No connection from now on. One being made now (a fill a cancelled statement started)
      // is waited for and followed as the others: DuckDB closed under a connect under way
      // crashed the process at times (a segmentation fault), else handed out a connection no
      // one followed, on a closed DuckDB whose directory was removed under it.
      connections.refuse();
      removed = connections.connecting === 0 ? end() : connections.connected().then(end);
      return removed;
    },
  };
}

/**
 * The private directories of the sandboxes still open, removed when the process ends through
 * `process.exit` (a command interrupted by SIGINT or SIGTERM) without their `close`: the database
 * file holds every table built (hundreds of MB at 10M objects). One listener for them all.
 */
const OPEN_DIRECTORIES = new Set<string>();

function removeOpenDirectories(): void {
  // DuckDB's threads may still be writing: removing a file they hold open frees its room at exit.
  for (const directory of OPEN_DIRECTORIES) removeAtExit(directory);
}

/** DuckDB's spill files (`temp_directory`), inside the private directory. */
const SPILL_DIRECTORY = 'spill';

function removedAtExit(directory: string, open: boolean): void {
  if (open) {
    if (OPEN_DIRECTORIES.size === 0) process.on('exit', removeOpenDirectories);
    OPEN_DIRECTORIES.add(directory);
  } else if (OPEN_DIRECTORIES.delete(directory) && OPEN_DIRECTORIES.size === 0) process.off('exit', removeOpenDirectories);
}


/**
 * The connections of `instance` open now, and how many are being made. Every user of a sandbox
 * connects through `instance.connect()` and closes with `closeSync()`, so both are followed on the
 * instance and on each connection it hands out. Once `refuse` is called, `connect` rejects as
 * DuckDB does once closed. `connected` resolves once none is being made, `allClosed` once none
 * is open (with none being made).
 */
function trackConnections(instance: DuckDBInstance): {
  readonly open: ReadonlySet<DuckDBConnection>;
  readonly connecting: number;
  refuse(): void;
  connected(): Promise<void>;
  allClosed(): Promise<void>;
} {
  const open = new Set<DuckDBConnection>();
  let connecting = 0;
  let refused = false;
  const waiting: { readonly done: () => boolean; readonly resolve: () => void }[] = [];
  const tell = (): void => {
    for (const wait of [...waiting]) {
      if (!wait.done()) continue;
      waiting.splice(waiting.indexOf(wait), 1);
      wait.resolve();
    }
  };
  const until = (done: () => boolean): Promise<void> => (done() ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ done, resolve })));
  const connect = instance.connect.bind(instance);
  instance.connect = async () => {
    if (refused) throw new Error('Failed to connect: instance closed');
    connecting++;
    let connection: DuckDBConnection;
    try {
      connection = await connect();
    } catch (error) {
      connecting--;
      tell();
      throw error;
    }
    // Open before it stops being made: never neither while `close` waits.
    open.add(connection);
    connecting--;
    const disconnect = connection.disconnectSync.bind(connection);
    // closeSync calls disconnectSync.
    connection.disconnectSync = () => {
      try {
        disconnect();
      } finally {
        if (open.delete(connection)) tell();
      }
    };
    tell();
    return connection;
  };
  return {
    open,
    get connecting() {
      return connecting;
    },
    refuse: () => (refused = true),
    connected: () => until(() => connecting === 0),
    allClosed: () => until(() => open.size === 0 && connecting === 0),
  };
}

/** The storage's tables and views (the main catalog's), and every other catalog's (system views). */
async function tablesOf(connection: DuckDBConnection): Promise<AllowedTables> {
  const own = new Set<string>();
  const reserved = new Set<string>();
  const reader = await connection.runAndReadAll(
    'SELECT database_name = current_database(), table_name FROM duckdb_tables() UNION ALL SELECT database_name = current_database() AND NOT internal, view_name FROM duckdb_views()',
  );
  for (const [mine, name] of reader.getRows()) (mine === true ? own : reserved).add(String(name).toLowerCase());
  for (const name of own) reserved.delete(name);
  return { own, reserved };
}

/**
 * A user's statement, allowed by statement-check.ts (`checkStatement`), prepared: DuckDB must
 * find in it the one SELECT (or our EXPLAIN of one) the check saw. Errors name the position in
 * the user's text.
 */
export async function prepareChecked(duck: DuckModule, connection: DuckDBConnection, checked: CheckedStatement): Promise<DuckDBPreparedStatement> {
  let extracted;
  try {
    extracted = await connection.extractStatements(checked.text);
  } catch (error) {
    throw shifted(invalid(error, checked.text), checked.shift);
  }
  if (extracted.count !== 1) throw new SqlError('refused', `one statement per request, ${extracted.count} given`);
  let prepared: DuckDBPreparedStatement;
  try {
    prepared = await extracted.prepare(0);
  } catch (error) {
    throw shifted(invalid(error, checked.text), checked.shift);
  }
  const type = duck.StatementType[prepared.statementType] ?? String(prepared.statementType);
  const expected = checked.kind === 'explain' ? 'EXPLAIN' : 'SELECT';
  if (type !== expected || prepared.parameterCount > 0) {
    prepared.destroySync();
    throw new SqlError('refused', `only read-only statements are run; DuckDB found ${type} where the check found ${expected}`);
  }
  return prepared;
}

export { checkStatement };

function shifted(error: SqlError, shift: number): SqlError {
  if (error.position === undefined || shift === 0) return error;
  return new SqlError(error.kind, error.message, Math.max(0, error.position - shift));
}
