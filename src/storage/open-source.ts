import { readFileSync } from 'node:fs';
import { parse as parseConnectionString } from 'pg-connection-string';
import type pg from 'pg';
import { UsageError } from '../errors.js';
import { DirectorySource } from './source/directory-source.js';
import { environmentPassword } from './postgres/postgres-password.js';
import { PostgresSource } from './postgres/postgres-source.js';
import { parseTableName } from './postgres/postgres-tables.js';
import type { StorageSource } from './source/source.js';

/**
 * Where a storage is, as the user says it: a directory path, or a PostgreSQL URL
 * (`postgres://user@host:port/db`, the storage's root table after `#` or given apart) for a
 * storage MicroStream keeps in PostgreSQL. Passwords never come from the spec: PGPASSWORD, a
 * password file (PGPASSFILE or ~/.pgpass, libpq's format) or `passwordFile` (the password alone).
 */

export interface SourceSpecOptions {
  /** The root table of a PostgreSQL storage (`name` or `schema.name`), unless the URL names it after `#`. */
  readonly table?: string | undefined;
  /** A file holding the database password (first line). */
  readonly passwordFile?: string | undefined;
  /** Bytes of table rows kept in memory for entity reads. */
  readonly cacheBytes?: number | undefined;
  /** A directory: follow symbolic links that lead outside it (refused by default). */
  readonly allowExternalLinks?: boolean;
}

const POSTGRES_URL = /^postgres(?:ql)?:\/\//i;

export function isPostgresSpec(spec: string): boolean {
  return POSTGRES_URL.test(spec);
}

/** Checks a spec and its options without opening anything (a UsageError says what is wrong). */
export function checkStorageSpec(spec: string, options: SourceSpecOptions = {}): void {
  if (!isPostgresSpec(spec)) {
    if (options.table !== undefined) throw new UsageError('--table is for storages kept in PostgreSQL (a postgres:// URL), not for a directory');
    if (options.passwordFile !== undefined) throw new UsageError('--pg-password-file is for storages kept in PostgreSQL (a postgres:// URL)');
    return;
  }
  const { url, table } = splitTable(spec, options.table);
  refusePassword(url);
  parseTableName(table);
}

/**
 * The source of a storage spec: a directory, or a PostgreSQL URL. Connects nothing yet: sources
 * connect on their first read (the first refresh of `Storage.open`).
 */
export function openStorageSource(spec: string, options: SourceSpecOptions = {}): StorageSource {
  checkStorageSpec(spec, options);
  if (!isPostgresSpec(spec)) return new DirectorySource(spec, { allowExternalLinks: options.allowExternalLinks === true });
  const { url, table } = splitTable(spec, options.table);
  const parsed = parseConnectionString(url);
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

function splitTable(spec: string, flag: string | undefined): { url: string; table: string } {
  const hash = spec.indexOf('#');
  const url = hash < 0 ? spec : spec.slice(0, hash);
  const fromUrl = hash < 0 ? undefined : decodeURIComponent(spec.slice(hash + 1));
  if (fromUrl !== undefined && flag !== undefined && fromUrl !== flag) {
    throw new UsageError(`the URL names table ${fromUrl} but --table says ${flag}`);
  }
  const table = fromUrl ?? flag;
  if (table === undefined || table === '') {
    throw new UsageError('a PostgreSQL storage needs its root table: --table ms_graph (or the URL ending in #ms_graph)');
  }
  return { url, table };
}

/** A password in the URL would be visible to every user of the machine (process list, shell history). */
function refusePassword(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`invalid PostgreSQL URL "${url}"`);
  }
  if (parsed.password !== '' || parsed.searchParams.has('password')) {
    throw new UsageError(
      'refusing a password in the PostgreSQL URL (other users can see command lines): use a password file (PGPASSFILE, ~/.pgpass or --pg-password-file) or PGPASSWORD',
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
