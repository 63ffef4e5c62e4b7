import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allMemberValues, layoutEntity, type MemberValue } from '../../src/format/entity-layout.js';
import { resolveJdkConstant } from '../../src/format/ids.js';
import { buildGraph } from '../../src/graph/graph-build.js';
import { Storage } from '../../src/storage/storage.js';
import { CONFORMANCE_DIR, STORAGE_NAMES } from '../helpers/conformance.js';

/**
 * The reference plans against the format layer's general decoder: for every entity of the
 * vendored Java-written storages, the graph's forward references are exactly the reference
 * values the decoder finds; unreachable counts are the ones the corpus documents.
 */

/** Unreachable entities per storage, from the corpus README. */
const UNREACHABLE: Record<string, number> = { primitives: 5, arrays: 1, collections: 1, graph: 35, evolution: 6, noroot: 0 };

function references(values: readonly MemberValue[], out: bigint[]): void {
  for (const v of values) {
    if (typeof v === 'bigint') out.push(v);
    else if (typeof v !== 'string') references(v, out);
  }
}

describe('graph build over the vendored storages', () => {
  for (const name of STORAGE_NAMES) {
    it(`${name}: forward references equal the decoder's, reachability as documented`, async () => {
      const storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', name));
      try {
        const { graph, problemCount } = await buildGraph(storage);
        expect(problemCount).toBe(0);
        let unreachable = 0;
        let checked = 0;
        for (const channel of storage.channels) {
          const ids: bigint[] = [];
          channel.objects.forEach((low, high) => ids.push((BigInt(high) << 32n) | BigInt(low)));
          for (const id of ids) {
            const entity = (await storage.readEntity(id))!;
            const entry = storage.dictionary.byId.get(entity.typeId)!;
            const refs: bigint[] = [];
            references(allMemberValues(layoutEntity(entry, entity.content)), refs);
            const stored = [...new Set(refs.filter((r) => r !== 0n && resolveJdkConstant(r) === undefined))].sort((a, b) => (a < b ? -1 : 1));
            const node = graph.nodes.nodeOfId(id);
            const forward = [...graph.adjacency.forward(node)].map((n) => graph.nodes.idOf(n)).sort((a, b) => (a < b ? -1 : 1));
            expect(forward, `references of ${id}`).toEqual(stored);
            expect(graph.types.at(graph.typeOf(node)).typeId).toBe(entity.typeId);
            if (!graph.isReachable(node)) unreachable++;
            checked++;
          }
        }
        expect(checked).toBe(storage.entityCount);
        expect(unreachable).toBe(UNREACHABLE[name]);
        expect(graph.missing.size).toBe(0);
      } finally {
        await storage.close();
      }
    });
  }
});
