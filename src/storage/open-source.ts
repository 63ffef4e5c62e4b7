import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { createRequire } from 'node:module';
import type { parse as ParseConnectionString } from 'pg-connection-string';
import type pg from 'pg';
import { UsageError } from '../errors.js';
import { DirectorySource } from './source/directory-source.js';
import { environmentPassword } from './postgres/postgres-password.js';
import { PostgresSource } from './postgres/postgres-source.js';
import { parseTableName } from './postgres/postgres-tables.js';
import type { StorageSource } from './source/source.js';
import { MariadbDatabase } from './sql-tables/mariadb-database.js';
import { mariadbPassword } from './sql-tables/mariadb-password.js';
import { isSqliteFile, SqliteDatabase } from './sql-tables/sqlite-database.js';
import { TableSource } from './sql-tables/table-source.js';

/**
 * Where a storage is, as the user says it: a directory path, or a database the SQL file system
 * keeps it in: a PostgreSQL URL (`postgres://user@host:port/db`), a MariaDB/MySQL URL
 * (`mariadb://user@host:port/db`, `mysql://…`), a SQLite file (`sqlite:PATH`, or the path of a
 * SQLite database file); the storage's root table after `#` or given apart (SQLite and MariaDB:
 * optional when the database holds one storage). Passwords never come from the spec: PostgreSQL
 * PGPASSWORD, a password file (PGPASSFILE or ~/.pgpass, libpq's format) or `passwordFile` (the
 * password alone); MariaDB `passwordFile` or the client option file (~/.my.cnf).
 */

export interface SourceSpecOptions {
  /** The root table of a storage kept in a database (PostgreSQL: `name` or `schema.name`), unless the spec names it after `#`. */
  readonly table?: string | undefined;
  /** A file holding the database password (first line). */
  readonly passwordFile?: string | undefined;
  /** Bytes of table rows kept in memory for entity reads. */
  readonly cacheBytes?: number | undefined;
  /** A directory: follow symbolic links that lead outside it (refused by default). */
  readonly allowExternalLinks?: boolean;
}

const POSTGRES_URL = /^postgres(?:ql)?:\/\//i;
const MARIADB_URL = /^(?:mariadb|mysql):\/\//i;
const SQLITE_SPEC = /^sqlite:/i;

/** The kinds of database a storage spec can name. */
export type DatabaseKind = 'postgresql' | 'mariadb' | 'sqlite';

/** What database a spec names (undefined: a directory). A path is SQLite when the file begins like a SQLite database. */
export function databaseKindOf(spec: string): DatabaseKind | undefined {
  if (POSTGRES_URL.test(spec)) return 'postgresql';
  if (MARIADB_URL.test(spec)) return 'mariadb';
  if (SQLITE_SPEC.test(spec) || isSqliteFile(spec)) return 'sqlite';
  return undefined;
}

/** Whether a spec names a storage kept in a database (not a directory). */
export function isDatabaseSpec(spec: string): boolean {
  return databaseKindOf(spec) !== undefined;
}

/**
 * Whether a spec names a storage kept in a database: PostgreSQL, and since MariaDB and SQLite
 * too (callers ask it to tell a database from a directory; `isDatabaseSpec` says so by its name).
 */
export const isPostgresSpec = isDatabaseSpec;

/** Checks a spec and its options without opening anything (a UsageError says what is wrong). */
export function checkStorageSpec(spec: string, options: SourceSpecOptions = {}): void {
  const kind = databaseKindOf(spec);
  if (kind === undefined) {
    if (options.table !== undefined) throw new UsageError('--table is for storages kept in PostgreSQL, MariaDB/MySQL or SQLite (postgres://, mariadb://, mysql://, sqlite:), not for a directory');
    if (options.passwordFile !== undefined) throw new UsageError('--pg-password-file is for storages kept in PostgreSQL or MariaDB/MySQL (a postgres://, mariadb:// or mysql:// URL)');
    return;
  }
  if (kind === 'sqlite') {
    if (options.passwordFile !== undefined) throw new UsageError('--pg-password-file is for databases behind a server; a SQLite file has no password');
    const { table } = splitTable(spec, options.table, false);
    if (table !== undefined) checkRootTableName(table);
    return;
  }
  const { url, table } = splitTable(spec, options.table, kind === 'postgresql');
  refusePassword(url, kind);
  if (kind === 'mariadb') mariadbTarget(url);
  if (table === undefined) return;
  if (kind === 'mariadb') checkRootTableName(table);
  else parseTableName(table);
}

/**
 * A root table in SQLite or MariaDB: a name as the SQL file system makes them (path elements
 * joined with `$` or `_`: letters, digits, `_`, `$`, `-`; at most 64 characters, MariaDB's limit),
 * without a schema (the database is the URL's, the file is the SQLite file).
 */
function checkRootTableName(table: string): void {
  if (!/^[A-Za-z0-9_$-]{1,64}$/.test(table)) {
    throw new UsageError(`invalid table name "${table}": give the storage's root table by its name alone (letters, digits, _, $, -), e.g. storage`);
  }
}

/**
 * The source of a storage spec: a directory, or a PostgreSQL URL. Connects nothing yet: sources
 * connect on their first read (the first refresh of `Storage.open`).
 */
export function openStorageSource(spec: string, options: SourceSpecOptions = {}): StorageSource {
  checkStorageSpec(spec, options);
  const kind = databaseKindOf(spec);
  if (kind === undefined) return new DirectorySource(spec, { allowExternalLinks: options.allowExternalLinks === true });
  if (kind === 'sqlite') return openSqlite(spec, options);
  if (kind === 'mariadb') return openMariadb(spec, options);
  const { url, table } = splitTable(spec, options.table, true) as { url: string; table: string };
  // Required here, not imported: a directory storage's commands never need it, and `serve` loaded
  // it (a CommonJS package, about 5 ms of CPU) before its first answer (docs/benchmarks/startup.md).
  const { parse } = createRequire(import.meta.url)('pg-connection-string') as { parse: typeof ParseConnectionString };
  const parsed = parse(url);
  const connection: pg.PoolConfig = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (value === '' || value === null || value === undefined) continue;
    (connection as Record<string, unknown>)[key] = key === 'port' ? Number(value) : value;
  }
  if (options.passwordFile !== undefined) {
    const file = options.passwordFile;
    connection.password = () => readPasswordFile(file);
    readPasswordFile(file); // fail early on a missing file
  } else {
    // libpq's order: PGPASSWORD, then the password file (PGPASSFILE or ~/.pgpass); node-postgres
    // asks only when the server wants a password, and none found is an error naming the sources.
    connection.password = environmentPassword as unknown as () => Promise<string>;
  }
  return new PostgresSource({
    connection,
    table: parseTableName(table),
    location: `${url} (table ${table})`,
    ...(options.cacheBytes === undefined ? {} : { cacheBytes: options.cacheBytes }),
  });
}

/** A SQLite file: `sqlite:PATH` or the path itself; messages and answers name it by its file name only. */
function openSqlite(spec: string, options: SourceSpecOptions): StorageSource {
  const { url, table } = splitTable(spec, options.table, false);
  const path = SQLITE_SPEC.test(url) ? url.slice('sqlite:'.length) : url;
  if (path === '') throw new UsageError('sqlite: needs the path of the database file (sqlite:storage.db)');
  const location = `sqlite:${basename(path)}${table === undefined ? '' : ` (table ${table})`}`;
  return new TableSource({ database: new SqliteDatabase(path, location), table, location, ...cacheOption(options) });
}

/** A MariaDB/MySQL database: `mariadb://user@host:port/db`; the password from a file or the client option file. */
function openMariadb(spec: string, options: SourceSpecOptions): StorageSource {
  const { url, table } = splitTable(spec, options.table, false);
  const target = mariadbTarget(url);
  const location = `${url}${table === undefined ? '' : ` (table ${table})`}`;
  const database = new MariadbDatabase({ ...target, password: mariadbPassword(options.passwordFile) }, location);
  return new TableSource({ database, table, location, ...cacheOption(options) });
}

function cacheOption(options: SourceSpecOptions): { cacheBytes?: number } {
  return options.cacheBytes === undefined ? {} : { cacheBytes: options.cacheBytes };
}

/** Host, port, user and database of a MariaDB URL; only those (no query parameters: every setting here is fixed). */
function mariadbTarget(url: string): { host: string; port: number; user: string; database: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`invalid MariaDB URL "${url}": mariadb://user@host:port/database`);
  }
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  const user = decodeURIComponent(parsed.username);
  if (user === '' || database === '' || database.includes('/')) {
    throw new UsageError(`invalid MariaDB URL "${url}": give user and database, mariadb://user@host:port/database`);
  }
  if (parsed.search !== '') throw new UsageError(`MariaDB URL "${url}": no parameters are taken (the connection is always read-only)`);
  const port = parsed.port === '' ? 3306 : Number(parsed.port);
  return { host: parsed.hostname === '' ? 'localhost' : parsed.hostname.replace(/^\[|\]$/g, ''), port, user, database };
}

function splitTable(spec: string, flag: string | undefined, required: true): { url: string; table: string };
function splitTable(spec: string, flag: string | undefined, required: boolean): { url: string; table: string | undefined };
function splitTable(spec: string, flag: string | undefined, required: boolean): { url: string; table: string | undefined } {
  const hash = spec.indexOf('#');
  const url = hash < 0 ? spec : spec.slice(0, hash);
  const fromUrl = hash < 0 ? undefined : decodeURIComponent(spec.slice(hash + 1));
  if (fromUrl !== undefined && flag !== undefined && fromUrl !== flag) {
    throw new UsageError(`the URL names table ${fromUrl} but --table says ${flag}`);
  }
  const table = fromUrl ?? flag;
  if (table === '' || (required && table === undefined)) {
    throw new UsageError('a PostgreSQL storage needs its root table: --table ms_graph (or the URL ending in #ms_graph)');
  }
  return { url, table };
}

/** A password in the URL would be visible to every user of the machine (process list, shell history). */
function refusePassword(url: string, kind: 'postgresql' | 'mariadb'): void {
  const name = kind === 'postgresql' ? 'PostgreSQL' : 'MariaDB';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`invalid ${name} URL "${url}"`);
  }
  if (parsed.password !== '' || parsed.searchParams.has('password')) {
    throw new UsageError(
      kind === 'postgresql'
        ? 'refusing a password in the PostgreSQL URL (other users can see command lines): use a password file (PGPASSFILE, ~/.pgpass or --pg-password-file) or PGPASSWORD'
        : 'refusing a password in the MariaDB URL (other users can see command lines): use a password file (--pg-password-file) or the client option file ~/.my.cnf',
    );
  }
}

function readPasswordFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the password file ${file} (${error instanceof Error ? error.message : String(error)})`);
  }
  const password = text.split(/\r?\n/)[0] ?? '';
  if (password === '') throw new UsageError(`the password file ${file} is empty`);
  return password;
}
