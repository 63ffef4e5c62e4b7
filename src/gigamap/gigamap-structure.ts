import { FormatError } from '../errors.js';
import {
  BITMAP_INDICES,
  GIGA_INDICES,
  GIGA_LEVEL1,
  GIGA_LEVEL2,
  GIGA_LEVEL3,
  GIGAMAP,
  INDEX_KINDS,
  LAZY,
  SUB_INDEX,
  type IndexKind,
} from './gigamap-type-names.js';
import { BigIntColumn, IdList } from './id-list.js';
import { intMember, longMember, readRecord, referenceColumn, referenceMember, requireRecord, type RecordSource } from './record-fields.js';

/**
 * One GigaMap read from its records (docs/gigamap.md §2–4): the entities in entity-id order as
 * two columns, the segments walked, and the indices with the object ids of their keys and
 * bitmaps (the bitmaps themselves are decoded when asked: bitmap-reader.ts).
 */

/** Level-1 segments read at once. */
const READ_AHEAD = 32;

export interface GigaMapIndex {
  readonly name: string;
  readonly objectId: bigint;
  readonly typeName: string;
  readonly kind: IndexKind | 'part';
  readonly unique: boolean;
  /** Hashing and composite parts: the key objects (JDK constant ids for small wrappers). */
  readonly keyIds: BigInt64Array;
  /** The `BitmapEntry` of each key (hashing, parts), of each bit (binary; 0 for a bit never set), or the one entry (boolean). */
  readonly entryIds: BigInt64Array;
  /** Composite: its sub-indices in key-part order. */
  readonly parts: readonly GigaMapIndex[];
}

export interface GigaMapStructure {
  readonly objectId: bigint;
  /** `size` as stored. */
  readonly size: bigint;
  /** The next entity id to hand out. */
  readonly currentId: bigint;
  readonly level1Exponent: number;
  readonly level2Exponent: number;
  /** Entity ids (positions) in ascending order, and each one's object id. */
  readonly entityIds: Float64Array;
  readonly objectIds: BigInt64Array;
  readonly level2Segments: number;
  readonly level1Segments: number;
  /** Bytes of the level and Lazy records walked. */
  readonly segmentBytes: number;
  readonly indices: readonly GigaMapIndex[];
  /** What does not add up (size against slots, ...), in words. */
  readonly problems: readonly string[];
}

/** Whether an object id is a GigaMap (its latest record's type). */
export async function isGigaMap(source: RecordSource, objectId: bigint): Promise<boolean> {
  const entity = await source.readEntity(objectId);
  return entity !== undefined && source.dictionary.byId.get(entity.typeId)?.typeName === GIGAMAP;
}

/** The most entities the id columns make room for before the first is read (a million: 16 MB). */
const INITIAL_CAPACITY_BOUND = 1n << 20n;

export async function readGigaMap(source: RecordSource, objectId: bigint): Promise<GigaMapStructure> {
  const map = await requireRecord(source, objectId, 'GigaMap', [GIGAMAP]);
  const e1 = intMember(map, 'level1LengthExponent');
  const e2 = intMember(map, 'level2LengthExponent');
  if (e1 < 0 || e2 < 0 || e1 + e2 > 40) throw new FormatError('FORMAT_BAD_RECORD', `GigaMap ${objectId} has level exponents ${e1} and ${e2}`, { file: map.file, offset: map.contentOffset });
  const size = longMember(map, 'size');
  const currentId = longMember(map, 'currentId');
  const problems: string[] = [];
  // Sized for the map's own count, up to a bound a damaged size cannot push past (both grow beyond).
  const capacity = size <= 0n ? 64 : size < INITIAL_CAPACITY_BOUND ? Number(size) : Number(INITIAL_CAPACITY_BOUND);
  const entityIds = new IdList(capacity);
  const oids = new BigIntColumn(capacity);
  let level2Segments = 0;
  let level1Segments = 0;
  let segmentBytes = 0;
  const level3Id = referenceMember(map, 'level3');
  const level3 = level3Id === 0n ? undefined : await requireRecord(source, level3Id, 'GigaLevel3', [GIGA_LEVEL3]);
  if (level3 !== undefined) {
    segmentBytes += level3.bytes;
    const lazies2 = referenceColumn(level3, 'segments');
    for (let i3 = 0; i3 < lazies2.length; i3++) {
      const level2 = await lazySubject(source, lazies2[i3]!, GIGA_LEVEL2, (b) => (segmentBytes += b));
      if (level2 === undefined) continue;
      level2Segments++;
      segmentBytes += level2.bytes;
      const lazies1 = referenceColumn(level2, 'segments');
      if (lazies1.length > 2 ** e2) problems.push(`level-2 segment ${level2.objectId} has ${lazies1.length} slots, more than 2^${e2}`);
      // Read a window of level-1 segments at a time: the reads overlap, the entities stay in order.
      for (let from = 0; from < lazies1.length; from += READ_AHEAD) {
        const window = Array.from({ length: Math.min(READ_AHEAD, lazies1.length - from) }, (_v, k) => lazySubject(source, lazies1[from + k]!, GIGA_LEVEL1, (b) => (segmentBytes += b)));
        const level1s = await Promise.all(window);
        level1s.forEach((level1, k) => {
          if (level1 === undefined) return;
          level1Segments++;
          segmentBytes += level1.bytes;
          const slots = referenceColumn(level1, 'entities');
          if (slots.length !== 2 ** e1) problems.push(`level-1 segment ${level1.objectId} has ${slots.length} slots, not 2^${e1}`);
          const base = i3 * 2 ** (e1 + e2) + (from + k) * 2 ** e1;
          for (let i1 = 0; i1 < slots.length; i1++) {
            const entity = slots[i1]!;
            if (entity === 0n) continue;
            entityIds.push(base + i1);
            oids.push(entity);
          }
        });
      }
    }
  }
  const listed = BigInt(entityIds.length);
  if (listed !== size) problems.push(`size is ${size} but ${listed} entities are listed in the segments (a damaged GigaMap)`);
  const ids = entityIds.toArray();
  if (ids.length > 0 && BigInt(ids[ids.length - 1]!) >= currentId) problems.push(`entity id ${ids[ids.length - 1]} is not below currentId ${currentId}`);
  const indices = await readIndices(source, referenceMember(map, 'indices'));
  return {
    objectId,
    size,
    currentId,
    level1Exponent: e1,
    level2Exponent: e2,
    entityIds: ids,
    objectIds: oids.toArray(),
    level2Segments,
    level1Segments,
    segmentBytes,
    indices,
    problems,
  };
}

/** The subject of a `Lazy$Default` slot (0: no segment there). */
async function lazySubject(source: RecordSource, lazyId: bigint, typeName: string, count: (bytes: number) => void) {
  if (lazyId === 0n) return undefined;
  const lazy = await requireRecord(source, lazyId, 'Lazy segment reference', [LAZY]);
  count(lazy.bytes);
  const subject = referenceMember(lazy, 'subject');
  if (subject === 0n) throw new FormatError('FORMAT_BAD_RECORD', `Lazy ${lazyId} of a GigaMap has no subject`, { file: lazy.file, offset: lazy.contentOffset });
  return requireRecord(source, subject, typeName.slice(typeName.lastIndexOf('.') + 1), [typeName]);
}

async function readIndices(source: RecordSource, indicesId: bigint): Promise<GigaMapIndex[]> {
  const indices = await readRecord(source, indicesId);
  if (indices === undefined || indices.typeName !== GIGA_INDICES) return [];
  const out: GigaMapIndex[] = [];
  for (const groupId of referenceColumn(indices, 'indexGroups')) {
    const group = await readRecord(source, groupId);
    if (group === undefined || group.typeName !== BITMAP_INDICES) continue; // other index groups (Lucene, vectors) are not read
    const unique = new Set<bigint>();
    const uniqueEnum = await readRecord(source, referenceMember(group, 'uniqueConstraints'));
    if (uniqueEnum !== undefined) for (const id of referenceColumn(uniqueEnum, 'elements')) unique.add(id);
    const table = await readRecord(source, referenceMember(group, 'bitmapIndices'));
    if (table === undefined) continue;
    const values = referenceColumn(table, 'elements', 1);
    for (const indexId of values) {
      const index = await readIndex(source, indexId, unique.has(indexId));
      if (index !== undefined) out.push(index);
    }
  }
  return out;
}

async function readIndex(source: RecordSource, indexId: bigint, unique: boolean): Promise<GigaMapIndex | undefined> {
  const record = await readRecord(source, indexId);
  if (record === undefined) return undefined;
  const kind = record.typeName === SUB_INDEX ? 'part' : INDEX_KINDS.get(record.typeName);
  if (kind === undefined) return undefined;
  const nameId = referenceMember(record, 'name');
  const nameRecord = await readRecord(source, nameId);
  const name = nameRecord === undefined ? `index@${indexId}` : charsOf(nameRecord);
  const none = new BigInt64Array(0);
  switch (kind) {
    case 'hashing':
    case 'part':
      return { name, objectId: indexId, typeName: record.typeName, kind, unique, keyIds: referenceColumn(record, 'entries', 0), entryIds: referenceColumn(record, 'entries', 1), parts: [] };
    case 'binary':
      return { name, objectId: indexId, typeName: record.typeName, kind, unique, keyIds: none, entryIds: referenceColumn(record, 'entries'), parts: [] };
    case 'boolean':
      return { name, objectId: indexId, typeName: record.typeName, kind, unique, keyIds: none, entryIds: BigInt64Array.of(referenceMember(record, 'entry')), parts: [] };
    case 'composite': {
      const parts: GigaMapIndex[] = [];
      for (const subId of referenceColumn(record, 'subIndices')) {
        const part = await readIndex(source, subId, false);
        if (part !== undefined) parts.push(part);
      }
      return { name, objectId: indexId, typeName: record.typeName, kind, unique, keyIds: none, entryIds: none, parts };
    }
  }
}

/** The text of a String record (its one `[char]` member). */
function charsOf(record: Awaited<ReturnType<typeof readRecord>> & object): string {
  const slot = record.layout.slots[0];
  if (slot === undefined || !slot.variable || slot.field.kind !== 'chars') return `${record.typeName}@${record.objectId}`;
  const view = record.layout.view;
  let text = '';
  for (let i = 0; i < slot.count; i++) text += String.fromCharCode(view.getUint16(slot.elementsOffset + 2 * i, true));
  return text;
}
