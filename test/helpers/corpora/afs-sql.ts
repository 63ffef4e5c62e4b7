import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The EclipseStore 4.2 corpus written through its SQL file system (test/fixtures/conformance-afs-sql):
 * MariaDB dumps, SQLite database files, a PostgreSQL dump, and the REST answers recorded while
 * EclipseStore served each of them.
 */

export const AFS_SQL_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'conformance-afs-sql');
export const AFS_SQL_SETS = ['graph', 'collections'] as const;
export type AfsSqlSet = (typeof AFS_SQL_SETS)[number];
/** The storage's root table, as EclipseStore's documented setup names it (the storage directory `storage`). */
export const AFS_ROOT_TABLE = 'storage';

export function casesFile(dialect: 'mariadb' | 'sqlite' | 'postgres', set: AfsSqlSet): string {
  return join(AFS_SQL_DIR, 'cases', `${dialect}-${set}.jsonl`);
}

export function sqliteFile(set: AfsSqlSet): string {
  return join(AFS_SQL_DIR, 'sqlite', `${set}.db`);
}

export function mariadbDump(set: AfsSqlSet): string {
  return join(AFS_SQL_DIR, 'mariadb', `${set}.sql`);
}
