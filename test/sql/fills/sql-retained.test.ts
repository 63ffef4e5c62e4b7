import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { referenceDominators } from '../../graph/dominator-reference.js';
import { CORPORA } from '../../helpers/corpora/conformance.js';
import { registeredStorage } from '../../helpers/serving/registered-storage.js';
import { sqlAll } from '../table-views.js';

/**
 * `_objects.immediate_dominator`, `retained_objects` and `retained_bytes` on the corpus storage
 * `graph` of every generation: every row as the data-flow definition computes it (NULL for
 * unreachable objects), and the example queries of docs/sql.md.
 */

describe.each(CORPORA.map((c) => [c.generation, join(c.dir, 'storages', 'graph')] as const))('%s graph', (_generation, directory) => {
  it('has the retained columns of every object as defined', { timeout: 120_000 }, async () => {
    const { storage, registry, context, close } = await registeredStorage(directory);
    const app = buildApp(storage, { instance: 'microstream', api: registry, sql: {} });
    try {
      registry.startAll();
      const graph = await context.graph.ready();
      const want = referenceDominators(graph, storage.channels);
      const answer = await sqlAll(app, 'SELECT CAST(oid AS VARCHAR), CAST(immediate_dominator AS VARCHAR), retained_objects, retained_bytes FROM _objects');
      expect(answer.columns.slice(1).map((c) => c.type)).toEqual(['VARCHAR', 'BIGINT', 'BIGINT']);
      expect(answer.rows.length).toBe(storage.entityCount);
      let unreachable = 0;
      for (const [oid, idom, objects, bytes] of answer.rows) {
        const v = graph.nodes.nodeOfId(BigInt(oid as string));
        const d = want.idom[v]!;
        expect(idom, `immediate_dominator of ${oid}`).toBe(d < 0 ? null : String(graph.nodes.idOf(d)));
        if (want.retainedObjects[v] === 0) {
          unreachable++;
          expect([objects, bytes]).toEqual([null, null]);
        } else expect([Number(objects), Number(bytes)], `retained of ${oid}`).toEqual([want.retainedObjects[v], want.retainedBytes[v]]);
      }
      expect(unreachable).toBe(35);

      // docs/sql.md: the 20 biggest retainers (the roots object first: it retains everything reachable).
      const top = await sqlAll(app, 'SELECT oid, type_name, retained_objects, retained_bytes FROM _objects WHERE retained_bytes IS NOT NULL ORDER BY retained_bytes DESC, oid LIMIT 20');
      const roots = graph.nodes.nodeOfId(storage.rootsObjectId);
      expect(top.rows.length).toBe(20);
      expect(String(top.rows[0]![0])).toBe(String(storage.rootsObjectId));
      expect(Number(top.rows[0]![3])).toBe(want.retainedBytes[roots]);
      // Per type: the retained bytes of its instances.
      const perType = await sqlAll(app, "SELECT type_name, count(*) AS instances, sum(retained_bytes) AS retained_bytes FROM _objects WHERE reachable GROUP BY type_name ORDER BY retained_bytes DESC");
      const roots2 = perType.rows.find((r) => r[0] === graph.types.nameOf(graph.typeOf(roots)))!;
      expect(Number(roots2[2])).toBeGreaterThanOrEqual(want.retainedBytes[roots]!);
      // The objects that keep more than 10 % of the storage alive.
      const big = await sqlAll(app, 'SELECT oid FROM _objects WHERE retained_bytes > 0.1 * (SELECT sum(bytes) FROM _objects WHERE reachable) ORDER BY retained_bytes DESC');
      const total = want.retainedBytes[roots]!;
      const expected = [...want.retainedBytes.keys()].filter((v) => want.retainedBytes[v]! > 0.1 * total).map((v) => String(graph.nodes.idOf(v)));
      expect(big.rows.map((r) => String(r[0])).sort()).toEqual(expected.sort());
    } finally {
      await app.close();
      await close();
    }
  });
});
