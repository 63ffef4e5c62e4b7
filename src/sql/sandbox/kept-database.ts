import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * A kept database (a cache entry's, table-cache.ts) read where it lies instead of copied into the
 * private directory: a run pays for the tables it reads, not for the entry's size (at 10M objects
 * after an export, 336 MB copied before the first statement).
 *
 * Attached read-only under `KEPT_CATALOG` through a link in the private directory, removed once
 * attached: DuckDB reads through the file it opened (on Linux an entry dropped or replaced
 * meanwhile stays readable to it), and the entry's own path is never given to DuckDB. That
 * matters after the lock: DuckDB lets a DETACH through, and an ATTACH of a path it attached
 * before, read-write; a user's statement is refused both by the statement check, and even past
 * it the only path DuckDB knows is the link, gone (an ATTACH there makes a new empty database in
 * the private directory, never the entry). The private database gets a view per kept table and
 * the kept views' own definitions, so a statement finds every table in the main catalog as before.
 */

/** The catalog the kept database is attached as (statement-check.ts refuses any other catalog a user names). */
export const KEPT_CATALOG = '__kept';
/** The link to the kept database, in the private directory while it is attached. */
const KEPT_LINK = 'kept.duckdb';

function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Attaches `file` read-only and makes the main catalog's views over its tables and its views. */
export async function attachKeptDatabase(connection: DuckDBConnection, file: string, privateDirectory: string): Promise<void> {
  const link = join(privateDirectory, KEPT_LINK);
  symlinkSync(file, link);
  try {
    await connection.run(`ATTACH '${link.replaceAll("'", "''")}' AS ${KEPT_CATALOG} (READ_ONLY)`);
  } finally {
    rmSync(link, { force: true });
  }
  const tables = (await connection.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE database_name = '${KEPT_CATALOG}' AND schema_name = 'main'`)).getRows().map(([name]) => String(name));
  const views = (await connection.runAndReadAll(`SELECT sql FROM duckdb_views() WHERE database_name = '${KEPT_CATALOG}' AND schema_name = 'main' AND NOT internal`)).getRows().map(([sql]) => String(sql));
  // One transaction: each commit of the private database's catalog is a write-ahead log synced
  // to disk (79 views at 10M objects, 200-500 ms of wall time at a high load when each was its own).
  await connection.run('BEGIN TRANSACTION');
  try {
    for (const table of tables) await connection.run(`CREATE VIEW main.${ident(table)} AS SELECT * FROM ${KEPT_CATALOG}.main.${ident(table)}`);
    // The kept views' own text, unqualified names: bound in the main catalog, over the views
    // above. A view over another view is bound when made: each round makes those whose views are
    // there by then (DuckDB's catalog error for one not there yet leaves the transaction usable).
    let pending = views;
    while (pending.length > 0) {
      const failed: string[] = [];
      let last: unknown;
      for (const sql of pending) {
        try {
          await connection.run(sql);
        } catch (error) {
          if (!/^Catalog Error/.test((error as Error).message)) throw error;
          failed.push(sql);
          last = error;
        }
      }
      if (failed.length === pending.length) throw last;
      pending = failed;
    }
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * Every view over a kept table still there made a table of the private database (its rows
 * copied by DuckDB), one transaction per table: before the first fill writes (a fill inserts
 * into or replaces a kept table, which is read-only) and before the database is kept again (its
 * file alone must then be the whole database). A view a link table's file replaced is not one.
 */
export async function ownKeptTables(connection: DuckDBConnection): Promise<void> {
  const reader = await connection.runAndReadAll(
    `SELECT view_name FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal AND contains(sql, '${KEPT_CATALOG}.main.')`,
  );
  for (const [name] of reader.getRows()) {
    const table = String(name);
    await connection.run('BEGIN TRANSACTION');
    try {
      await connection.run(`DROP VIEW main.${ident(table)}`);
      await connection.run(`CREATE TABLE main.${ident(table)} AS SELECT * FROM ${KEPT_CATALOG}.main.${ident(table)}`);
      await connection.run('COMMIT');
    } catch (error) {
      await connection.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }
}
