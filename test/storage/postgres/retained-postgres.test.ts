import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { StorageRegistry } from '../../../src/registry/storage-registry.js';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import { referenceDominators } from '../../graph/dominator-reference.js';
import { cloneStorageDatabase, dropDatabase, postgresInfo, READER_PASSWORD, readerUrl, rootTable } from '../../helpers/real-systems/postgres.js';

/**
 * Retained sizes of a storage kept in PostgreSQL: the dominator tree computed in the background
 * as for a directory, every object's figures as the data-flow definition computes them, and the
 * answers of /api/v1/retainers and of the SQL columns the same as for the directory's copy.
 */
describe('retained sizes of a PostgreSQL-kept storage', () => {
  it('are those of the definition, over the API and SQL', { timeout: 120_000 }, async () => {
    const database = await cloneStorageDatabase('graph', 'retained');
    const passwordFile = join(postgresInfo().root, `password-retained-${process.pid}`);
    writeFileSync(passwordFile, `${READER_PASSWORD}\n`, { mode: 0o600 });
    const storage = await Storage.open(openStorageSource(readerUrl(database), { table: rootTable('graph'), passwordFile }));
    const registry = new StorageRegistry();
    const context = registry.add('default', storage);
    const app = buildApp(storage, { instance: 'microstream', api: registry, sql: {} });
    try {
      registry.startAll();
      const graph = await context.graph.ready();
      const tree = await context.graph.dominators.ready();
      const want = referenceDominators(graph, storage.channels);
      for (let v = 0; v < graph.nodeCount; v++) {
        expect(tree.immediateDominator(v)).toBe(want.idom[v]);
        expect([tree.retainedObjects(v), tree.retainedBytes(v)]).toEqual([want.retainedObjects[v], want.retainedBytes[v]]);
      }
      expect(tree.reachableObjects).toBe(1228);
      const retainers = (await app.inject({ url: '/api/v1/retainers?limit=3' })).json() as { retainers: { objectId: string; retainedBytes: number }[] };
      expect(retainers.retainers.map((r) => r.objectId)).toEqual(['1000000000000000024', '1000000000000000028', '1000000000000000033']);
      const sql = await app.inject({ method: 'POST', url: '/api/v1/sql', payload: JSON.stringify({ sql: 'SELECT count(*) AS n, sum(retained_objects) AS objects FROM _objects WHERE immediate_dominator = 1000000000000000028' }), headers: { 'content-type': 'application/json' } });
      expect(sql.statusCode, sql.body).toBe(200);
      const children = [...want.idom.keys()].filter((v) => want.idom[v] === graph.nodes.nodeOfId(1000000000000000028n));
      const row = (sql.json() as { rows: (number | string)[][] }).rows[0]!;
      expect(row.map(Number)).toEqual([children.length, children.reduce((s, v) => s + want.retainedObjects[v]!, 0)]);
    } finally {
      await app.close();
      await registry.close();
      await storage.close();
      await dropDatabase(database);
    }
  });
});
