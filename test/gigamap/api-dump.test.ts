import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGigaMap } from '../../src/gigamap/gigamap-structure.js';
import { readIndexKeys } from '../../src/gigamap/index-keys.js';
import { Storage } from '../../src/storage/storage.js';
import { expectedKeys, GIGAMAP_STORAGE, loadApiDump } from './gigamap-corpus.js';

/** Every GigaMap of the corpus against what EclipseStore's own GigaMap API reported for it. */

const dump = loadApiDump();
let storage: Storage;

beforeAll(async () => {
  storage = await Storage.open(GIGAMAP_STORAGE);
});
afterAll(async () => {
  await storage.close();
});

describe.each(dump.map((m) => [m.label, m] as const))('GigaMap %s', (_label, expected) => {
  it('has the size and every (entity id, object id) EclipseStore reports, in entity-id order', async () => {
    const map = await readGigaMap(storage, BigInt(expected.objectId));
    expect(map.size).toBe(BigInt(expected.size));
    expect(map.problems).toEqual([]);
    expect([...map.entityIds]).toEqual(expected.entities.map((e) => e.entityId));
    expect([...map.objectIds].map(String)).toEqual(expected.entities.map((e) => e.objectId));
  });

  it('lists under every index key exactly the entities whose indexed value is that key', async () => {
    const map = await readGigaMap(storage, BigInt(expected.objectId));
    const valueNames = Object.keys(expected.entities[0]!).filter((k) => k !== 'entityId' && k !== 'objectId');
    expect(map.indices.map((i) => i.name).sort()).toEqual([...valueNames].sort());
    for (const index of map.indices) {
      const keys = await readIndexKeys(storage, map, index);
      const want = expectedKeys(expected, index.name);
      const got = new Map<string, number[]>();
      for (let k = 0; k < keys.keyCount; k++) got.set(keys.keyText(k), [...keys.entities(k)]);
      expect(got, `index ${index.name}`).toEqual(want);
      // Each key is found by its text, whatever the index kind (a composite one by its tuple text).
      for (let k = 0; k < keys.keyCount; k++) expect(keys.find(keys.keyText(k)), `${index.name} ${keys.keyText(k)}`).toBe(k);
      expect(keys.find('no such key'), index.name).toBe(-1);
      expect(keys.entityCount).toBe(expected.entities.length);
      expect([...keys.strayIds]).toEqual([]);
    }
  });
});

describe('the persons GigaMap', () => {
  it('has a unique bit-sliced id index, a hashing city index and a composite birthday index of three parts', async () => {
    const map = await readGigaMap(storage, BigInt(dump.find((m) => m.label === 'persons')!.objectId));
    const byName = new Map(map.indices.map((i) => [i.name, i]));
    expect(byName.get('id')).toMatchObject({ kind: 'binary', unique: true });
    expect(byName.get('city')).toMatchObject({ kind: 'hashing', unique: false });
    expect(byName.get('birthday')).toMatchObject({ kind: 'composite', unique: false });
    expect(byName.get('birthday')!.parts.map((p) => p.kind)).toEqual(['part', 'part', 'part']);
    expect(map.level1Segments).toBe(20);
    expect(map.level2Segments).toBe(1);
  });

  it('lists keys in natural order: numbers numerically', async () => {
    const map = await readGigaMap(storage, BigInt(dump.find((m) => m.label === 'persons')!.objectId));
    const keys = await readIndexKeys(storage, map, map.indices.find((i) => i.name === 'id')!);
    const texts = Array.from({ length: keys.keyCount }, (_v, k) => BigInt(keys.keyText(k)));
    expect(texts).toEqual([...texts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    for (let k = 0; k < keys.keyCount; k++) expect(keys.count(k)).toBe(1);
  });

  it('lists hashing keys by UTF-16 code units and composite keys part by part, numbers numerically, a null date last', async () => {
    const persons = dump.find((m) => m.label === 'persons')!;
    const map = await readGigaMap(storage, BigInt(persons.objectId));
    const texts = async (name: string): Promise<string[]> => {
      const keys = await readIndexKeys(storage, map, map.indices.find((i) => i.name === name)!);
      return Array.from({ length: keys.keyCount }, (_v, k) => keys.keyText(k));
    };
    // Expected orders from EclipseStore's own values, sorted here: cities as Java's String order
    // (code units), birthdays as dates (month 10 after month 9, day 15 after day 2).
    const cities = [...new Set(persons.entities.map((e) => String(e.city)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(await texts('city')).toEqual(cities);
    const dates = [...new Set(persons.entities.map((e) => e.birthday).filter((d): d is string => typeof d === 'string'))].sort();
    const tuple = (d: string): string => `[${d.split('-').map(Number).join(', ')}]`;
    expect(dates.some((d) => d.slice(5, 7) === '10') && dates.some((d) => d.slice(5, 7) === '09')).toBe(true);
    expect(await texts('birthday')).toEqual([...dates.map(tuple), '[null]']);
  });
});
