import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatError } from '../../src/errors.js';
import { readBitmap } from '../../src/gigamap/bitmap-reader.js';
import { readGigaMap } from '../../src/gigamap/gigamap-structure.js';
import { bytesMember, keyText, readRecord, referenceColumn, referenceMember } from '../../src/gigamap/record-fields.js';
import { Storage } from '../../src/storage/storage.js';
import { damagedCopy, long, placeOf, removeCopies } from './damaged-copy.js';
import { expectedKeys, GIGAMAP_STORAGE, loadApiDump } from './gigamap-corpus.js';

/**
 * One bitmap from its `BitmapEntry` (bitmap-reader.ts), on the storage EclipseStore 4.1.0 wrote:
 * every city key's entities as EclipseStore's own dump lists them, its count with and without the
 * ids, and the bytes of the records it is stored in (entry, level 3, each segment: each record's
 * stored length); on damaged copies, an entry without a level 3 and a level 3 with an empty slot
 * (no entities, the bytes of what is there), and a segment that names another slot than its own.
 */

const persons = loadApiDump().find((m) => m.label === 'persons')!;
const personsId = BigInt(persons.objectId);
let storage: Storage;

beforeAll(async () => {
  storage = await Storage.open(GIGAMAP_STORAGE);
});
afterAll(async () => {
  await storage?.close();
  removeCopies();
});

/** Bytes of a record as stored: its 24-byte header and its content. */
async function stored(from: Storage, objectId: bigint): Promise<number> {
  const entity = (await from.readEntity(objectId))!;
  return 24 + entity.content.length;
}

/** The first city key's BitmapEntry, its level 3 and that level 3's first segment. */
async function firstCityBitmap(from: Storage): Promise<{ entry: bigint; level3: bigint; segment: bigint }> {
  const map = await readGigaMap(from, personsId);
  const entry = map.indices.find((i) => i.name === 'city')!.entryIds[0]!;
  const level3 = referenceMember((await readRecord(from, entry))!, 'level3');
  return { entry, level3, segment: referenceColumn((await readRecord(from, level3))!, 'segments')[0]! };
}

describe('readBitmap on EclipseStore’s bitmaps', () => {
  it('reads each city key’s entities as EclipseStore dumped them, with their count and the bytes of entry, level 3 and segments', async () => {
    const map = await readGigaMap(storage, personsId);
    const city = map.indices.find((i) => i.name === 'city')!;
    const expected = expectedKeys(persons, 'city');
    expect(city.entryIds.length).toBe(expected.size);
    let entities = 0;
    for (let k = 0; k < city.entryIds.length; k++) {
      const key = await keyText(storage, city.keyIds[k]!);
      const read = await readBitmap(storage, city.entryIds[k]!, true);
      expect([...read.ids!], key).toEqual(expected.get(key));
      expect(read.count, key).toBe(expected.get(key)!.length);
      const level3 = referenceMember((await readRecord(storage, city.entryIds[k]!))!, 'level3');
      const segments = [...referenceColumn((await readRecord(storage, level3))!, 'segments')].filter((s) => s !== 0n);
      expect(segments.length, key).toBeGreaterThan(0);
      let bytes = (await stored(storage, city.entryIds[k]!)) + (await stored(storage, level3));
      for (const s of segments) bytes += await stored(storage, s);
      expect(read.bytes, key).toBe(bytes);
      expect(await readBitmap(storage, city.entryIds[k]!, false), key).toEqual({ ids: undefined, count: read.count, bytes });
      entities += read.count;
    }
    expect(entities).toBe(persons.entities.length);
  });

  it('refuses an id that is no BitmapEntry, naming what was wanted', async () => {
    await expect(readBitmap(storage, personsId, true)).rejects.toThrow(`BitmapEntry ${personsId} is a org.eclipse.store.gigamap.types.GigaMap$Default, not org.eclipse.store.gigamap.types.BitmapEntry`);
  });
});

describe('readBitmap on damaged copies', () => {
  it('an entry without a level 3 holds no entities: its own bytes alone', async () => {
    const dir = await damagedCopy(async (s) => {
      const { entry } = await firstCityBitmap(s);
      return [{ ...(await placeOf(s, entry, 'level3')), bytes: long(0n) }];
    });
    const damaged = await Storage.open(dir);
    try {
      const entry = (await readGigaMap(damaged, personsId)).indices.find((i) => i.name === 'city')!.entryIds[0]!;
      expect(referenceMember((await readRecord(damaged, entry))!, 'level3')).toBe(0n);
      expect(await readBitmap(damaged, entry, true)).toEqual({ ids: new Float64Array(0), count: 0, bytes: await stored(damaged, entry) });
    } finally {
      await damaged.close();
    }
  });

  it('a level 3 whose segment slot is empty holds no entities there: the bytes of entry and level 3', async () => {
    let level3 = 0n;
    const dir = await damagedCopy(async (s) => {
      ({ level3 } = await firstCityBitmap(s));
      return [{ ...(await placeOf(s, level3, 'segments', 0)), bytes: long(0n) }];
    });
    const damaged = await Storage.open(dir);
    try {
      const map = await readGigaMap(damaged, personsId);
      const entry = map.indices.find((i) => i.name === 'city')!.entryIds[0]!;
      expect(referenceColumn((await readRecord(damaged, level3))!, 'segments')[0]).toBe(0n);
      expect(await readBitmap(damaged, entry, false)).toEqual({ ids: undefined, count: 0, bytes: (await stored(damaged, entry)) + (await stored(damaged, level3)) });
    } finally {
      await damaged.close();
    }
  });

  it('a level 3 or a segment that is a record of another type: an error naming what was wanted', async () => {
    let ids = { entry: 0n, level3: 0n, segment: 0n };
    const wrongLevel3 = await damagedCopy(async (s) => {
      ids = await firstCityBitmap(s);
      return [{ ...(await placeOf(s, ids.entry, 'level3')), bytes: long(personsId) }];
    });
    const wrongSegment = await damagedCopy(async (s) => [{ ...(await placeOf(s, (await firstCityBitmap(s)).level3, 'segments', 0)), bytes: long(personsId) }]);
    for (const [dir, what] of [
      [wrongLevel3, 'BitmapLevel3'],
      [wrongSegment, 'BitmapLevel2'],
    ] as const) {
      const damaged = await Storage.open(dir);
      try {
        await expect(readBitmap(damaged, ids.entry, true)).rejects.toThrow(`${what} ${personsId} is a org.eclipse.store.gigamap.types.GigaMap$Default, not org.eclipse.store.gigamap.types.${what}`);
      } finally {
        await damaged.close();
      }
    }
  });

  it('a segment of a type other than 2: the decoder’s error at the type byte in the file', async () => {
    let ids = { entry: 0n, level3: 0n, segment: 0n };
    let place = { file: '', offset: 0 };
    const dir = await damagedCopy(async (s) => {
      ids = await firstCityBitmap(s);
      const segment = (await readRecord(s, ids.segment))!;
      place = { file: segment.file, offset: bytesMember(segment, 'data').fileOffset + 4 };
      return [{ ...place, bytes: Buffer.from([1]) }];
    });
    const damaged = await Storage.open(dir);
    try {
      const file = (await readRecord(damaged, ids.segment))!.file;
      const error = await readBitmap(damaged, ids.entry, false).then(
        () => undefined,
        (e: unknown) => e as FormatError,
      );
      expect([error?.file, error?.offset, error?.message]).toEqual([file, place.offset, `${file} at offset ${place.offset}: bitmap segment of type 1 (only type 2 is stored by EclipseStore)`]);
    } finally {
      await damaged.close();
    }
  });

  it('a segment that says it is slot 1 in slot 0: an error naming both, at the segment’s data', async () => {
    let place = { file: '', offset: 0 };
    let ids = { entry: 0n, level3: 0n, segment: 0n };
    const dir = await damagedCopy(async (s) => {
      ids = await firstCityBitmap(s);
      const segment = (await readRecord(s, ids.segment))!;
      place = { file: segment.file, offset: bytesMember(segment, 'data').fileOffset };
      return [{ file: place.file, offset: place.offset, bytes: Buffer.from([1, 0, 0, 0]) }];
    });
    const damaged = await Storage.open(dir);
    try {
      const segment = (await readRecord(damaged, ids.segment))!;
      const error = await readBitmap(damaged, ids.entry, true).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(FormatError);
      const { code, message, file, offset } = error as FormatError;
      expect({ code, message, file, offset }).toEqual({
        code: 'FORMAT_BAD_RECORD',
        message: `${segment.file} at offset ${place.offset}: bitmap segment ${ids.segment} says it covers ids from 1048576 but is slot 0 of ${ids.level3}`,
        file: segment.file,
        offset: place.offset,
      });
    } finally {
      await damaged.close();
    }
  });
});
