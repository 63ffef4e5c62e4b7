import { gigaMapOf, indexKeysOf, type VersionedSource } from './gigamap-cache.js';

/**
 * The rows of the SQL tables `_gigamap_entities(gigamap BIGINT, entity_id BIGINT, oid BIGINT)`
 * and `_gigamap_index(gigamap BIGINT, index_name VARCHAR, key VARCHAR, entity_id BIGINT)`, in
 * column batches (typed arrays; no JS object per row), for the SQL engine to append.
 * `_gigamap_index` keys read as the index keys do (index-keys.ts): the Java text of the value
 * (hashing), `true` (boolean: only the true entities are rows), the decimal long whose bits
 * hold the entity (binary), `[part, part, ...]` (composite).
 */

/** The two tables: names and DuckDB column types, in column order (`objectId`: the column holds object ids). */
export const GIGAMAP_TABLES = [
  {
    name: '_gigamap_entities',
    columns: [
      { name: 'gigamap', type: 'BIGINT', objectId: true },
      { name: 'entity_id', type: 'BIGINT', objectId: false },
      { name: 'oid', type: 'BIGINT', objectId: true },
    ],
  },
  {
    name: '_gigamap_index',
    columns: [
      { name: 'gigamap', type: 'BIGINT', objectId: true },
      { name: 'index_name', type: 'VARCHAR', objectId: false },
      { name: 'key', type: 'VARCHAR', objectId: false },
      { name: 'entity_id', type: 'BIGINT', objectId: false },
    ],
  },
] as const;

/** Rows per batch at most. */
export const BATCH_ROWS = 65_536;

export interface GigaMapEntityBatch {
  readonly length: number;
  /** Object id of the GigaMap, the same for every row of the batch. */
  readonly gigamap: bigint;
  readonly entityId: BigInt64Array;
  readonly oid: BigInt64Array;
}

export interface GigaMapIndexBatch {
  readonly length: number;
  /** Object id of the GigaMap and the index name: the same for every row of the batch. */
  readonly gigamap: bigint;
  readonly indexName: string;
  /** The key column run-length encoded: `keys[i]` for the next `keyRuns[i]` rows. */
  readonly keys: readonly string[];
  readonly keyRuns: Uint32Array;
  readonly entityId: BigInt64Array;
}

/** Rows of `_gigamap_entities` for the given GigaMaps, each map in entity-id order. */
export async function* gigaMapEntityRows(source: VersionedSource, gigaMaps: readonly bigint[]): AsyncGenerator<GigaMapEntityBatch> {
  for (const objectId of gigaMaps) {
    const map = await gigaMapOf(source, objectId);
    for (let from = 0; from < map.entityIds.length; from += BATCH_ROWS) {
      const to = Math.min(map.entityIds.length, from + BATCH_ROWS);
      const entityId = new BigInt64Array(to - from);
      for (let i = from; i < to; i++) entityId[i - from] = BigInt(map.entityIds[i]!);
      yield { length: to - from, gigamap: objectId, entityId, oid: map.objectIds.slice(from, to) };
    }
  }
}

export interface IndexRowOptions {
  /** Only these indices (a `WHERE index_name IN (...)` pushed down: the others' bitmaps are not decoded). */
  readonly indexNames?: readonly string[];
}

/** Rows of `_gigamap_index` for the given GigaMaps: every index, key by key in key order, each key's entities ascending. */
export async function* gigaMapIndexRows(source: VersionedSource, gigaMaps: readonly bigint[], options: IndexRowOptions = {}): AsyncGenerator<GigaMapIndexBatch> {
  for (const objectId of gigaMaps) {
    const map = await gigaMapOf(source, objectId);
    for (const index of map.indices) {
      if (options.indexNames !== undefined && !options.indexNames.includes(index.name)) continue;
      const found = await indexKeysOf(source, objectId, index.name);
      if (found === undefined) continue;
      const keys = found.keys;
      let batch = new Batch(objectId, index.name);
      for (let k = 0; k < keys.keyCount; k++) {
        const ids = keys.entities(k);
        const text = keys.keyText(k);
        for (let from = 0; from < ids.length; ) {
          const take = Math.min(ids.length - from, BATCH_ROWS - batch.length);
          batch.add(text, ids, from, take);
          from += take;
          if (batch.length === BATCH_ROWS) {
            yield batch.finish();
            batch = new Batch(objectId, index.name);
          }
        }
      }
      if (batch.length > 0) yield batch.finish();
    }
  }
}

class Batch {
  length = 0;
  private readonly keys: string[] = [];
  private readonly runs: number[] = [];
  private readonly ids = new BigInt64Array(BATCH_ROWS);

  constructor(
    private readonly gigamap: bigint,
    private readonly indexName: string,
  ) {}

  add(key: string, ids: Float64Array, from: number, count: number): void {
    this.keys.push(key);
    this.runs.push(count);
    for (let i = 0; i < count; i++) this.ids[this.length + i] = BigInt(ids[from + i]!);
    this.length += count;
  }

  finish(): GigaMapIndexBatch {
    return { length: this.length, gigamap: this.gigamap, indexName: this.indexName, keys: this.keys, keyRuns: Uint32Array.from(this.runs), entityId: this.ids.slice(0, this.length) };
  }
}
