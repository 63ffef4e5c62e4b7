import type { TestProject } from 'vitest/node';
import { startCluster, stopCluster } from './postgres-cluster.js';
import {
  adminClient,
  grantReader,
  READER_PASSWORD,
  READER_USER,
  restoreDump,
  rootTable,
  SQL_STORAGE_NAMES,
  storageTables,
  templateDatabase,
  writePasswordFile,
} from './postgres.js';

/**
 * Vitest global setup: one throwaway PostgreSQL cluster for the whole run (see
 * postgres-cluster.ts), with every corpus dump restored into a template database `tpl_<name>`
 * that tests clone or read. Stopped and removed when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const cluster = await startCluster();
  try {
    const admin = await adminClient('postgres', cluster);
    try {
      await admin.query(`CREATE ROLE ${READER_USER} LOGIN PASSWORD '${READER_PASSWORD}'`);
      for (const name of SQL_STORAGE_NAMES) await admin.query(`CREATE DATABASE ${templateDatabase(name)}`);
    } finally {
      await admin.end();
    }
    const restored = await Promise.allSettled(
      SQL_STORAGE_NAMES.map(async (name) => {
        const client = await adminClient(templateDatabase(name), cluster);
        try {
          await restoreDump(client, name);
          await grantReader(client, templateDatabase(name), await storageTables(client, rootTable(name)));
        } finally {
          await client.end();
        }
      }),
    );
    const failed = restored.find((r) => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  } catch (error) {
    stopCluster(cluster);
    throw error;
  }
  project.provide('postgres', { ...cluster, passwordFile: writePasswordFile(cluster) });
  return () => stopCluster(cluster);
}
