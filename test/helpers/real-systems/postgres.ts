import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { inject } from 'vitest';
import type { ClusterInfo } from './postgres-cluster.js';

/**
 * What PostgreSQL tests share: the throwaway cluster of `postgres-global.ts` (one per test run),
 * template databases holding the restored corpus dumps, and a read-only role with nothing but
 * SELECT on the storage tables (the minimal role the README documents).
 */

export const SQL_CONFORMANCE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'conformance-sql');
export const SQL_STORAGE_NAMES = ['primitives', 'arrays', 'collections', 'graph', 'noroot', 'chunked'] as const;
export type SqlStorageName = (typeof SQL_STORAGE_NAMES)[number];

export const READER_USER = 'si_reader';
export const READER_PASSWORD = 'reader-secret-for-tests';

export interface PostgresTestInfo extends ClusterInfo {
  /** A password file (`host:port:db:user:password` lines) with the reader's password, mode 0600. */
  readonly passwordFile: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresTestInfo;
  }
}

export function postgresInfo(): PostgresTestInfo {
  return inject('postgres');
}

/** The storage's root table as MicroStream's SQL file system names it. */
export function rootTable(name: string): string {
  return `ms_${name}`;
}

export function templateDatabase(name: SqlStorageName): string {
  return `tpl_${name}`;
}

/** A connection of the admin (superuser) over the unix socket; the caller ends it. */
export async function adminClient(database: string, info: ClusterInfo = postgresInfo()): Promise<pg.Client> {
  const client = new pg.Client({ host: info.socketDir, port: info.port, user: info.adminUser, database });
  await client.connect();
  return client;
}

/** `postgres://si_reader@127.0.0.1:<port>/<db>`: no password in it (the password file has it). */
export function readerUrl(database: string, info: ClusterInfo = postgresInfo()): string {
  return `postgres://${READER_USER}@127.0.0.1:${info.port}/${database}`;
}

/** Environment for a child process that connects as the reader: the password file, nothing else of PG*. */
export function readerEnv(info: PostgresTestInfo = postgresInfo()): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PG')) env[key] = value;
  return { ...env, PGPASSFILE: info.passwordFile };
}

/** Writes the password file of the reader role (pg reads it like libpq: PGPASSFILE). */
export function writePasswordFile(info: ClusterInfo): string {
  const path = join(info.root, 'pgpass');
  writeFileSync(path, `127.0.0.1:${info.port}:*:${READER_USER}:${READER_PASSWORD}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

/** The tables of a storage in a database (root table and channel tables), sorted. */
export async function storageTables(client: pg.Client, root: string): Promise<string[]> {
  const result = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind = 'r' AND (c.relname = $1 OR c.relname ~ ('^' || $1 || '_channel_[0-9]+$'))
     ORDER BY c.relname`,
    [root],
  );
  return result.rows.map((r) => r.name);
}

/**
 * The minimal read-only role's rights in one database: CONNECT on it, USAGE on the schema and
 * SELECT on the storage's tables; PUBLIC keeps nothing (no TEMP, no CREATE).
 */
export async function grantReader(admin: pg.Client, database: string, tables: readonly string[]): Promise<void> {
  const db = pg.escapeIdentifier(database);
  await admin.query(`REVOKE ALL ON DATABASE ${db} FROM PUBLIC`);
  await admin.query(`GRANT CONNECT ON DATABASE ${db} TO ${READER_USER}`);
  await admin.query(`REVOKE ALL ON SCHEMA public FROM PUBLIC`);
  await admin.query(`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC`);
  await admin.query(`GRANT USAGE ON SCHEMA public TO ${READER_USER}`);
  for (const table of tables) await admin.query(`GRANT SELECT ON public.${pg.escapeIdentifier(table)} TO ${READER_USER}`);
}

let cloneCounter = 0;

/**
 * A new database holding a restored corpus storage, for a test that changes it (or that must not
 * share one with others); the reader role may read its storage tables.
 */
export async function cloneStorageDatabase(name: SqlStorageName, label = 'test'): Promise<string> {
  const database = `${label}_${name}_${process.pid}_${++cloneCounter}`;
  const admin = await adminClient('postgres');
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(database)} TEMPLATE ${pg.escapeIdentifier(templateDatabase(name))}`);
  } finally {
    await admin.end();
  }
  const client = await adminClient(database);
  try {
    await grantReader(client, database, await storageTables(client, rootTable(name)));
  } finally {
    await client.end();
  }
  return database;
}

/** An empty database the reader may connect to (for storages a test writes itself). */
export async function createEmptyDatabase(label: string): Promise<string> {
  const database = `${label}_${process.pid}_${++cloneCounter}`;
  const admin = await adminClient('postgres');
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
  } finally {
    await admin.end();
  }
  const client = await adminClient(database);
  try {
    await grantReader(client, database, []);
  } finally {
    await client.end();
  }
  return database;
}

export async function dropDatabase(database: string): Promise<void> {
  const admin = await adminClient('postgres');
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/** Restores a corpus dump (plain SQL) into an empty database. */
export async function restoreDump(admin: pg.Client, name: SqlStorageName): Promise<void> {
  await admin.query(readFileSync(join(SQL_CONFORMANCE_DIR, 'pg', `${name}.sql`), 'utf8'));
}

/** A digest of every row of the storage's tables: equal before and after proves nothing was written. */
export async function tablesDigest(client: pg.Client, root: string): Promise<string> {
  const parts: string[] = [];
  for (const table of await storageTables(client, root)) {
    const t = `public.${pg.escapeIdentifier(table)}`;
    const result = await client.query<{ digest: string | null; xmins: string | null }>(
      `SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) AS digest, string_agg(xmin::text, ',' ORDER BY t::text) AS xmins FROM ${t} t`,
    );
    parts.push(`${table}=${result.rows[0]?.digest ?? 'empty'}/${result.rows[0]?.xmins ?? ''}`);
  }
  return parts.join(';');
}

/** The statements the inspector's sessions sent to one database, from the server log (log_statement = all). */
export function statementsOf(log: string, database: string): string[] {
  const statements: string[] = [];
  let current: string[] | undefined;
  const prefix = /^\d{4}-\d\d-\d\d [\d:.]+ \w+ \[\d+\] /;
  for (const line of log.split('\n')) {
    if (prefix.test(line)) {
      if (current !== undefined) statements.push(current.join('\n').trim());
      current = undefined;
      const match = new RegExp(`^\\S+ \\S+ \\S+ \\[\\d+\\] storage-inspector@${database} LOG:  (?:statement|execute [^:]*): (.*)$`).exec(line);
      if (match !== null) current = [match[1] as string];
    } else if (current !== undefined) {
      current.push(line);
    }
  }
  if (current !== undefined) statements.push(current.join('\n').trim());
  return statements;
}

/**
 * A fresh copy of a corpus storage in a database of its own, changed by `change` (as the admin,
 * schema `public`), with the digest of its tables afterwards (to show later that nothing was
 * written). The database is dropped again when `change` fails.
 */
export async function preparedStorageDatabase(
  name: SqlStorageName,
  label: string,
  change: (admin: pg.Client) => Promise<void> = async () => undefined,
): Promise<{ database: string; digest: string }> {
  const database = await cloneStorageDatabase(name, label);
  try {
    const admin = await adminClient(database);
    try {
      await admin.query('SET search_path = public');
      await change(admin);
      return { database, digest: await tablesDigest(admin, `ms_${name}`) };
    } finally {
      await admin.end();
    }
  } catch (error) {
    await dropDatabase(database);
    throw error;
  }
}

/** The digest of the tables of the storage whose root table is `root`, read as the admin. */
export async function databaseDigest(database: string, root: string): Promise<string> {
  const admin = await adminClient(database);
  try {
    return await tablesDigest(admin, root);
  } finally {
    await admin.end();
  }
}
