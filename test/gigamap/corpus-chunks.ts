import { readGigaMap } from '../../src/gigamap/gigamap-structure.js';
import { bytesMember, keyText, referenceColumn, referenceMember, requireRecord } from '../../src/gigamap/record-fields.js';
import { Storage } from '../../src/storage/storage.js';
import { expectedKeys, GIGAMAP_STORAGE, loadApiDump } from './gigamap-corpus.js';

/**
 * What EclipseStore's own bitmaps say about its single-long chunk types (35–127): for each, where
 * in the long each of its data bytes lands. Learned from the GigaMap corpus alone: every block of
 * the persons map's `id`, `city` and `birthday` bitmaps, its chunks walked here, and the long a chunk stands
 * for taken from EclipseStore's API dump (the entities under that key or bit), never from our
 * decoder. A data byte's position is the one byte of the long equal to it in every occurrence.
 */

export interface LearnedChunks {
  /** Type → byte position of each data byte (type 35 is not a placement: absent). */
  readonly positions: ReadonlyMap<number, readonly number[]>;
  /** Type → how many chunks of it (plain and inverted) the corpus holds. */
  readonly occurrences: ReadonlyMap<number, number>;
  /** Type 35 chunks: [data byte, the long EclipseStore's entities make]. */
  readonly lowBits: readonly (readonly [number, bigint])[];
}

const DATA_BYTES = (type: number): number => (type <= 43 ? 1 : type <= 71 ? 2 : 3);

export async function learnChunkPositions(): Promise<LearnedChunks> {
  const persons = loadApiDump().find((m) => m.label === 'persons')!;
  const storage = await Storage.open(GIGAMAP_STORAGE);
  try {
    const map = await readGigaMap(storage, BigInt(persons.objectId));
    // Each bitmap with the entity ids EclipseStore's API lists for it.
    const bitmaps: [bigint, Set<number>][] = [];
    const id = map.indices.find((i) => i.name === 'id')!;
    id.entryIds.forEach((entry, bit) => {
      if (entry === 0n) return;
      const ids = persons.entities.filter((e) => ((BigInt(e.id as number) >> BigInt(bit)) & 1n) === 1n).map((e) => e.entityId);
      bitmaps.push([entry, new Set(ids)]);
    });
    const city = map.indices.find((i) => i.name === 'city')!;
    const cities = expectedKeys(persons, 'city');
    for (let k = 0; k < city.entryIds.length; k++) {
      if (city.entryIds[k] === 0n) continue;
      bitmaps.push([city.entryIds[k]!, new Set(cities.get(await keyText(storage, city.keyIds[k]!)) ?? [])]);
    }
    // The birthday's parts: year, month, day, each a hashing index of its own (a null date: `null`).
    const birthday = map.indices.find((i) => i.name === 'birthday')!;
    for (let part = 0; part < birthday.parts.length; part++) {
      const index = birthday.parts[part]!;
      for (let k = 0; k < index.entryIds.length; k++) {
        if (index.entryIds[k] === 0n) continue;
        const text = await keyText(storage, index.keyIds[k]!);
        const partOf = (e: (typeof persons.entities)[number]): string => (e.birthday === null ? 'null' : String(Number(String(e.birthday).split('-')[part])));
        bitmaps.push([index.entryIds[k]!, new Set(persons.entities.filter((e) => partOf(e) === text).map((e) => e.entityId))]);
      }
    }

    const candidates = new Map<number, Set<number>[]>();
    const occurrences = new Map<number, number>();
    const lowBits: [number, bigint][] = [];
    for (const [entryId, ids] of bitmaps) {
      const entry = await requireRecord(storage, entryId, 'BitmapEntry');
      const level3 = await requireRecord(storage, referenceMember(entry, 'level3'), 'BitmapLevel3');
      for (const segmentId of referenceColumn(level3, 'segments')) {
        if (segmentId === 0n) continue;
        const { data } = bytesMember(await requireRecord(storage, segmentId, 'BitmapLevel2'), 'data');
        const level3Index = data[0]! | (data[1]! << 8) | (data[2]! << 16) | (data[3]! << 24);
        let pos = 8;
        for (let block = 0; block <= data[5]!; block++) {
          if (data[pos] === 0x80 || data[pos] === 0xff) {
            pos++;
            continue;
          }
          const end = pos + ((data[pos + 1]! | (data[pos + 2]! << 8)) & 0x3ff);
          const chunks = data[pos + 3]!;
          let at = pos + 4;
          let long = 0;
          for (let c = 0; c < chunks; c++) {
            const head = data[at++]!;
            const type = head & 0x7f;
            const fill = (head & 0x80) !== 0 ? 0xff : 0;
            if (type === 0 || type === 1) {
              const n = data[at++]!;
              if (type === 1) at += 8 * n;
              long += n;
              continue;
            }
            if (type <= 33) {
              const n = type <= 17 ? type - 1 : type - 17;
              if (type >= 18) at += 8 * n;
              long += n;
              continue;
            }
            // The long EclipseStore's entities make at this place, byte by byte.
            const first = level3Index * 2 ** 20 + block * 4096 + long * 64;
            const bytes = Array.from({ length: 8 }, (_v, p) => {
              let b = 0;
              for (let j = 0; j < 8; j++) if (ids.has(first + 8 * p + j)) b |= 1 << j;
              return b;
            });
            occurrences.set(type, (occurrences.get(type) ?? 0) + 1);
            if (type === 35) {
              if (fill === 0) lowBits.push([data[at]!, bytes.reduce((v, b, p) => v | (BigInt(b) << BigInt(8 * p)), 0n)]);
              at += 1;
            } else {
              let seen = candidates.get(type);
              if (seen === undefined) candidates.set(type, (seen = Array.from({ length: DATA_BYTES(type) }, () => new Set([0, 1, 2, 3, 4, 5, 6, 7]))));
              seen.forEach((set, i) => {
                for (const p of [...set]) if (bytes[p] !== (data[at + i]! ^ fill)) set.delete(p);
              });
              at += DATA_BYTES(type);
            }
            long++;
          }
          if (at !== end || long !== 64) throw new Error(`corpus block ${block} of bitmap ${entryId} did not walk to its end`);
          pos = end;
        }
      }
    }
    const positions = new Map<number, number[]>();
    for (const [type, sets] of candidates) {
      if (sets.some((s) => s.size !== 1)) throw new Error(`chunk type ${type}: the corpus leaves its byte positions open (${sets.map((s) => [...s].join('|')).join(', ')})`);
      positions.set(type, sets.map((s) => [...s][0]!));
    }
    return { positions, occurrences, lowBits };
  } finally {
    await storage.close();
  }
}
