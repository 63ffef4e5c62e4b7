import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gigaMapIds } from '../../src/gigamap/find-gigamaps.js';
import { BATCH_ROWS, gigaMapEntityRows, gigaMapIndexRows } from '../../src/gigamap/sql-rows.js';
import { buildGraph } from '../../src/graph/build/graph-build.js';
import type { GraphIndex } from '../../src/graph/model/graph-index.js';
import { Storage } from '../../src/storage/storage.js';
import { expectedKeys, GIGAMAP_STORAGE, loadApiDump } from './gigamap-corpus.js';

/** The rows of `_gigamap_entities` and `_gigamap_index` against EclipseStore's own API dump. */

const dump = loadApiDump();
let storage: Storage;
let graph: GraphIndex;

beforeAll(async () => {
  storage = await Storage.open(GIGAMAP_STORAGE);
  graph = (await buildGraph(storage, { threads: false })).graph;
});
afterAll(async () => {
  await storage.close();
});

describe('GigaMaps of a storage', () => {
  it('are found through the dictionary type and the graph', () => {
    expect(gigaMapIds(graph).map(String)).toEqual(dump.map((m) => m.objectId).sort());
  });
});

describe('_gigamap_entities', () => {
  it('has one row per (GigaMap, entity id, object id) EclipseStore reports, in columns', async () => {
    const rows: string[] = [];
    for await (const batch of gigaMapEntityRows(storage, gigaMapIds(graph))) {
      expect(batch.entityId).toBeInstanceOf(BigInt64Array);
      expect(batch.oid.length).toBe(batch.length);
      expect(batch.length).toBeLessThanOrEqual(BATCH_ROWS);
      for (let i = 0; i < batch.length; i++) rows.push(`${batch.gigamap} ${batch.entityId[i]} ${batch.oid[i]}`);
    }
    const want = dump.flatMap((m) => m.entities.map((e) => `${m.objectId} ${e.entityId} ${e.objectId}`));
    expect(rows.sort()).toEqual(want.sort());
  });
});

describe('_gigamap_index', () => {
  it("has one row per (GigaMap, index, key, entity) with the entities whose value is the key", async () => {
    const got = new Map<string, bigint[]>();
    for await (const batch of gigaMapIndexRows(storage, gigaMapIds(graph))) {
      expect(batch.keyRuns.reduce((a, b) => a + b, 0)).toBe(batch.length);
      let row = 0;
      batch.keys.forEach((key, i) => {
        const name = `${batch.gigamap}/${batch.indexName}/${key}`;
        const ids = got.get(name) ?? [];
        for (let r = 0; r < batch.keyRuns[i]!; r++) ids.push(batch.entityId[row++]!);
        got.set(name, ids);
      });
    }
    const want = new Map<string, bigint[]>();
    for (const map of dump) {
      for (const indexName of Object.keys(map.entities[0]!).filter((k) => k !== 'entityId' && k !== 'objectId')) {
        for (const [key, ids] of expectedKeys(map, indexName)) want.set(`${map.objectId}/${indexName}/${key}`, ids.map(BigInt));
      }
    }
    expect(got).toEqual(want);
    // "Employees per department" is one GROUP BY: here, persons per city.
    const graz = got.get(`${dump[0]!.objectId}/city/Graz`)!;
    expect(graz.length).toBe(dump[0]!.entities.filter((e) => e.city === 'Graz').length);
  });
});
