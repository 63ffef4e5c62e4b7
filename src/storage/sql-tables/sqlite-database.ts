import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { crc32 } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';
import { isAppError, StorageError } from '../../errors.js';
import type { RowDatabase, RowQueries, TableColumns } from './row-database.js';

/**
 * A SQLite database file holding a storage (EclipseStore's `SqlProviderSqlite`), read with
 * better-sqlite3, loaded only when such a storage is opened.
 *
 * Read-only: every connection is opened with SQLITE_OPEN_READONLY (`mode=ro`), so SQLite neither
 * writes the file nor creates a journal beside it; `query_only` refuses any statement that would
 * write. A file that nobody may write (no write permission bit) is opened `immutable`: SQLite
 * then takes no lock at all, since nothing can change it. Any other file is read with SQLite's
 * shared read lock, held only while a snapshot (one refresh) or a statement runs: a writer's
 * commit waits for it (sqlite-jdbc waits up to 3 s by default), it is never refused.
 *
 * A database in WAL mode is read through its `-wal` and `-shm` files while its application has it
 * open (they exist then). Without them, even a read-only connection would create both (and leave
 * them): such a file is complete in itself and opened `immutable` instead, and once the files
 * appear (the application started), connections are opened anew the other way.
 */

/** The first 16 bytes of every SQLite 3 database file. */
const SQLITE_HEADER = 'SQLite format 3\0';

/** Whether `path` is a SQLite database file (by its header); false for anything that is not a readable regular file. */
export function isSqliteFile(path: string): boolean {
  let fd: number | undefined;
  try {
    if (!statSync(path).isFile()) return false;
    fd = openSync(path, 'r');
    const header = Buffer.alloc(16);
    return readSync(fd, header, 0, 16, 0) === 16 && header.toString('latin1') === SQLITE_HEADER;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Connections kept for snapshots: each snapshot has a connection of its own, its transaction its own. */
const IDLE_CONNECTIONS = 4;
/** How long a read waits for a writer's lock before it fails (SQLite's busy timeout). */
const BUSY_TIMEOUT_MS = 5_000;

type Database = BetterSqlite3.Database;

export class SqliteDatabase implements RowDatabase {
  readonly kind = 'sqlite';
  readonly rowMark = 'rowid';
  /** SQLite has no CRC function of its own: each connection gets Node's. */
  readonly contentMark = 'si_crc32(data)';
  private driver: Promise<typeof BetterSqlite3> | undefined;
  private readonly idle: Database[] = [];
  private shared: Database | undefined;
  /** Whether connections are opened immutable now (nobody may write the file, or a WAL database without its -wal and -shm). */
  private immutable: boolean | undefined;
  /** How each connection was opened: one opened otherwise than now is closed instead of reused. */
  private readonly openedImmutable = new WeakMap<Database, boolean>();

  constructor(
    private readonly file: string,
    private readonly where: string,
  ) {}

  quote(identifier: string): string {
    return `"${identifier.replace(/"/g, '""')}"`;
  }

  /**
   * Opens the file read-only: by URI (`mode=ro`, `immutable=1` where decided), or, when
   * better-sqlite3 was loaded before without URI filenames (by another part of the process), by
   * its path with SQLITE_OPEN_READONLY alone (no immutable then: shared locks as for a writable file).
   */
  private openReadOnly(Driver: typeof BetterSqlite3, path: string): Database {
    const options = { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS };
    if (urisTaken !== false) {
      const uri = `${pathToFileURL(path).href}?mode=ro${this.immutable === true ? '&immutable=1' : ''}`;
      try {
        const db = new Driver(uri, { ...options, fileMustExist: false });
        urisTaken = true;
        return db;
      } catch (error) {
        // A read-only open of a name that is no file creates nothing; CANTOPEN then means the URI was taken as a name.
        if (urisTaken === true || (error as { code?: unknown }).code !== 'SQLITE_CANTOPEN') throw error;
        urisTaken = false;
      }
    }
    if (this.immutable === true && isWalDatabase(path)) {
      throw new StorageError(
        'STORAGE_UNAVAILABLE',
        `${this.where}: a database in WAL mode whose -wal and -shm files are not there; reading it here would create them (URI filenames are off for this process's SQLite): read it while its application has it open, or a copy`,
      );
    }
    return new Driver(path, options);
  }

  async tables(queries: RowQueries, prefix: string): Promise<TableColumns[]> {
    const rows = await queries.all<{ table: string; column: string; type: string }>(
      `SELECT m.name AS "table", p.name AS "column", lower(p.type) AS type
       FROM sqlite_schema m JOIN pragma_table_info(m.name) p
       WHERE m.type IN ('table', 'view') AND substr(m.name, 1, ?) = ?
       ORDER BY m.name, p.cid`,
      [prefix.length, prefix],
    );
    const tables = new Map<string, Map<string, string>>();
    for (const row of rows) {
      const columns = tables.get(row.table) ?? new Map<string, string>();
      columns.set(row.column, row.type);
      tables.set(row.table, columns);
    }
    return [...tables].map(([name, columns]) => ({ name, columns }));
  }

  async snapshot<T>(fn: (queries: RowQueries) => Promise<T>): Promise<T> {
    this.decideMode();
    const db = this.idle.pop() ?? (await this.connect());
    let healthy = true;
    // A deferred read transaction: every statement until COMMIT reads the same instant.
    db.exec('BEGIN');
    try {
      return await fn(queriesOf(db));
    } catch (error) {
      healthy = false;
      throw error;
    } finally {
      try {
        if (db.inTransaction) db.exec('COMMIT');
      } catch {
        healthy = false;
      }
      const current = this.openedImmutable.get(db) === this.immutable;
      if (healthy && current && this.idle.length < IDLE_CONNECTIONS && db.open) this.idle.push(db);
      else db.close();
    }
  }

  async single<T>(fn: (queries: RowQueries) => Promise<T>): Promise<T> {
    this.decideMode();
    this.shared ??= await this.connect();
    return fn(queriesOf(this.shared));
  }

  explain(error: unknown): unknown {
    if (isAppError(error)) return error;
    const code = (error as { code?: unknown } | null)?.code;
    const message = error instanceof Error ? error.message : String(error);
    if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_NOTADB' || code === 'SQLITE_PERM') {
      return new StorageError('STORAGE_UNAVAILABLE', `${this.where}: cannot open the SQLite database (${message})`, { cause: error });
    }
    return new StorageError('STORAGE_IO', `${this.where}: ${message}${typeof code === 'string' ? ` (${code})` : ''}`, { cause: error });
  }

  async close(): Promise<void> {
    for (const db of this.idle.splice(0)) db.close();
    this.shared?.close();
    this.shared = undefined;
  }

  /**
   * How to open the file now (see the class comment); connections opened otherwise are closed
   * (the idle ones now, the ones in use when they are given back).
   */
  private decideMode(): boolean {
    const path = resolve(this.file);
    let mode: number;
    try {
      mode = statSync(path).mode;
    } catch (error) {
      throw new StorageError('STORAGE_UNAVAILABLE', `${this.where}: cannot open the SQLite database (${error instanceof Error ? error.message : String(error)})`, { cause: error });
    }
    const walFilesMissing = isWalDatabase(path) && !(existsSync(`${path}-wal`) && existsSync(`${path}-shm`));
    const immutable = (mode & 0o222) === 0 || walFilesMissing;
    if (this.immutable !== undefined && immutable !== this.immutable) {
      for (const db of this.idle.splice(0)) db.close();
      this.shared?.close();
      this.shared = undefined;
    }
    this.immutable = immutable;
    return immutable;
  }

  private async connect(): Promise<Database> {
    // better-sqlite3 takes URI filenames (mode=ro, immutable=1) only when SQLITE_USE_URI says so
    // before its first database opens.
    process.env['SQLITE_USE_URI'] = '1';
    this.driver ??= import('better-sqlite3').then((m) => m.default);
    const Driver = await this.driver;
    const immutable = this.decideMode();
    const db = this.openReadOnly(Driver, resolve(this.file));
    this.openedImmutable.set(db, immutable);
    try {
      db.pragma('query_only = ON');
      db.defaultSafeIntegers(false);
      db.function('si_crc32', { deterministic: true }, (data: unknown) => (data instanceof Uint8Array ? crc32(data) : null));
      // A file that is not a database fails here, on its first read.
      db.prepare('SELECT count(*) FROM sqlite_schema').get();
    } catch (error) {
      db.close();
      throw error;
    }
    return db;
  }
}

/** Whether the database file says WAL mode (header bytes 18 and 19, the file format's write and read versions, are 2). */
function isWalDatabase(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const header = Buffer.alloc(20);
    return readSync(fd, header, 0, 20, 0) === 20 && header[18] === 2;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Whether better-sqlite3 took URI filenames in this process (it decides once, when it first loads). */
let urisTaken: boolean | undefined;

/** Each connection's prepared statements (a few texts per table), kept while it is open. */
const prepared = new WeakMap<Database, Map<string, BetterSqlite3.Statement>>();

function queriesOf(db: Database): RowQueries {
  let statements = prepared.get(db);
  if (statements === undefined) prepared.set(db, (statements = new Map()));
  const cache = statements;
  return {
    all: <T>(sql: string, params: readonly unknown[] = []) => {
      let statement = cache.get(sql);
      if (statement === undefined) cache.set(sql, (statement = db.prepare(sql)));
      return Promise.resolve(statement.all(...params) as T[]);
    },
  };
}
