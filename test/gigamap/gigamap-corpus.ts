import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The vendored GigaMap corpus: a storage written by EclipseStore 4.1.0 and its own API's view of every GigaMap. */
export const GIGAMAP_CORPUS = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'conformance-es-gigamap');
export const GIGAMAP_STORAGE = join(GIGAMAP_CORPUS, 'storages', 'gigamap');

export interface DumpedEntity {
  readonly entityId: number;
  readonly objectId: string;
  /** The indexed values: `id`, `city`, `birthday` (persons) or `weight` (tags). */
  readonly [value: string]: string | number | null;
}

export interface DumpedGigaMap {
  readonly label: string;
  readonly objectId: string;
  readonly size: number;
  readonly entities: readonly DumpedEntity[];
}

export function loadApiDump(): DumpedGigaMap[] {
  return JSON.parse(readFileSync(join(GIGAMAP_CORPUS, 'expected', 'gigamap.api-dump.json'), 'utf8')) as DumpedGigaMap[];
}

/**
 * The key under which an index lists an entity, as our index keys read: the Java text of the
 * value; a composite LocalDate index as `[year, month, day]`, a null date as `[null]`.
 */
export function expectedKey(indexName: string, entity: DumpedEntity): string {
  const value = entity[indexName];
  if (indexName === 'birthday') {
    if (value === null || value === undefined) return '[null]';
    const [y, m, d] = String(value).split('-').map(Number);
    return `[${y}, ${m}, ${d}]`;
  }
  return String(value);
}

/** Every key's entity ids from the dump: key -> ascending entity ids. */
export function expectedKeys(map: DumpedGigaMap, indexName: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const e of map.entities) {
    const key = expectedKey(indexName, e);
    let ids = out.get(key);
    if (ids === undefined) out.set(key, (ids = []));
    ids.push(e.entityId);
  }
  for (const ids of out.values()) ids.sort((a, b) => a - b);
  return out;
}
