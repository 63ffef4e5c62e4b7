import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatError } from '../../src/errors.js';
import { isGigaMap, readGigaMap } from '../../src/gigamap/gigamap-structure.js';
import { LAZY } from '../../src/gigamap/gigamap-type-names.js';
import { readRecord, referenceColumn, referenceMember } from '../../src/gigamap/record-fields.js';
import { Storage } from '../../src/storage/storage.js';
import { gigaMapIds } from '../../src/gigamap/find-gigamaps.js';
import { buildGraph } from '../../src/graph/build/graph-build.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { damagedCopy, long, placeOf, removeCopies } from './damaged-copy.js';
import { GIGAMAP_STORAGE, loadApiDump } from './gigamap-corpus.js';

/**
 * `readGigaMap` (gigamap-structure.ts) on copies of the corpus storage with one member changed:
 * the walk refuses impossible level exponents and a Lazy without a subject, and reports the
 * rest as problems (an entity id not below `currentId`); a map without level 3 or without indices
 * reads as empty of them; an index whose name is gone is named by its id.
 */

const dump = loadApiDump();
const persons = dump.find((m) => m.label === 'persons')!;
const id = BigInt(persons.objectId);
const lastEntityId = Math.max(...persons.entities.map((e) => e.entityId));

function int(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(value);
  return b;
}

/** readGigaMap of the persons map in a copy with the patches applied. */
async function readDamaged(damage: Parameters<typeof damagedCopy>[0]) {
  const dir = await damagedCopy(damage);
  const storage = await Storage.open(dir);
  try {
    return await readGigaMap(storage, id).catch((error: unknown) => error);
  } finally {
    await storage.close();
  }
}

let storage: Storage;
let work: string;
let generated: Storage;
let generatedMap: bigint;
const GENERATED = 10_000;
beforeAll(async () => {
  storage = await Storage.open(GIGAMAP_STORAGE);
  // 10,000 entities in level-1 segments of 256: 40 of them, more than one read-ahead window of 32.
  work = mkdtempSync(join(tmpdir(), 'gigamap-structure-'));
  generateStorage({ directory: join(work, 's'), entities: 100, family: 'eclipsestore', gigamap: GENERATED, seed: 9 });
  generated = await Storage.open(join(work, 's'));
  generatedMap = gigaMapIds((await buildGraph(generated, { threads: false })).graph)[0]!;
}, 120_000);
afterAll(async () => {
  await storage.close();
  await generated?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
  removeCopies();
});

/** Stored bytes of a record (header and content). */
async function stored(from: Storage, objectId: bigint): Promise<number> {
  return 24 + (await from.readEntity(objectId))!.content.length;
}

/** The level records of a map walked by hand: level 3, each Lazy and level 2, each Lazy and level 1; their bytes. */
async function levelsByHand(from: Storage, mapId: bigint): Promise<{ level2: number; level1: number; bytes: number }> {
  const level3Id = referenceMember((await readRecord(from, mapId))!, 'level3');
  let bytes = await stored(from, level3Id);
  let level2 = 0;
  let level1 = 0;
  for (const lazy2 of referenceColumn((await readRecord(from, level3Id))!, 'segments')) {
    if (lazy2 === 0n) continue;
    const l2 = referenceMember((await readRecord(from, lazy2))!, 'subject');
    bytes += (await stored(from, lazy2)) + (await stored(from, l2));
    level2++;
    for (const lazy1 of referenceColumn((await readRecord(from, l2))!, 'segments')) {
      if (lazy1 === 0n) continue;
      const l1 = referenceMember((await readRecord(from, lazy1))!, 'subject');
      bytes += (await stored(from, lazy1)) + (await stored(from, l1));
      level1++;
    }
  }
  return { level2, level1, bytes };
}

describe('readGigaMap', () => {
  it('reads EclipseStore’s map whole: entity ids and object ids as dumped, no problems', async () => {
    const map = await readGigaMap(storage, id);
    expect([...map.entityIds]).toEqual(persons.entities.map((e) => e.entityId).sort((a, b) => a - b));
    const byEntity = new Map(persons.entities.map((e) => [e.entityId, e.objectId]));
    expect([...map.objectIds].map(String)).toEqual([...map.entityIds].map((e) => byEntity.get(e)));
    expect([map.size, map.problems]).toEqual([BigInt(persons.size), []]);
    expect(map.currentId).toBeGreaterThan(BigInt(lastEntityId));
    expect([await isGigaMap(storage, id), await isGigaMap(storage, BigInt(persons.entities[0]!.objectId)), await isGigaMap(storage, 999_999_999_999n)]).toEqual([true, false, false]);
  });

  it('counts the segments walked and the bytes of every level and Lazy record', async () => {
    const map = await readGigaMap(storage, id);
    const byHand = await levelsByHand(storage, id);
    expect(byHand.level1).toBeGreaterThan(1);
    expect([map.level2Segments, map.level1Segments, map.segmentBytes]).toEqual([byHand.level2, byHand.level1, byHand.bytes]);
  });

  it('reads a map of more level-1 segments than one read-ahead window whole, in order', async () => {
    const map = await readGigaMap(generated, generatedMap);
    expect([map.entityIds.length, map.objectIds.length, map.problems]).toEqual([GENERATED, GENERATED, []]);
    expect([...map.entityIds]).toEqual(Array.from({ length: GENERATED }, (_v, i) => i));
    const byHand = await levelsByHand(generated, generatedMap);
    expect(byHand.level1).toBe(Math.ceil(GENERATED / 256));
    expect([map.level2Segments, map.level1Segments, map.segmentBytes]).toEqual([byHand.level2, byHand.level1, byHand.bytes]);
    const last = (await readRecord(generated, map.objectIds[GENERATED - 1]!))!;
    expect(last.typeName).toBe('conformance.gigamap.Person');
  });

  it('reads each index with its kind, uniqueness and parts: a composite’s parts never unique', async () => {
    const map = await readGigaMap(storage, id);
    const byName = new Map(map.indices.map((i) => [i.name, i]));
    expect([...byName.keys()].sort()).toEqual(['birthday', 'city', 'id']);
    expect(['city', 'id', 'birthday'].map((n) => [byName.get(n)!.kind, byName.get(n)!.unique, byName.get(n)!.parts.length])).toEqual([
      ['hashing', false, 0],
      ['binary', true, 0],
      ['composite', false, 3],
    ]);
    expect(byName.get('birthday')!.parts.map((p) => [p.kind, p.unique])).toEqual([
      ['part', false],
      ['part', false],
      ['part', false],
    ]);
  });

  it('skips index groups, tables, indices and parts that are missing or of another type; an index name that is no String reads as its type and id', async () => {
    const person = BigInt(persons.entities[0]!.objectId);
    const gone = 999_999_999_999n;
    const intact = await readGigaMap(storage, id);
    const city = intact.indices.find((i) => i.name === 'city')!.objectId;
    const birthday = intact.indices.find((i) => i.name === 'birthday')!;
    /** The map's indices record, its first group and that group's table of indices. */
    const parts = async (s: Storage) => {
      const indices = referenceMember((await readRecord(s, id))!, 'indices');
      const group = referenceColumn((await readRecord(s, indices))!, 'indexGroups')[0]!;
      const table = referenceMember((await readRecord(s, group))!, 'bitmapIndices');
      const at = [...referenceColumn((await readRecord(s, table))!, 'elements', 1)].indexOf(city);
      return { indices, group, table, at };
    };
    const names = async (damage: Parameters<typeof damagedCopy>[0]): Promise<string[]> => {
      const map = (await readDamaged(damage)) as Awaited<ReturnType<typeof readGigaMap>>;
      return map.indices.map((i) => (i.kind === 'composite' ? `${i.name}:${i.parts.length}` : i.name)).sort();
    };
    expect(await names(async (s) => [{ ...(await placeOf(s, id, 'indices')), bytes: long(person) }])).toEqual([]);
    expect(await names(async (s) => [{ ...(await placeOf(s, (await parts(s)).indices, 'indexGroups', 0)), bytes: long(gone) }])).toEqual([]);
    expect(await names(async (s) => [{ ...(await placeOf(s, (await parts(s)).indices, 'indexGroups', 0)), bytes: long(person) }])).toEqual([]);
    expect(await names(async (s) => [{ ...(await placeOf(s, (await parts(s)).group, 'bitmapIndices')), bytes: long(0n) }])).toEqual([]);
    const { at } = await parts(storage);
    expect(at).toBeGreaterThanOrEqual(0);
    for (const other of [gone, person]) {
      expect(await names(async (s) => [{ ...(await placeOf(s, (await parts(s)).table, 'elements', 2 * at + 1)), bytes: long(other) }])).toEqual(['birthday:3', 'id']);
    }
    expect(await names(async (s) => [{ ...(await placeOf(s, birthday.objectId, 'subIndices', 1)), bytes: long(gone) }])).toEqual(['birthday:2', 'city', 'id']);
    expect(await names(async (s) => [{ ...(await placeOf(s, city, 'name')), bytes: long(person) }])).toEqual(['birthday:3', `conformance.gigamap.Person@${person}`, 'id']);
  });

  it('refuses an id that is no GigaMap, naming what was wanted', async () => {
    const person = BigInt(persons.entities[0]!.objectId);
    await expect(readGigaMap(storage, person)).rejects.toThrow(`GigaMap ${person} is a conformance.gigamap.Person, not org.eclipse.store.gigamap.types.GigaMap$Default`);
  });

  it('refuses a level 3, a Lazy or a level 2 that is a record of another type, naming what was wanted', async () => {
    const person = BigInt(persons.entities[0]!.objectId);
    const notType = (what: string, type: string): string => `${what} ${person} is a conformance.gigamap.Person, not ${type.includes('.') ? type : `org.eclipse.store.gigamap.types.${type}`}`;
    const level3 = await readDamaged(async (s) => [{ ...(await placeOf(s, id, 'level3')), bytes: long(person) }]);
    expect((level3 as FormatError).message).toContain(`: ${notType('GigaLevel3', 'GigaLevel3')}`);
    const lazy = await readDamaged(async (s) => [{ ...(await placeOf(s, referenceMember((await readRecord(s, id))!, 'level3'), 'segments', 0)), bytes: long(person) }]);
    expect((lazy as FormatError).message).toContain(`: ${notType('Lazy segment reference', LAZY)}`);
    const level2 = await readDamaged(async (s) => {
      const lazy2 = referenceColumn((await readRecord(s, referenceMember((await readRecord(s, id))!, 'level3')))!, 'segments')[0]!;
      return [{ ...(await placeOf(s, lazy2, 'subject')), bytes: long(person) }];
    });
    expect((level2 as FormatError).message).toContain(`: ${notType('GigaLevel2', 'GigaLevel2')}`);
  });

  it('reads a level 3 whose only slot is empty as holding no entity', async () => {
    const map = (await readDamaged(async (s) => [{ ...(await placeOf(s, referenceMember((await readRecord(s, id))!, 'level3'), 'segments', 0)), bytes: long(0n) }])) as Awaited<ReturnType<typeof readGigaMap>>;
    expect([map.entityIds.length, map.level2Segments, map.level1Segments]).toEqual([0, 0, 0]);
    expect(map.problems).toEqual([`size is ${persons.size} but 0 entities are listed in the segments (a damaged GigaMap)`]);
  });

  it('reads a map whose size claims 2^32 - 1 entities as the entities its segments list, with the size as a problem', async () => {
    // A damaged count once sized the id columns whole (34 GB for this one): they now start at most
    // at a million entities and grow with what the segments list.
    const map = (await readDamaged(async (s) => [{ ...(await placeOf(s, id, 'size')), bytes: long(2n ** 32n - 1n) }])) as Awaited<ReturnType<typeof readGigaMap>>;
    expect(map.entityIds.length).toBe(persons.size);
    expect(map.problems).toEqual([`size is ${2 ** 32 - 1} but ${persons.size} entities are listed in the segments (a damaged GigaMap)`]);
  });

  it('reports a level 2 with more slots than its exponent allows', async () => {
    const map = (await readDamaged(async (s) => [{ ...(await placeOf(s, id, 'level2LengthExponent')), bytes: int(9) }])) as Awaited<ReturnType<typeof readGigaMap>>;
    const level2 = referenceMember((await readRecord(storage, referenceColumn((await readRecord(storage, referenceMember((await readRecord(storage, id))!, 'level3')))!, 'segments')[0]!))!, 'subject');
    expect(map.problems).toEqual([`level-2 segment ${level2} has 1024 slots, more than 2^9`]);
  });

  it('refuses level exponents that add up to more than 40, or a negative one', async () => {
    for (const [e1, e2] of [
      [30, 11],
      [-1, 5],
      [5, -1],
    ] as const) {
      const error = await readDamaged(async (s) => [
        { ...(await placeOf(s, id, 'level1LengthExponent')), bytes: int(e1) },
        { ...(await placeOf(s, id, 'level2LengthExponent')), bytes: int(e2) },
      ]);
      expect(error).toBeInstanceOf(FormatError);
      expect((error as FormatError).message).toMatch(new RegExp(`GigaMap ${id} has level exponents ${e1} and ${e2}$`));
      expect([(error as FormatError).code, (error as FormatError).offset]).toEqual(['FORMAT_BAD_RECORD', (await readRecord(storage, id))!.contentOffset]);
    }
  });

  it('takes exponents that add up to exactly 40, and reports slot counts that do not match them', async () => {
    const map = await readDamaged(async (s) => [
      { ...(await placeOf(s, id, 'level1LengthExponent')), bytes: int(30) },
      { ...(await placeOf(s, id, 'level2LengthExponent')), bytes: int(10) },
    ]);
    expect(map).not.toBeInstanceOf(Error);
    const problems = (map as Awaited<ReturnType<typeof readGigaMap>>).problems;
    expect(problems.filter((p) => /^level-1 segment \d+ has \d+ slots, not 2\^30$/.test(p)).length).toBeGreaterThan(0);
    // An exponent of 0 is allowed (one slot per segment): read, its slot counts reported.
    for (const [e1, e2] of [
      [0, 10],
      [8, 0],
    ] as const) {
      const zero = await readDamaged(async (s) => [
        { ...(await placeOf(s, id, 'level1LengthExponent')), bytes: int(e1) },
        { ...(await placeOf(s, id, 'level2LengthExponent')), bytes: int(e2) },
      ]);
      expect(zero, `${e1} and ${e2}`).not.toBeInstanceOf(Error);
      expect((zero as Awaited<ReturnType<typeof readGigaMap>>).problems.length, `${e1} and ${e2}`).toBeGreaterThan(0);
    }
  });

  it('reports an entity id that is not below currentId', async () => {
    const map = (await readDamaged(async (s) => [{ ...(await placeOf(s, id, 'currentId')), bytes: long(BigInt(lastEntityId)) }])) as Awaited<ReturnType<typeof readGigaMap>>;
    expect(map.problems).toEqual([`entity id ${lastEntityId} is not below currentId ${lastEntityId}`]);
  });

  it('refuses a Lazy segment reference without a subject', async () => {
    let lazy = 0n;
    const error = await readDamaged(async (s) => {
      const level3 = (await readRecord(s, referenceMember((await readRecord(s, id))!, 'level3')))!;
      lazy = referenceColumn(level3, 'segments')[0]!;
      return [{ ...(await placeOf(s, lazy, 'subject')), bytes: long(0n) }];
    });
    expect(error).toBeInstanceOf(FormatError);
    expect((error as FormatError).message).toMatch(new RegExp(`Lazy ${lazy} of a GigaMap has no subject$`));
    expect([(error as FormatError).code, (error as FormatError).offset]).toEqual(['FORMAT_BAD_RECORD', (await readRecord(storage, lazy))!.contentOffset]);
  });

  it('reads a map without level 3 as holding no entity, and one without indices as having none', async () => {
    const noLevel3 = (await readDamaged(async (s) => [{ ...(await placeOf(s, id, 'level3')), bytes: long(0n) }])) as Awaited<ReturnType<typeof readGigaMap>>;
    expect([noLevel3.entityIds.length, noLevel3.level1Segments, noLevel3.level2Segments, noLevel3.segmentBytes]).toEqual([0, 0, 0, 0]);
    expect(noLevel3.problems).toEqual([`size is ${persons.size} but 0 entities are listed in the segments (a damaged GigaMap)`]);
    const noIndices = (await readDamaged(async (s) => [{ ...(await placeOf(s, id, 'indices')), bytes: long(0n) }])) as Awaited<ReturnType<typeof readGigaMap>>;
    expect([noIndices.indices, noIndices.entityIds.length]).toEqual([[], persons.size]);
  });

  it('names an index whose name record is gone by its object id', async () => {
    const intact = await readGigaMap(storage, id);
    const city = intact.indices.find((i) => i.name === 'city')!;
    const map = (await readDamaged(async (s) => [{ ...(await placeOf(s, city.objectId, 'name')), bytes: long(999_999_999_999n) }])) as Awaited<ReturnType<typeof readGigaMap>>;
    expect(map.indices.map((i) => i.name).sort()).toEqual(['birthday', 'id', `index@${city.objectId}`].sort());
  });
});
