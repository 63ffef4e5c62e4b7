import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarizeEntity } from '../../src/gigamap/entity-summary.js';
import { gigaMapOf, indexKeysOf, type VersionedSource } from '../../src/gigamap/gigamap-cache.js';
import { gigaMapLazySegments, machineryInstances } from '../../src/gigamap/gigamap-machinery.js';
import { BITMAP_LEVEL2, GIGA_LEVEL1, GIGAMAP, LAZY } from '../../src/gigamap/gigamap-type-names.js';
import { buildGraph } from '../../src/graph/build/graph-build.js';
import { Storage } from '../../src/storage/storage.js';
import { GIGAMAP_STORAGE, loadApiDump } from './gigamap-corpus.js';

/**
 * The one-line entity summaries, the per-state cache of GigaMaps and their index keys, and the
 * machinery count, on the storage EclipseStore 4.1.0 wrote; what the summaries must say comes
 * from EclipseStore's own dump of every entity (id, city, birthday of a person; a tag's weight).
 */

const dump = loadApiDump();
const [persons, tags] = [dump.find((m) => m.label === 'persons')!, dump.find((m) => m.label === 'tags')!];
let storage: Storage;

beforeAll(async () => {
  storage = await Storage.open(GIGAMAP_STORAGE);
});
afterAll(async () => {
  await storage.close();
});

/** The storage as a source of another state (`generation`), reading the same records. */
function stateOf(generation: number | undefined): VersionedSource {
  return { dictionary: storage.dictionary, readEntity: (id) => storage.readEntity(id), ...(generation === undefined ? {} : { generation }) };
}

describe('summarizeEntity', () => {
  it('names a person’s members with the values EclipseStore dumped, value types as their Java text, a null reference as null', async () => {
    expect(persons.entities.some((e) => e.birthday === null)).toBe(true);
    for (const e of persons.entities.slice(0, 150)) {
      const s = await summarizeEntity(storage, BigInt(e.objectId));
      expect(s.typeName).toBe('conformance.gigamap.Person');
      expect(s.summary).toMatch(new RegExp(`^Person\\{name=[^,=]+ [^,=]+, city=${e.city}, birthday=${e.birthday ?? 'null'}, id=${e.id}, score=\\d+\\}$`));
    }
  });

  it('names a tag by its label and weight', async () => {
    for (const e of tags.entities) {
      const s = await summarizeEntity(storage, BigInt(e.objectId));
      expect(s).toEqual({ typeName: 'conformance.gigamap.Tag', summary: expect.stringMatching(new RegExp(`^Tag\\{label=tag-\\d+[^,]*, weight=${e.weight}\\}$`)) });
    }
  });

  it('says what a JDK constant id is, and that an id without a record is missing', async () => {
    expect(await summarizeEntity(storage, 9_000_000_000_000_002_001n)).toEqual({ typeName: 'java.lang.Boolean', summary: 'true' });
    expect(await summarizeEntity(storage, 999_999_999_999n)).toEqual({ typeName: null, summary: 'missing object 999999999999' });
  });
});

describe('the GigaMap cache', () => {
  it('reads a map once per state, and anew for another generation', async () => {
    const id = BigInt(persons.objectId);
    const first = gigaMapOf(storage, id);
    expect(gigaMapOf(storage, id)).toBe(first);
    expect((await first).size).toBe(BigInt(persons.size));
    const later = stateOf(1);
    const again = gigaMapOf(later, id);
    expect(gigaMapOf(later, id)).toBe(again);
    expect(gigaMapOf(stateOf(2), id)).not.toBe(again);
  });

  it('reads anew when the same source moves to another state (its generation changes), back and forth', async () => {
    const id = BigInt(persons.objectId);
    const source = { dictionary: storage.dictionary, readEntity: (oid: bigint) => storage.readEntity(oid), generation: 1 };
    const one = gigaMapOf(source, id);
    expect(gigaMapOf(source, id)).toBe(one);
    source.generation = 2;
    const two = gigaMapOf(source, id);
    expect(two).not.toBe(one);
    expect(gigaMapOf(source, id)).toBe(two);
    expect((await two).size).toBe(BigInt(persons.size));
  });

  it('a failed read of an older state does not drop the newer state’s map', async () => {
    const id = BigInt(persons.objectId);
    // The older state's records are gone (as after a compaction): its read fails once the newer one has begun.
    let gone = true;
    const source = {
      dictionary: storage.dictionary,
      readEntity: (oid: bigint) => (gone ? Promise.reject(new Error('the file of the older state is gone')) : storage.readEntity(oid)),
      generation: 1,
    };
    const older = gigaMapOf(source, id);
    older.catch(() => undefined);
    gone = false;
    source.generation = 2;
    const newer = gigaMapOf(source, id);
    await expect(older).rejects.toThrow('the file of the older state is gone');
    expect(gigaMapOf(source, id)).toBe(newer);
    expect((await newer).size).toBe(BigInt(persons.size));
  });

  it('does not keep a failed read of an index’s keys: the next request reads them again', async () => {
    const id = BigInt(persons.objectId);
    let failing = false;
    const source = {
      dictionary: storage.dictionary,
      readEntity: (oid: bigint) => (failing ? Promise.reject(new Error('the bitmaps cannot be read')) : storage.readEntity(oid)),
      generation: 3,
    };
    await gigaMapOf(source, id);
    failing = true;
    await expect(indexKeysOf(source, id, 'city')).rejects.toThrow('the bitmaps cannot be read');
    failing = false;
    const city = await indexKeysOf(source, id, 'city');
    expect(city?.keys.keyCount).toBe(new Set(persons.entities.map((e) => e.city)).size);
    expect((await indexKeysOf(source, id, 'city'))?.keys).toBe(city?.keys);
  });

  it('keeps the four maps used last: a fifth pushes out the one used longest ago', async () => {
    const source = stateOf(undefined);
    const [a, b] = [BigInt(persons.objectId), BigInt(tags.objectId)];
    // Ids that are no GigaMap: their reads fail, but only after this synchronous sequence.
    const noMap = (id: bigint): Promise<unknown> => {
      const p = gigaMapOf(source, id);
      p.catch(() => undefined);
      return p;
    };
    const first = gigaMapOf(source, a);
    const failing = [noMap(1n), noMap(2n), noMap(3n)]; // kept: a 1 2 3
    expect(gigaMapOf(source, a)).toBe(first); // 1 2 3 a
    const other = gigaMapOf(source, b); // 2 3 a b (1 pushed out)
    expect(gigaMapOf(source, a)).toBe(first); // 2 3 b a
    failing.push(noMap(4n), noMap(5n)); // b a 4 5
    expect(gigaMapOf(source, b)).toBe(other); // a 4 5 b
    failing.push(noMap(6n)); // 4 5 b 6: a pushed out
    const anew = gigaMapOf(source, a);
    expect(anew).not.toBe(first);
    await Promise.allSettled(failing);
    expect((await anew).size).toBe(BigInt(persons.size));
  });

  it('does not keep a failed read: the next request reads again', async () => {
    const source = stateOf(7);
    const failed = gigaMapOf(source, 1n);
    await expect(failed).rejects.toThrow();
    const next = gigaMapOf(source, 1n);
    expect(next).not.toBe(failed);
    await expect(next).rejects.toThrow();
  });

  it('reads an index’s keys once, and answers undefined for an index the map does not have', async () => {
    const id = BigInt(persons.objectId);
    const city = await indexKeysOf(storage, id, 'city');
    expect(city?.index.name).toBe('city');
    expect((await indexKeysOf(storage, id, 'city'))?.keys).toBe(city?.keys);
    expect(new Set(persons.entities.map((e) => e.city)).size).toBe(city?.keys.keyCount);
    expect(await indexKeysOf(storage, id, 'no such index')).toBeUndefined();
  });
});

describe('machineryInstances', () => {
  it('counts every instance of the module’s types, of Lazy at most the levels’ references, of other types none', () => {
    expect(machineryInstances(GIGAMAP, 2, 5)).toBe(2);
    expect(machineryInstances(GIGA_LEVEL1, 21, 0)).toBe(21);
    expect(machineryInstances(BITMAP_LEVEL2, 7, 3)).toBe(7);
    expect(machineryInstances(LAZY, 30, 23)).toBe(23);
    expect(machineryInstances(LAZY, 10, 23)).toBe(10);
    expect(machineryInstances('conformance.gigamap.Person', 4919, 23)).toBe(0);
  });
});

describe('gigaMapLazySegments', () => {
  it('counts the Lazy references the levels hold: in this storage every Lazy$Default, one per GigaLevel1 and GigaLevel2', async () => {
    const graph = (await buildGraph(storage, { threads: false })).graph;
    const instances = new Map<string, number>();
    for (let n = 0; n < graph.nodeCount; n++) {
      if (!graph.isStored(n)) continue;
      const name = graph.types.nameOf(graph.typeOf(n));
      instances.set(name, (instances.get(name) ?? 0) + 1);
    }
    const lazies = instances.get(LAZY)!;
    expect(lazies).toBe(instances.get(GIGA_LEVEL1)! + instances.get('org.eclipse.store.gigamap.types.GigaLevel2')!);
    const counted = gigaMapLazySegments(storage, graph);
    expect(gigaMapLazySegments(storage, graph)).toBe(counted); // once per state of the graph
    expect(await counted).toBe(lazies);
  });
});
