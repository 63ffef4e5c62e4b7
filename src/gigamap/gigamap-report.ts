import { isAppError } from '../errors.js';
import { gigaMapOf, indexKeysOf, type VersionedSource } from './gigamap-cache.js';

/**
 * What `analyze` tells about each GigaMap (size, segments, indices, bytes of the index
 * bitmaps) and what `check` finds wrong with it: a size that disagrees with the slots, a bitmap
 * naming an empty slot, a unique index with a key of several entities, records that cannot be
 * read as a GigaMap.
 */

export interface GigaMapIndexReport {
  readonly name: string;
  readonly kind: string;
  readonly unique: boolean;
  readonly keys: number;
  readonly entities: number;
  readonly bitmapBytes: number;
}

export interface GigaMapReport {
  readonly objectId: string;
  readonly size: string;
  readonly listed: number;
  readonly currentId: string;
  readonly level2Segments: number;
  readonly level1Segments: number;
  readonly segmentBytes: number;
  readonly indices: readonly GigaMapIndexReport[];
  readonly bitmapBytes: number;
  readonly findings: readonly GigaMapFinding[];
}

export type GigaMapFindingCode = 'GIGAMAP_SIZE_MISMATCH' | 'GIGAMAP_BITMAP_EMPTY_SLOT' | 'GIGAMAP_UNIQUE_KEY_REPEATED' | 'GIGAMAP_UNREADABLE' | 'GIGAMAP_STRUCTURE';

export interface GigaMapFinding {
  readonly code: GigaMapFindingCode;
  readonly objectId: string;
  readonly message: string;
  /** Entities (or entity ids) concerned, when it stands for several. */
  readonly count?: number;
}

/** Keys of a unique index listed per finding at most. */
const LISTED_KEYS = 5;

export async function reportGigaMap(source: VersionedSource, objectId: bigint): Promise<GigaMapReport> {
  const id = String(objectId);
  let map;
  try {
    map = await gigaMapOf(source, objectId);
  } catch (error) {
    if (!isAppError(error)) throw error;
    const finding: GigaMapFinding = { code: 'GIGAMAP_UNREADABLE', objectId: id, message: `GigaMap ${objectId} cannot be read: ${error.message}` };
    return { objectId: id, size: '?', listed: 0, currentId: '?', level2Segments: 0, level1Segments: 0, segmentBytes: 0, indices: [], bitmapBytes: 0, findings: [finding] };
  }
  const findings: GigaMapFinding[] = [];
  if (BigInt(map.entityIds.length) !== map.size) {
    findings.push({ code: 'GIGAMAP_SIZE_MISMATCH', objectId: id, message: `GigaMap ${objectId} says its size is ${map.size}, but ${map.entityIds.length} slots hold entities`, count: map.entityIds.length });
  }
  for (const problem of map.problems) if (!problem.startsWith('size is')) findings.push({ code: 'GIGAMAP_STRUCTURE', objectId: id, message: `GigaMap ${objectId}: ${problem}` });
  const indices: GigaMapIndexReport[] = [];
  let bitmapBytes = 0;
  for (const index of map.indices) {
    let found;
    try {
      found = await indexKeysOf(source, objectId, index.name);
    } catch (error) {
      if (!isAppError(error)) throw error;
      findings.push({ code: 'GIGAMAP_UNREADABLE', objectId: id, message: `index ${index.name} of GigaMap ${objectId} cannot be read: ${error.message}` });
      continue;
    }
    if (found === undefined) continue;
    const keys = found.keys;
    bitmapBytes += keys.bitmapBytes;
    indices.push({ name: index.name, kind: index.kind, unique: index.unique, keys: keys.keyCount, entities: keys.entityCount, bitmapBytes: keys.bitmapBytes });
    if (keys.strayIds.length > 0) {
      const ids = [...keys.strayIds.subarray(0, LISTED_KEYS)].join(', ');
      findings.push({
        code: 'GIGAMAP_BITMAP_EMPTY_SLOT',
        objectId: id,
        message: `index ${index.name} of GigaMap ${objectId} names ${keys.strayIds.length}${keys.strayIds.length >= 1000 ? '+' : ''} entity ids whose slots are empty (${ids}${keys.strayIds.length > LISTED_KEYS ? ', …' : ''})`,
        count: keys.strayIds.length,
      });
    }
    if (index.unique) {
      const repeated: string[] = [];
      let count = 0;
      for (let k = 0; k < keys.keyCount; k++) {
        if (keys.count(k) < 2) continue;
        count++;
        if (repeated.length < LISTED_KEYS) repeated.push(`${keys.keyText(k)}: entities ${[...keys.entities(k).subarray(0, LISTED_KEYS)].join(', ')}`);
      }
      if (count > 0) {
        findings.push({ code: 'GIGAMAP_UNIQUE_KEY_REPEATED', objectId: id, message: `unique index ${index.name} of GigaMap ${objectId} has ${count} keys of several entities (${repeated.join('; ')}${count > LISTED_KEYS ? '; …' : ''})`, count });
      }
    }
  }
  return {
    objectId: id,
    size: String(map.size),
    listed: map.entityIds.length,
    currentId: String(map.currentId),
    level2Segments: map.level2Segments,
    level1Segments: map.level1Segments,
    segmentBytes: map.segmentBytes,
    indices,
    bitmapBytes,
    findings,
  };
}

export async function reportGigaMaps(source: VersionedSource, objectIds: readonly bigint[]): Promise<GigaMapReport[]> {
  const out: GigaMapReport[] = [];
  for (const id of objectIds) out.push(await reportGigaMap(source, id));
  return out;
}
