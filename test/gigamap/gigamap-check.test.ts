import { afterAll, describe, expect, it } from 'vitest';
import { checkStorage } from '../../src/check/check-storage.js';
import { reportGigaMap } from '../../src/gigamap/gigamap-report.js';
import { readGigaMap } from '../../src/gigamap/gigamap-structure.js';
import { readRecord, referenceColumn, referenceMember } from '../../src/gigamap/record-fields.js';
import { Storage } from '../../src/storage/storage.js';
import { GIGAMAP_STORAGE, loadApiDump } from './gigamap-corpus.js';
import { damagedCopy, long, placeOf, removeCopies } from './damaged-copy.js';

/**
 * `check` and the GigaMap report on copies of the corpus storage damaged on purpose: a size that
 * disagrees with the slots, a slot emptied behind the indices' back, a non-unique index
 * declared unique.
 */

const persons = BigInt(loadApiDump().find((m) => m.label === 'persons')!.objectId);

afterAll(removeCopies);
describe('check on damaged GigaMaps', () => {
  it('reports a size that disagrees with the slots', async () => {
    const dir = await damagedCopy(async (storage) => [{ ...(await placeOf(storage, persons, 'size')), bytes: long(5000n) }]);
    const report = await checkStorage(dir);
    const problem = report.problems.find((p) => p.code === 'GIGAMAP_SIZE_MISMATCH');
    expect(problem?.meaning).toBe(`GigaMap ${persons} says its size is 5000, but 4919 slots hold entities`);
    expect(problem?.severity).toBe('data-lost');
    expect(report.exitCode).toBe(1);
  });

  it('reports bitmaps that name a slot emptied behind the indices’ back', async () => {
    let emptied = -1;
    const dir = await damagedCopy(async (storage) => {
      const map = await readGigaMap(storage, persons);
      const level3 = (await readRecord(storage, referenceMember((await readRecord(storage, persons))!, 'level3')))!;
      const level2 = (await readRecord(storage, referenceMember((await readRecord(storage, referenceColumn(level3, 'segments')[0]!))!, 'subject')))!;
      const level1Id = referenceMember((await readRecord(storage, referenceColumn(level2, 'segments')[0]!))!, 'subject');
      emptied = map.entityIds[0]!;
      // Slot 0 emptied, the size lowered to match: only the indices still name entity 0.
      return [
        { ...(await placeOf(storage, level1Id, 'entities', emptied)), bytes: long(0n) },
        { ...(await placeOf(storage, persons, 'size')), bytes: long(map.size - 1n) },
      ];
    });
    const storage = await Storage.open(dir);
    try {
      const report = await reportGigaMap(storage, persons);
      expect(report.findings.map((f) => f.code).sort()).toEqual(['GIGAMAP_BITMAP_EMPTY_SLOT', 'GIGAMAP_BITMAP_EMPTY_SLOT', 'GIGAMAP_BITMAP_EMPTY_SLOT']);
      expect(report.findings[0]!.message).toMatch(new RegExp(`names 1 entity ids whose slots are empty \\(${emptied}\\)`));
    } finally {
      await storage.close();
    }
    const checked = await checkStorage(dir);
    expect(checked.problems.filter((p) => p.code === 'GIGAMAP_BITMAP_EMPTY_SLOT')).toHaveLength(3);
  });

  it('reports a unique index with a key of several entities', async () => {
    const dir = await damagedCopy(async (storage) => {
      const map = await readGigaMap(storage, persons);
      const city = map.indices.find((i) => i.name === 'city')!.objectId;
      const group = referenceColumn((await readRecord(storage, referenceMember((await readRecord(storage, persons))!, 'indices')))!, 'indexGroups')[0]!;
      const unique = referenceMember((await readRecord(storage, group))!, 'uniqueConstraints');
      // The unique constraints now name the city index instead of the id index.
      return [{ ...(await placeOf(storage, unique, 'elements', 0)), bytes: long(city) }];
    });
    const checked = await checkStorage(dir);
    const problem = checked.problems.find((p) => p.code === 'GIGAMAP_UNIQUE_KEY_REPEATED');
    expect(problem?.meaning).toMatch(/^unique index city of GigaMap \d+ has 12 keys of several entities \(Basel: entities /);
    expect(problem?.count).toBe(12);
  });

  it('finds nothing wrong with the GigaMaps EclipseStore wrote', async () => {
    const report = await checkStorage(GIGAMAP_STORAGE);
    expect(report.problems.filter((p) => p.code.startsWith('GIGAMAP_'))).toEqual([]);
  });
});
