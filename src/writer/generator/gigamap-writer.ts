import type { TypeEntry } from '../../format/type-dictionary.js';
import type { FieldValue } from '../entity-encoder.js';
import type { StorageWriter } from '../storage-writer.js';
import { encodeBitmap } from './gigamap-bitmaps.js';
import { defineGigaMapTypes, type GigaMapTypes } from './gigamap-dictionary.js';
import type { Prng } from './prng.js';

/**
 * Writes an EclipseStore GigaMap the way EclipseStore 4.1.0 stores one (docs/gigamap.md): a
 * `conformance.gigamap.GigaRoot` whose `persons` GigaMap holds `entities` Persons (entity ids
 * 0…n−1, level exponents 8 and 10), with a hashing index `city` and a unique bit-sliced index
 * `id` (id = 100000 + 7 × entity id), every bitmap encoded from the entities as they are written.
 * Streams: per entity one record and a few bits; the bitmaps are n/8 bytes per key and per bit.
 */

export const GIGAMAP_CITIES = ['Berlin', 'Hamburg', 'München', 'Köln', 'Wien', 'Graz', 'Linz', 'Zürich', 'Basel', 'Bern', 'Leipzig', 'Bremen'] as const;
const FIRST_NAMES = ['Ada', 'Ines', 'Viktor', 'Lena', 'Omar', 'Mia', 'Jonas', 'Sara', 'Paul', 'Nora', 'Emil', 'Hanna', 'Luca', 'Greta', 'Felix', 'Ida'] as const;
const LEVEL1_EXPONENT = 8;
const LEVEL2_EXPONENT = 10;
const ID_BASE = 100_000;
const ID_STEP = 7;

export interface GigaMapSink {
  readonly writer: StorageWriter;
  add(entry: TypeEntry, objectId: bigint, values: readonly FieldValue[]): void;
  /** Called after every few records: the caller may commit the store so far. */
  flush(): void;
}

export interface WrittenGigaMap {
  /** The GigaRoot holding the GigaMap. */
  readonly rootId: bigint;
  readonly gigaMapId: bigint;
  readonly entities: number;
}

/** The entity id key of the `id` index for an entity id. */
export function generatedPersonId(entityId: number): number {
  return ID_BASE + ID_STEP * entityId;
}

/**
 * Keys chosen by a test instead of the generated ones, to reach the reader's branches: any long as
 * an entity's id (negative ones set bit 63), and an entry with an empty bitmap for every city no
 * entity has (EclipseStore leaves such entries behind when the last entity of a key goes).
 */
export interface GigaMapKeyChoice {
  /** The `id` of the entity with this entity id (a Java long; 0 has no bit set, so no key). */
  readonly id?: (entityId: number) => bigint;
  readonly emptyCityEntries?: boolean;
}

export function writeGigaMap(sink: GigaMapSink, entities: number, rng: Prng, choice: GigaMapKeyChoice = {}): WrittenGigaMap {
  if (!Number.isSafeInteger(entities) || entities < 1 || entities > 2 ** 31) throw new RangeError(`a generated GigaMap has 1 to 2^31 entities, not ${entities}`);
  const t = defineGigaMapTypes(sink.writer);
  const id = (): bigint => sink.writer.newObjectId();
  const root = id();
  const map = id();
  const rootName = id();
  sink.add(t.root, root, [rootName, map, 0n, 0n]);
  sink.add(t.string, rootName, [`GigaMap of ${entities} persons`]);
  const cities = GIGAMAP_CITIES.map((city) => string(sink, t, id(), city));
  const names = FIRST_NAMES.map((name) => string(sink, t, id(), name));

  // The entities, and the bits of every bitmap.
  const bytes = Math.ceil(entities / 8);
  const cityBits = cities.map(() => new Uint8Array(bytes));
  const chosenId = choice.id;
  const idBitCount = chosenId !== undefined ? 64 : Math.floor(Math.log2(generatedPersonId(entities - 1))) + 1;
  const idBits = Array.from({ length: idBitCount }, () => new Uint8Array(bytes));
  const firstPerson = sink.writer.newObjectId();
  for (let e = 0; e < entities; e++) {
    const person = e === 0 ? firstPerson : id();
    if (person !== firstPerson + BigInt(e)) throw new Error('person object ids must be consecutive');
    const city = rng.below(cities.length);
    const key = chosenId !== undefined ? BigInt.asIntN(64, chosenId(e)) : generatedPersonId(e);
    sink.add(t.person, person, [names[rng.below(names.length)]!, cities[city]!, 0n, BigInt(key), rng.below(1000)]);
    cityBits[city]![e >> 3]! |= 1 << (e & 7);
    if (typeof key === 'bigint') {
      const bits = BigInt.asUintN(64, key);
      for (let b = 0; b < 64; b++) if (((bits >> BigInt(b)) & 1n) === 1n) idBits[b]![e >> 3]! |= 1 << (e & 7);
    } else for (let b = 0; b < idBits.length; b++) if (Math.floor(key / 2 ** b) % 2 === 1) idBits[b]![e >> 3]! |= 1 << (e & 7);
    if ((e & 4095) === 4095) sink.flush();
  }

  const level3 = writeLevels(sink, t, firstPerson, entities);
  // Indices: a hashing index on the city, a unique bit-sliced index on the id.
  const indices = id();
  const bitmapIndices = id();
  const constraints = id();
  const custom = id();
  const equalator = id();
  const table = id();
  const tableKeys = id();
  const tableValues = id();
  const unique = id();
  const cityIndex = id();
  const idIndex = id();
  const cityName = string(sink, t, id(), 'city');
  const idName = string(sink, t, id(), 'id');
  const cityIndexer = id();
  const idIndexer = id();
  sink.add(t.cityIndexer, cityIndexer, []);
  sink.add(t.idIndexer, idIndexer, []);
  const cityEntries: [bigint, bigint][] = [];
  cityBits.forEach((bits, k) => {
    if (choice.emptyCityEntries === true || bits.some((b) => b !== 0)) cityEntries.push([cities[k]!, writeBitmap(sink, t, bits, cityEntries.length)]);
  });
  const idEntries = idBits.map((bits, b) => (bits.some((x) => x !== 0) ? writeBitmap(sink, t, bits, b) : 0n));
  // As many entries as the highest bit any key has (chosen keys: up to 64).
  while (idEntries.length > 0 && idEntries[idEntries.length - 1] === 0n) idEntries.pop();
  sink.add(t.hashingIndex, cityIndex, [bitmapIndices, cityName, cityIndexer, cityEntries]);
  sink.add(t.binaryIndex, idIndex, [bitmapIndices, idName, idIndexer, BigInt64Array.from(idEntries)]);
  sink.add(t.eqHashTable, table, [1000000000000000002n, tableKeys, tableValues, 1, [[idName, idIndex], [cityName, cityIndex]]]);
  sink.add(t.tableKeys, tableKeys, [table]);
  sink.add(t.tableValues, tableValues, [table]);
  sink.add(t.constHashEnum, unique, [1, BigInt64Array.of(idIndex)]);
  sink.add(t.bitmapIndices, bitmapIndices, [map, table, 0n, unique]);
  sink.add(t.indices, indices, [map, BigInt64Array.of(bitmapIndices)]);
  sink.add(t.customConstraints, custom, [map, 0n]);
  sink.add(t.constraints, constraints, [bitmapIndices, custom]);
  sink.add(t.equalator, equalator, []);
  sink.add(t.gigaMap, map, [level3, indices, constraints, equalator, LEVEL1_EXPONENT, LEVEL2_EXPONENT, 0, 30, BigInt(entities), BigInt(entities)]);
  sink.flush();
  return { rootId: root, gigaMapId: map, entities };
}

function string(sink: GigaMapSink, t: GigaMapTypes, objectId: bigint, text: string): bigint {
  sink.add(t.string, objectId, [text]);
  return objectId;
}

/** Level 1 segments of 256 slots behind Lazy references, in level 2 segments of 1024; returns the GigaLevel3. */
function writeLevels(sink: GigaMapSink, t: GigaMapTypes, firstPerson: bigint, entities: number): bigint {
  const id = (): bigint => sink.writer.newObjectId();
  const perLevel1 = 2 ** LEVEL1_EXPONENT;
  const perLevel2 = 2 ** LEVEL2_EXPONENT;
  const level1Count = Math.ceil(entities / perLevel1);
  const level2Lazies: bigint[] = [];
  for (let first1 = 0; first1 < level1Count; first1 += perLevel2) {
    const slots = new BigInt64Array(perLevel2);
    for (let i2 = 0; i2 < perLevel2 && first1 + i2 < level1Count; i2++) {
      const lazy = id();
      const level1 = id();
      const entitySlots = new BigInt64Array(perLevel1);
      const base = (first1 + i2) * perLevel1;
      for (let i1 = 0; i1 < perLevel1 && base + i1 < entities; i1++) entitySlots[i1] = firstPerson + BigInt(base + i1);
      sink.add(t.lazy, lazy, [level1]);
      sink.add(t.level1, level1, [entitySlots]);
      slots[i2] = lazy;
    }
    const lazy = id();
    const level2 = id();
    sink.add(t.lazy, lazy, [level2]);
    sink.add(t.level2, level2, [slots]);
    level2Lazies.push(lazy);
    sink.flush();
  }
  const level3 = id();
  sink.add(t.level3, level3, [BigInt64Array.from(level2Lazies)]);
  return level3;
}

/** One bitmap: BitmapEntry → BitmapLevel3 → BitmapLevel2 segments; returns the entry. */
function writeBitmap(sink: GigaMapSink, t: GigaMapTypes, bits: Uint8Array, position: number): bigint {
  const id = (): bigint => sink.writer.newObjectId();
  const entry = id();
  const level3 = id();
  const segments = encodeBitmap(bits).map((data) => {
    if (data === undefined) return 0n;
    const segment = id();
    sink.add(t.bitmapLevel2, segment, [2, data]);
    return segment;
  });
  sink.add(t.bitmapLevel3, level3, [BigInt64Array.from(segments)]);
  sink.add(t.bitmapEntry, entry, [level3, position]);
  return entry;
}
