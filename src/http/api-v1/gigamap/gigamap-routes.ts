import type { Static } from 'typebox';
import { summarizeEntity } from '../../../gigamap/entity-summary.js';
import { gigaMapOf, indexKeysOf } from '../../../gigamap/gigamap-cache.js';
import type { GigaMapIndex, GigaMapStructure } from '../../../gigamap/gigamap-structure.js';
import { GIGAMAP } from '../../../gigamap/gigamap-type-names.js';
import { lowerBound } from '../../../gigamap/id-list.js';
import type { IndexKeys } from '../../../gigamap/index-keys.js';
import type { Storage } from '../../../storage/storage.js';
import { FormatError } from '../../../errors.js';
import {
  GigaMapEntity,
  GigaMapEntityPage,
  GigaMapEntityParams,
  GigaMapIndexParams,
  GigaMapInfo,
  GigaMapKeyEntities,
  GigaMapKeyPage,
  GigaMapKeyQuery,
  GigaMapKeysQuery,
  GigaMapPaging,
  GigaMapParams,
  type GigaMapEntityJson,
  type GigaMapIndexInfoJson,
} from '../../../api-contract/gigamap-schemas.js';
import { ApiProblem, answers, notFound } from '../machinery/problem-details.js';
import type { ApiRoute } from '../machinery/routing.js';
import { relativeToStorage } from '../../../api-contract/storage-paths.js';

/**
 * `/objects/{oid}/gigamap…`: an EclipseStore GigaMap as what it is: its entities in entity-id
 * order, its indices, an index's keys with their entity counts, a key's entities (decoded from
 * the index's bitmaps). Read from the records alone, so they answer while the graph is built.
 */

/** The GigaMap at an object id, or a 404 problem saying what the object is instead. */
export async function requireGigaMap(storage: Storage, objectId: bigint): Promise<GigaMapStructure> {
  const entity = await storage.readEntity(objectId);
  if (entity === undefined) throw notFound(`object ${objectId} is not stored in this storage`);
  const typeName = storage.dictionary.byId.get(entity.typeId)?.typeName;
  if (typeName !== GIGAMAP) throw notFound(`object ${objectId} is a ${typeName ?? 'record of an unknown type'}, not a GigaMap (${GIGAMAP})`);
  try {
    return await gigaMapOf(storage, objectId);
  } catch (error) {
    if (error instanceof FormatError) throw new ApiProblem(500, 'Unreadable GigaMap', relativeToStorage(storage, error.message));
    throw error;
  }
}

async function requireIndex(storage: Storage, objectId: bigint, name: string): Promise<{ index: GigaMapIndex; keys: IndexKeys }> {
  await requireGigaMap(storage, objectId);
  try {
    const found = await indexKeysOf(storage, objectId, name);
    if (found === undefined) throw notFound(`GigaMap ${objectId} has no index named ${JSON.stringify(name)}`);
    return found;
  } catch (error) {
    if (error instanceof FormatError) throw new ApiProblem(500, 'Unreadable GigaMap Index', relativeToStorage(storage, error.message));
    throw error;
  }
}

/**
 * Why each index of the map that cannot be read cannot be (by index name): every answer about the
 * map says so in its `problems`, not only the routes that read the index. Index keys are cached
 * with the map, so this reads each index once per state of the storage.
 */
async function indexDamage(storage: Storage, map: GigaMapStructure): Promise<Map<string, string>> {
  const damage = new Map<string, string>();
  for (const index of map.indices) {
    try {
      await indexKeysOf(storage, map.objectId, index.name);
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      damage.set(index.name, `index ${index.name} cannot be read: ${relativeToStorage(storage, error.message)}`);
    }
  }
  return damage;
}

/** The map's head: its size, the entities listed, and what is damaged (the map's own problems, then its unreadable indices). */
export async function gigaMapHead(storage: Storage, map: GigaMapStructure) {
  const problems = [...map.problems.map((p) => relativeToStorage(storage, p)), ...(await indexDamage(storage, map)).values()];
  return { objectId: String(map.objectId), size: String(map.size), listed: map.entityIds.length, damaged: problems.length > 0, problems };
}

export function indexSummary(index: GigaMapIndex) {
  return { name: index.name, objectId: String(index.objectId), kind: index.kind === 'part' ? 'hashing' : index.kind, unique: index.unique } as const;
}

/** Entities at positions [from, to) of the map's entity list, each with its one-line summary. */
export async function entityPage(storage: Storage, map: GigaMapStructure, from: number, to: number): Promise<GigaMapEntityJson[]> {
  const out: GigaMapEntityJson[] = [];
  for (let p = from; p < to; p++) out.push(await entityJson(storage, map.entityIds[p]!, map.objectIds[p]!));
  return out;
}

async function entityJson(storage: Storage, entityId: number, objectId: bigint): Promise<GigaMapEntityJson> {
  const { typeName, summary } = await summarizeEntity(storage, objectId);
  return { entityId, objectId: String(objectId), typeName, summary };
}

/** What an object view of a GigaMap adds: the page of its entities and its indices. */
export async function gigaMapPart(storage: Storage, objectId: bigint, window: { readonly offset: number; readonly limit: number }) {
  let map: GigaMapStructure;
  try {
    map = await requireGigaMap(storage, objectId);
  } catch (error) {
    // An unreadable GigaMap still shows its raw records; the problem says what could not be read.
    if (!(error instanceof ApiProblem) || error.status !== 500) throw error;
    return { objectId: String(objectId), size: null, listed: 0, damaged: true, problems: [error.message], offset: window.offset, limit: window.limit, entities: [], indices: [] };
  }
  const from = Math.min(window.offset, map.entityIds.length);
  const to = Math.min(map.entityIds.length, from + window.limit);
  return { ...(await gigaMapHead(storage, map)), offset: window.offset, limit: window.limit, entities: await entityPage(storage, map, from, to), indices: map.indices.map(indexSummary) };
}

/** Key numbers ordered by entity count, most first (ties in key order), computed once per key table. */
const byCount = new WeakMap<IndexKeys, Uint32Array>();

function countOrder(keys: IndexKeys): Uint32Array {
  let order = byCount.get(keys);
  if (order === undefined) {
    order = Uint32Array.from({ length: keys.keyCount }, (_v, i) => i).sort((a, b) => keys.count(b) - keys.count(a) || a - b);
    byCount.set(keys, order);
  }
  return order;
}

async function indexInfo(storage: Storage, map: GigaMapStructure, index: GigaMapIndex): Promise<GigaMapIndexInfoJson> {
  let found;
  try {
    found = await requireIndex(storage, map.objectId, index.name);
  } catch (error) {
    // A damaged index is described with nothing read from it; the map's problems say why.
    if (!(error instanceof ApiProblem) || error.status !== 500) throw error;
    return { ...indexSummary(index), keys: 0, entities: 0, bitmapBytes: 0, strayEntityIds: [], parts: index.parts.map((p) => ({ name: p.name, objectId: String(p.objectId), keys: p.keyIds.length })), problem: error.message };
  }
  const keys = found.keys;
  return {
    ...indexSummary(index),
    keys: keys.keyCount,
    entities: keys.entityCount,
    bitmapBytes: keys.bitmapBytes,
    strayEntityIds: [...keys.strayIds],
    parts: index.parts.map((p) => ({ name: p.name, objectId: String(p.objectId), keys: p.keyIds.length })),
  };
}

export const gigaMapRoutes: readonly ApiRoute[] = [
  {
    path: '/objects/:oid/gigamap',
    schema: {
      summary: 'An EclipseStore GigaMap: its size, segments and indices (keys and entities per index)',
      description: 'Decoded from the records and bitmaps; `damaged` (with `problems` saying why, files named relative to the storage) when the stored size disagrees with the entities in the slots or an index cannot be read (that index then has a `problem` and nothing read from it).',
      tags: ['gigamap'],
      params: GigaMapParams,
      response: answers(GigaMapInfo, 404),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const storage = context.storage;
        const map = await requireGigaMap(storage, BigInt((request.params as Static<typeof GigaMapParams>).oid));
        const indices = [];
        for (const index of map.indices) indices.push(await indexInfo(storage, map, index));
        return {
          ...(await gigaMapHead(storage, map)),
          currentId: String(map.currentId),
          level1Exponent: map.level1Exponent,
          level2Exponent: map.level2Exponent,
          level1Segments: map.level1Segments,
          level2Segments: map.level2Segments,
          segmentBytes: map.segmentBytes,
          indices,
        };
      }),
  },
  {
    path: '/objects/:oid/gigamap/entities',
    schema: {
      summary: "A GigaMap's entities in entity-id order, paged: entity id, object id and a one-line summary",
      tags: ['gigamap'],
      params: GigaMapParams,
      querystring: GigaMapPaging,
      response: answers(GigaMapEntityPage, 404),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const map = await requireGigaMap(context.storage, BigInt((request.params as Static<typeof GigaMapParams>).oid));
        const query = request.query as Static<typeof GigaMapPaging>;
        const offset = query.offset ?? 0;
        const limit = query.limit ?? 100;
        const from = Math.min(offset, map.entityIds.length);
        const to = Math.min(map.entityIds.length, from + limit);
        return { ...(await gigaMapHead(context.storage, map)), offset, limit, entities: await entityPage(context.storage, map, from, to) };
      }),
  },
  {
    path: '/objects/:oid/gigamap/entities/:entityId',
    schema: {
      summary: 'One entity of a GigaMap by its entity id',
      tags: ['gigamap'],
      params: GigaMapEntityParams,
      response: answers(GigaMapEntity, 404),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const params = request.params as Static<typeof GigaMapEntityParams>;
        const map = await requireGigaMap(context.storage, BigInt(params.oid));
        const p = lowerBound(map.entityIds, params.entityId);
        if (p >= map.entityIds.length || map.entityIds[p] !== params.entityId) throw notFound(`GigaMap ${params.oid} has no entity with id ${params.entityId}`);
        return entityJson(context.storage, params.entityId, map.objectIds[p]!);
      }),
  },
  {
    path: '/objects/:oid/gigamap/indices/:index/keys',
    schema: {
      summary: "An index's keys with the number of entities under each, paged",
      description: 'Keys read as the Java text of their values (hashing), `true` (boolean), the long whose bits hold the entity (binary), or `[part, part, ...]` (composite).',
      tags: ['gigamap'],
      params: GigaMapIndexParams,
      querystring: GigaMapKeysQuery,
      response: answers(GigaMapKeyPage, 404),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const params = request.params as Static<typeof GigaMapIndexParams>;
        const query = request.query as Static<typeof GigaMapKeysQuery>;
        const { index, keys } = await requireIndex(context.storage, BigInt(params.oid), params.index);
        const offset = query.offset ?? 0;
        const limit = query.limit ?? 100;
        const order = query.order ?? 'key';
        const ordered = order === 'count' ? countOrder(keys) : undefined;
        const page = [];
        for (let i = offset; i < Math.min(keys.keyCount, offset + limit); i++) {
          const k = ordered === undefined ? i : ordered[i]!;
          page.push({ key: keys.keyText(k), count: keys.count(k) });
        }
        return { objectId: params.oid, index: indexSummary(index), order, total: keys.keyCount, offset, limit, keys: page };
      }),
  },
  {
    path: '/objects/:oid/gigamap/indices/:index/entities',
    schema: {
      summary: 'The entities under one key of an index, in entity-id order, paged (decoded from its bitmap)',
      tags: ['gigamap'],
      params: GigaMapIndexParams,
      querystring: GigaMapKeyQuery,
      response: answers(GigaMapKeyEntities, 404),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const params = request.params as Static<typeof GigaMapIndexParams>;
        const query = request.query as Static<typeof GigaMapKeyQuery>;
        const storage = context.storage;
        const objectId = BigInt(params.oid);
        const { index, keys } = await requireIndex(storage, objectId, params.index);
        const k = keys.find(query.key);
        if (k < 0) throw notFound(`index ${params.index} of GigaMap ${params.oid} has no key ${JSON.stringify(query.key)}`);
        const map = await gigaMapOf(storage, objectId);
        const offset = query.offset ?? 0;
        const limit = query.limit ?? 100;
        const ids = keys.entities(k);
        const entities: GigaMapEntityJson[] = [];
        for (let i = offset; i < Math.min(ids.length, offset + limit); i++) {
          const p = lowerBound(map.entityIds, ids[i]!);
          // An id whose slot is empty (a damaged index) still shows, without an object.
          if (p < map.entityIds.length && map.entityIds[p] === ids[i]) entities.push(await entityJson(storage, ids[i]!, map.objectIds[p]!));
          else entities.push({ entityId: ids[i]!, objectId: '0', typeName: null, summary: 'no entity in this slot (named by the bitmap only)' });
        }
        return { objectId: params.oid, index: indexSummary(index), key: query.key, total: ids.length, offset, limit, entities };
      }),
  },
];
