import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatError } from '../../src/errors.js';
import { isGigaMap, readGigaMap } from '../../src/gigamap/gigamap-structure.js';
import { readRecord, referenceColumn, referenceMember } from '../../src/gigamap/record-fields.js';
import { Storage } from '../../src/storage/storage.js';
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
beforeAll(async () => {
  storage = await Storage.open(GIGAMAP_STORAGE);
});
afterAll(async () => {
  await storage.close();
  removeCopies();
});

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
