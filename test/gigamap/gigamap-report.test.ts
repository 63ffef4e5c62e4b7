import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGigaMap } from '../../src/gigamap/gigamap-structure.js';
import { reportGigaMap, reportGigaMaps } from '../../src/gigamap/gigamap-report.js';
import { readRecord, referenceColumn, referenceMember } from '../../src/gigamap/record-fields.js';
import { Storage } from '../../src/storage/storage.js';
import { damagedCopy, long, placeOf, removeCopies } from './damaged-copy.js';
import { expectedKeys, GIGAMAP_STORAGE, loadApiDump } from './gigamap-corpus.js';

/**
 * What `analyze` and `check` say about a GigaMap (gigamap-report.ts), against EclipseStore's own
 * dump of the corpus: every index with its kind, keys and entities; a record that is no GigaMap;
 * a unique index with repeated keys, listed as far as the finding lists them.
 */

const dump = loadApiDump();
const persons = dump.find((m) => m.label === 'persons')!;
const tags = dump.find((m) => m.label === 'tags')!;
let storage: Storage;

beforeAll(async () => {
  storage = await Storage.open(GIGAMAP_STORAGE);
});
afterAll(async () => {
  await storage.close();
  removeCopies();
});

describe('reportGigaMap', () => {
  it('describes each GigaMap EclipseStore wrote: size, slots, indices with their keys and entities, no findings', async () => {
    const reports = await reportGigaMaps(storage, [BigInt(persons.objectId), BigInt(tags.objectId)]);
    expect(reports.map((r) => [r.objectId, r.size, r.listed, r.findings])).toEqual([
      [persons.objectId, String(persons.size), persons.size, []],
      [tags.objectId, String(tags.size), tags.size, []],
    ]);
    const p = reports[0]!;
    const byName = new Map(p.indices.map((i) => [i.name, i]));
    expect([...byName.keys()].sort()).toEqual(['birthday', 'city', 'id']);
    for (const name of ['city', 'birthday']) {
      const want = expectedKeys(persons, name);
      expect([byName.get(name)!.keys, byName.get(name)!.entities], name).toEqual([want.size, persons.size]);
    }
    expect([byName.get('id')!.kind, byName.get('id')!.unique, byName.get('id')!.entities]).toEqual(['binary', true, persons.size]);
    expect([byName.get('city')!.kind, byName.get('city')!.unique]).toEqual(['hashing', false]);
    expect(p.bitmapBytes).toBe(p.indices.reduce((n, i) => n + i.bitmapBytes, 0));
    expect(p.indices.every((i) => i.bitmapBytes > 0)).toBe(true);
    const structure = await readGigaMap(storage, BigInt(persons.objectId));
    expect([p.currentId, p.level1Segments, p.level2Segments, p.segmentBytes]).toEqual([
      String(structure.currentId),
      structure.level1Segments,
      structure.level2Segments,
      structure.segmentBytes,
    ]);
    expect(p.level1Segments).toBeGreaterThan(1);
  });

  it('reports a record that is no GigaMap as unreadable, naming it', async () => {
    const id = persons.entities[0]!.objectId;
    const report = await reportGigaMap(storage, BigInt(id));
    expect([report.size, report.listed, report.currentId, report.indices, report.bitmapBytes, report.level1Segments]).toEqual(['?', 0, '?', [], 0, 0]);
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]!.code).toBe('GIGAMAP_UNREADABLE');
    expect(report.findings[0]!.message).toMatch(new RegExp(`^GigaMap ${id} cannot be read: .*${id}`));
  });

  it('lists five repeated keys of a unique index, five entities each, and says how many there are', async () => {
    const id = BigInt(persons.objectId);
    const dir = await damagedCopy(async (s) => {
      const map = await readGigaMap(s, id);
      const city = map.indices.find((i) => i.name === 'city')!.objectId;
      const group = referenceColumn((await readRecord(s, referenceMember((await readRecord(s, id))!, 'indices')))!, 'indexGroups')[0]!;
      const unique = referenceMember((await readRecord(s, group))!, 'uniqueConstraints');
      return [{ ...(await placeOf(s, unique, 'elements', 0)), bytes: long(city) }];
    });
    const damaged = await Storage.open(dir);
    try {
      const report = await reportGigaMap(damaged, id);
      const repeated = report.findings.filter((f) => f.code === 'GIGAMAP_UNIQUE_KEY_REPEATED');
      const several = [...expectedKeys(persons, 'city')].filter(([, ids]) => ids.length > 1).sort(([a], [b]) => (a < b ? -1 : 1));
      expect(several.length).toBeGreaterThan(5);
      const listed = several.slice(0, 5).map(([key, ids]) => `${key}: entities ${ids.slice(0, 5).join(', ')}`);
      expect(repeated).toEqual([
        {
          code: 'GIGAMAP_UNIQUE_KEY_REPEATED',
          objectId: String(id),
          message: `unique index city of GigaMap ${id} has ${several.length} keys of several entities (${listed.join('; ')}; …)`,
          count: several.length,
        },
      ]);
      expect(report.indices.find((i) => i.name === 'city')?.unique).toBe(true);
    } finally {
      await damaged.close();
    }
  });

  it('reports a size that disagrees with the slots once, as a size mismatch, and other structure problems as such', async () => {
    const id = BigInt(persons.objectId);
    const lastEntityId = Math.max(...persons.entities.map((e) => e.entityId));
    const dir = await damagedCopy(async (s) => [
      { ...(await placeOf(s, id, 'size')), bytes: long(5000n) },
      { ...(await placeOf(s, id, 'currentId')), bytes: long(BigInt(lastEntityId)) },
    ]);
    const damaged = await Storage.open(dir);
    try {
      const report = await reportGigaMap(damaged, id);
      expect(report.findings).toEqual([
        { code: 'GIGAMAP_SIZE_MISMATCH', objectId: String(id), message: `GigaMap ${id} says its size is 5000, but ${persons.size} slots hold entities`, count: persons.size },
        { code: 'GIGAMAP_STRUCTURE', objectId: String(id), message: `GigaMap ${id}: entity id ${lastEntityId} is not below currentId ${lastEntityId}` },
      ]);
    } finally {
      await damaged.close();
    }
  });

  it('lists five of the entity ids whose slots are empty, comma-separated, and says there are more', async () => {
    const id = BigInt(persons.objectId);
    let emptied: number[] = [];
    const dir = await damagedCopy(async (s) => {
      const map = await readGigaMap(s, id);
      const level3 = (await readRecord(s, referenceMember((await readRecord(s, id))!, 'level3')))!;
      const level2 = (await readRecord(s, referenceMember((await readRecord(s, referenceColumn(level3, 'segments')[0]!))!, 'subject')))!;
      const level1Id = referenceMember((await readRecord(s, referenceColumn(level2, 'segments')[0]!))!, 'subject');
      emptied = [...map.entityIds.subarray(0, 6)];
      const patches = [];
      for (const e of emptied) patches.push({ ...(await placeOf(s, level1Id, 'entities', e)), bytes: long(0n) });
      patches.push({ ...(await placeOf(s, id, 'size')), bytes: long(map.size - 6n) });
      return patches;
    });
    const damaged = await Storage.open(dir);
    try {
      const report = await reportGigaMap(damaged, id);
      const stray = report.findings.filter((f) => f.code === 'GIGAMAP_BITMAP_EMPTY_SLOT');
      expect(stray).toHaveLength(3);
      for (const f of stray) {
        // Five of the six, in the order the index meets them, then an ellipsis.
        const listed = new RegExp(`^index \\w+ of GigaMap ${id} names 6 entity ids whose slots are empty \\((\\d+), (\\d+), (\\d+), (\\d+), (\\d+), …\\)$`).exec(f.message);
        expect(listed, f.message).not.toBeNull();
        const ids = listed!.slice(1).map(Number);
        expect(new Set(ids).size).toBe(5);
        for (const e of ids) expect(emptied).toContain(e);
        expect(f.count).toBe(6);
      }
    } finally {
      await damaged.close();
    }
  });
});
