import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { StorageRegistry } from '../../../src/registry/storage-registry.js';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import { cloneStorageDatabase, dropDatabase, postgresInfo, READER_PASSWORD, readerUrl, rootTable } from '../../helpers/real-systems/postgres.js';
import { compareTablesWithViews } from '../../sql/table-views.js';

/**
 * The SQL tables of storages MicroStream 4.1 keeps in PostgreSQL (read as the minimal read-only
 * role): each type table equals the object views, `_elements` the lists, `_references` the
 * graph index, `_objects` the /api/v1 counts, exactly as for directories.
 */
describe.each(['graph', 'collections', 'primitives', 'arrays'] as const)('SQL over a PostgreSQL-kept storage: %s', (name) => {
  it('has tables that equal the object views, the graph and the counts', { timeout: 120_000 }, async () => {
    const database = await cloneStorageDatabase(name, 'sql');
    const passwordFile = join(postgresInfo().root, `password-sql-${process.pid}`);
    writeFileSync(passwordFile, `${READER_PASSWORD}\n`, { mode: 0o600 });
    const storage = await Storage.open(openStorageSource(readerUrl(database), { table: rootTable(name), passwordFile }));
    const registry = new StorageRegistry();
    const context = registry.add('default', storage);
    const app = buildApp(storage, { instance: 'microstream', api: registry, sql: {} });
    try {
      registry.startAll();
      const graph = await context.graph.ready();
      const figures = await compareTablesWithViews(app, graph);
      expect(figures.rows).toBeGreaterThan(0);
    } finally {
      await app.close();
      await registry.close();
      await storage.close();
      await dropDatabase(database);
    }
  });
});
