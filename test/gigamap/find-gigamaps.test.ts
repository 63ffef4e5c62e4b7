import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gigaMapIds } from '../../src/gigamap/find-gigamaps.js';
import { GIGAMAP } from '../../src/gigamap/gigamap-type-names.js';
import { buildGraph } from '../../src/graph/build/graph-build.js';
import type { GraphIndex } from '../../src/graph/model/graph-index.js';
import { Storage } from '../../src/storage/storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';
import { GIGAMAP_STORAGE, loadApiDump } from './gigamap-corpus.js';

/**
 * The GigaMaps of a storage, from the graph index (find-gigamaps.ts), as exact ids in ascending
 * order: on EclipseStore's corpus, and on a tiny storage written here where the GigaMap type has
 * two versions whose instances interleave (the graph lists instances type by type, so the ids
 * come unordered until sorted), beside another type and a record whose type the dictionary lacks.
 */

let work: string;
let graph: GraphIndex;
let written: bigint[];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'find-gigamaps-'));
  const dir = join(work, 'storage');
  const writer = StorageWriter.create(dir, { now: () => 1_700_000_000_000, family: 'eclipsestore' });
  const first = writer.defineType(GIGAMAP, reflectiveMembers(GIGAMAP, [{ name: 'size', type: 'long' }]));
  const other = writer.defineType('t.Other', reflectiveMembers('t.Other', [{ name: 'size', type: 'long' }]));
  const second = writer.defineType(GIGAMAP, reflectiveMembers(GIGAMAP, [{ name: 'size', type: 'long' }, { name: 'more', type: 'int' }]));
  expect(first.typeId < second.typeId).toBe(true);
  written = Array.from({ length: 7 }, () => writer.newObjectId());
  const store = writer.beginStore();
  store.add(second, written[0]!, [1n, 1]);
  store.add(first, written[1]!, [2n]);
  store.add(other, written[2]!, [3n]);
  store.add(second, written[3]!, [4n, 4]);
  store.add(first, written[4]!, [5n]);
  store.add(first, written[5]!, [6n]);
  // A type id the dictionary does not hold: a graph type without an entry.
  store.add({ ...other, typeId: 999_999n }, written[6]!, [7n]);
  writer.store(store);
  writer.close();
  const storage = await Storage.open(dir);
  try {
    ({ graph } = await buildGraph(storage, { threads: false }));
  } finally {
    await storage.close();
  }
}, 60_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('gigaMapIds', () => {
  it('lists the instances of both GigaMap type versions in ascending id order, nothing else', () => {
    expect(graph.types.all().some((t) => t.entry === undefined)).toBe(true);
    expect(gigaMapIds(graph)).toEqual([written[0], written[1], written[3], written[4], written[5]]);
  });

  it('lists the GigaMaps of EclipseStore’s corpus by their object ids, ascending', async () => {
    const storage = await Storage.open(GIGAMAP_STORAGE);
    try {
      const { graph: corpus } = await buildGraph(storage, { threads: false });
      const expected = loadApiDump()
        .map((m) => BigInt(m.objectId))
        .sort((a, b) => (a < b ? -1 : 1));
      expect(expected.length).toBeGreaterThan(1);
      expect(gigaMapIds(corpus)).toEqual(expected);
    } finally {
      await storage.close();
    }
  });
});
