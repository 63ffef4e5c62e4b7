import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gigaMapIds } from '../../src/gigamap/find-gigamaps.js';
import { readGigaMap } from '../../src/gigamap/gigamap-structure.js';
import { readIndexKeys } from '../../src/gigamap/index-keys.js';
import { BATCH_ROWS, gigaMapEntityRows, gigaMapIndexRows, type GigaMapIndexBatch } from '../../src/gigamap/sql-rows.js';
import { buildGraph } from '../../src/graph/build/graph-build.js';
import { Storage } from '../../src/storage/storage.js';
import { generatedPersonId } from '../../src/writer/generator/gigamap-writer.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { damagedCopy, long, placeOf, removeCopies } from './damaged-copy.js';
import { loadApiDump } from './gigamap-corpus.js';

/**
 * The SQL rows of a GigaMap (sql-rows.ts) where they are cut into batches of 65,536: a generated
 * GigaMap of 70,000 persons (entity ids 0…69,999, `id` = 100000 + 7 × entity id) gives a full
 * batch and one of 4,464 for its entities and for each index, a city's run of entities split
 * across the two; a GigaMap whose `id` index has no key (every id 0) gives no batch for it; the
 * `indexNames` filter reads only the indices named; a GigaMap without entities (a copy of the
 * corpus whose map lost its level 3) gives no entity batch, not an empty one.
 */

const ENTITIES = 70_000;
let work: string;
let big: Storage;
let empty: Storage;
let bigMap: bigint;
let emptyMap: bigint;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sql-row-batches-'));
  generateStorage({ directory: join(work, 'big'), entities: 100, family: 'eclipsestore', gigamap: ENTITIES, seed: 5 });
  generateStorage({ directory: join(work, 'empty'), entities: 100, family: 'eclipsestore', gigamap: 3, seed: 5, gigamapKeys: { id: () => 0n } });
  big = await Storage.open(join(work, 'big'));
  empty = await Storage.open(join(work, 'empty'));
  bigMap = gigaMapIds((await buildGraph(big, { threads: false })).graph)[0]!;
  emptyMap = gigaMapIds((await buildGraph(empty, { threads: false })).graph)[0]!;
}, 120_000);

afterAll(async () => {
  await big?.close();
  await empty?.close();
  rmSync(work, { recursive: true, force: true });
  removeCopies();
});

async function indexBatches(storage: Storage, map: bigint, indexNames?: readonly string[]): Promise<GigaMapIndexBatch[]> {
  const out: GigaMapIndexBatch[] = [];
  for await (const b of gigaMapIndexRows(storage, [map], indexNames === undefined ? {} : { indexNames })) out.push(b);
  return out;
}

describe('_gigamap_entities in batches', () => {
  it('70,000 entities: a batch of 65,536 and one of 4,464, each row its entity id and object id', async () => {
    const structure = await readGigaMap(big, bigMap);
    const batches = [];
    for await (const b of gigaMapEntityRows(big, [bigMap])) batches.push(b);
    expect(batches.map((b) => [b.length, b.entityId.length, b.oid.length, b.gigamap])).toEqual([
      [BATCH_ROWS, BATCH_ROWS, BATCH_ROWS, bigMap],
      [ENTITIES - BATCH_ROWS, ENTITIES - BATCH_ROWS, ENTITIES - BATCH_ROWS, bigMap],
    ]);
    const second = batches[1]!;
    expect([second.entityId[0], second.entityId[second.length - 1]]).toEqual([BigInt(BATCH_ROWS), BigInt(ENTITIES - 1)]);
    expect([second.oid[0], second.oid[second.length - 1]]).toEqual([structure.objectIds[BATCH_ROWS], structure.objectIds[ENTITIES - 1]]);
    const entityIds = batches.flatMap((b) => [...b.entityId]);
    expect(entityIds).toEqual(Array.from({ length: ENTITIES }, (_v, i) => BigInt(i)));
    expect(batches.flatMap((b) => [...b.oid])).toEqual([...structure.objectIds]);
  });
});

describe('_gigamap_entities of a map without entities', () => {
  it('gives no batch, not an empty one', async () => {
    const [persons, tags] = loadApiDump().map((m) => BigInt(m.objectId));
    const dir = await damagedCopy(async (s) => [{ ...(await placeOf(s, persons!, 'level3')), bytes: long(0n) }]);
    const storage = await Storage.open(dir);
    try {
      const batches = [];
      for await (const b of gigaMapEntityRows(storage, [persons!, tags!])) batches.push([b.gigamap, b.length]);
      expect(batches).toEqual([[tags!, loadApiDump()[1]!.entities.length]]);
    } finally {
      await storage.close();
    }
  });
});

describe('_gigamap_index in batches', () => {
  it('the unique id index: one key per entity in id order, cut after 65,536 rows', async () => {
    const batches = await indexBatches(big, bigMap, ['id']);
    expect(batches.map((b) => [b.indexName, b.length, b.entityId.length, b.keys.length, b.keyRuns.length])).toEqual([
      ['id', BATCH_ROWS, BATCH_ROWS, BATCH_ROWS, BATCH_ROWS],
      ['id', ENTITIES - BATCH_ROWS, ENTITIES - BATCH_ROWS, ENTITIES - BATCH_ROWS, ENTITIES - BATCH_ROWS],
    ]);
    const second = batches[1]!;
    expect([second.keys[0], second.entityId[0], second.keyRuns[0]]).toEqual([String(generatedPersonId(BATCH_ROWS)), BigInt(BATCH_ROWS), 1]);
    expect(batches.flatMap((b) => [...b.entityId])).toEqual(Array.from({ length: ENTITIES }, (_v, i) => BigInt(i)));
    expect(batches.flatMap((b) => b.keys)).toEqual(Array.from({ length: ENTITIES }, (_v, i) => String(generatedPersonId(i))));
  });

  it('the city index: every key’s entities in key order, the run at the cut split between the batches', async () => {
    const batches = await indexBatches(big, bigMap, ['city']);
    expect(batches.map((b) => [b.indexName, b.length, b.entityId.length])).toEqual([
      ['city', BATCH_ROWS, BATCH_ROWS],
      ['city', ENTITIES - BATCH_ROWS, ENTITIES - BATCH_ROWS],
    ]);
    const structure = await readGigaMap(big, bigMap);
    const keys = await readIndexKeys(big, structure, structure.indices.find((i) => i.name === 'city')!);
    const rows: [string, bigint][] = [];
    for (const b of batches) {
      expect(b.keyRuns.reduce((a, n) => a + n, 0)).toBe(b.length);
      let row = 0;
      b.keys.forEach((key, j) => {
        for (let r = 0; r < b.keyRuns[j]!; r++) rows.push([key, b.entityId[row++]!]);
      });
    }
    const want: [string, bigint][] = [];
    for (let k = 0; k < keys.keyCount; k++) for (const e of keys.entities(k)) want.push([keys.keyText(k), BigInt(e)]);
    expect(want.length).toBe(ENTITIES);
    expect(rows).toEqual(want);
    // The key whose run reaches past row 65,536 ends the first batch and starts the second.
    const [first, second] = batches as [GigaMapIndexBatch, GigaMapIndexBatch];
    expect(first.keys[first.keys.length - 1]).toBe(second.keys[0]);
    expect(new Set(first.keys).size + new Set(second.keys).size).toBe(keys.keyCount + 1);
  });

  it('every index in the map’s order without a filter; none for names the map lacks', async () => {
    const all = await indexBatches(big, bigMap);
    expect(all.map((b) => [b.indexName, b.length])).toEqual([
      ['id', BATCH_ROWS],
      ['id', ENTITIES - BATCH_ROWS],
      ['city', BATCH_ROWS],
      ['city', ENTITIES - BATCH_ROWS],
    ]);
    expect((await readGigaMap(big, bigMap)).indices.map((i) => i.name)).toEqual(['id', 'city']);
    expect(await indexBatches(big, bigMap, ['town'])).toEqual([]);
  });

  it('an index without any key gives no batch, not an empty one', async () => {
    const batches = await indexBatches(empty, emptyMap);
    expect(batches.map((b) => [b.indexName, b.length])).toEqual([['city', 3]]);
    expect(await indexBatches(empty, emptyMap, ['id'])).toEqual([]);
  });
});
