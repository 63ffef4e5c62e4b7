import { readGigaMap, type GigaMapIndex, type GigaMapStructure } from './gigamap-structure.js';
import { readIndexKeys, type IndexKeys } from './index-keys.js';
import type { RecordSource } from './record-fields.js';

/**
 * GigaMaps read once per state of a storage: paging through 10M entities or asking for one key
 * after another reads the segments and bitmaps once. A source that has a `generation` (a
 * `Storage`) is read anew when it changes; the few most recently used maps are kept.
 */

export interface VersionedSource extends RecordSource {
  readonly generation?: number;
}

const KEPT_MAPS = 4;

interface Cached {
  readonly generation: number;
  readonly map: Promise<GigaMapStructure>;
  readonly keys: Map<string, Promise<IndexKeys>>;
}

const caches = new WeakMap<RecordSource, Map<bigint, Cached>>();

function cachedOf(source: VersionedSource, objectId: bigint): Cached {
  let maps = caches.get(source);
  if (maps === undefined) caches.set(source, (maps = new Map()));
  const generation = source.generation ?? 0;
  let cached = maps.get(objectId);
  if (cached !== undefined && cached.generation === generation) {
    maps.delete(objectId);
    maps.set(objectId, cached);
    return cached;
  }
  const map = readGigaMap(source, objectId);
  cached = { generation, map, keys: new Map() };
  // A failed read is not kept: the next request tries again.
  map.catch(() => maps.get(objectId) === cached && maps.delete(objectId));
  maps.delete(objectId);
  maps.set(objectId, cached);
  for (const oldest of maps.keys()) {
    if (maps.size <= KEPT_MAPS) break;
    maps.delete(oldest);
  }
  return cached;
}

export function gigaMapOf(source: VersionedSource, objectId: bigint): Promise<GigaMapStructure> {
  return cachedOf(source, objectId).map;
}

/** An index's keys by index name (undefined: the GigaMap has no such index). */
export async function indexKeysOf(source: VersionedSource, objectId: bigint, indexName: string): Promise<{ index: GigaMapIndex; keys: IndexKeys } | undefined> {
  const cached = cachedOf(source, objectId);
  const map = await cached.map;
  const index = map.indices.find((i) => i.name === indexName);
  if (index === undefined) return undefined;
  let keys = cached.keys.get(indexName);
  if (keys === undefined) {
    keys = readIndexKeys(source, map, index);
    cached.keys.set(indexName, keys);
    keys.catch(() => cached.keys.get(indexName) === keys && cached.keys.delete(indexName));
  }
  return { index, keys: await keys };
}
