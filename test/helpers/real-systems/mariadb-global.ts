import type { TestProject } from 'vitest/node';
import { AFS_SQL_SETS, mariadbDump } from '../corpora/afs-sql.js';
import { loadDatabase, mariadbServerBinary, startMariadb, stopMariadb, writeReaderPasswordFile, type MariadbServer } from './mariadb-server.js';

/**
 * Vitest global setup: one throwaway MariaDB server for the run (see mariadb-server.ts), with the
 * corpus dumps loaded into `es_<set>`. Without Debian's mariadb-server the MariaDB tests skip,
 * except under CI, where this fails the run (as PostgreSQL's does).
 */
export interface MariadbTestInfo extends MariadbServer {
  /** The reader's password alone (for --pg-password-file). */
  readonly passwordFile: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    mariadb: MariadbTestInfo | null;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  if (mariadbServerBinary() === undefined && process.env['CI'] === undefined) {
    project.provide('mariadb', null);
    return () => undefined;
  }
  const server = await startMariadb();
  try {
    for (const set of AFS_SQL_SETS) loadDatabase(server, `es_${set}`, mariadbDump(set));
  } catch (error) {
    stopMariadb(server);
    throw error;
  }
  project.provide('mariadb', { ...server, passwordFile: writeReaderPasswordFile(server) });
  return () => stopMariadb(server);
}
