import { FormatError } from '../../../errors.js';
import { layoutEntity } from '../../../format/entity-layout.js';
import { resolveJdkConstant } from '../../../format/ids.js';
import { UTC } from '../../../javatext/java-time-zones.js';
import type { GraphIndex } from '../../../graph/model/graph-index.js';
import { findReferencePlaces, RecordReferencePlaces, type ReferencePlace } from '../../../graph/queries/reference-places.js';
import type { TypeEntry } from '../../../format/type-dictionary.js';
import type { StoredEntity } from '../../../storage/storage.js';
import { NOT_STORED } from '../../../graph/model/type-table.js';
import { describeObjectView, type ReferenceInfo, type ViewableEntity } from '../../../inspect/object-view.js';
import { simplifiedRenderer } from '../../../inspect/simplified-value.js';
import type { StorageContext } from '../../../registry/storage-registry.js';
import { ApiProblem, notFound } from '../machinery/problem-details.js';
import type { ObjectViewJson, ViaJson } from '../../../api-contract/schemas.js';

/**
 * The building blocks of our answers that combine the graph with record bytes: type names of
 * nodes, what a reference points at (with the Java text of value types), through what a referrer
 * holds a reference, and the type-aware view of an object.
 */

const TEXT_PREVIEW = 200;

/** The graph if it is ready; a 503 problem with progress and Retry-After while it is built. */
export function requireGraph(context: StorageContext): GraphIndex {
  const state = context.graph.state;
  if (state.kind === 'ready') return state.graph;
  if (state.kind === 'failed') {
    const message = state.error instanceof Error ? state.error.message : String(state.error);
    throw new ApiProblem(500, 'Graph Index Failed', `the graph index of storage ${context.name} could not be built: ${message}`);
  }
  const elapsedMs = Date.now() - state.startedAt;
  const p = state.progress;
  const fraction = p === undefined || p.bytesTotal === 0 ? 0 : p.bytesDone / p.bytesTotal;
  const remaining = fraction > 0.05 ? (elapsedMs * (1 - fraction)) / fraction / 1000 : 2;
  const retryAfter = Math.min(60, Math.max(1, Math.ceil(remaining)));
  const progress = { phase: p?.phase ?? 'starting', percent: Math.floor(fraction * 100), bytesDone: p?.bytesDone ?? 0, bytesTotal: p?.bytesTotal ?? 0, filesDone: p?.filesDone ?? 0, filesTotal: p?.filesTotal ?? 0, elapsedMs };
  throw new ApiProblem(503, 'Graph Index Not Ready', `the graph index of storage ${context.name} is being built (${progress.percent}%); ask again in ${retryAfter} s`, { 'retry-after': String(retryAfter) }, { progress });
}

export function typeNameOf(graph: GraphIndex, node: number): string {
  const t = graph.typeOf(node);
  return t === NOT_STORED ? 'not stored' : graph.types.nameOf(t);
}

/** What each id points at: type name (from the graph), Java text of value types, or missing. */
export async function referenceInfos(context: StorageContext, graph: GraphIndex, ids: readonly bigint[]): Promise<Map<bigint, ReferenceInfo>> {
  const out = new Map<bigint, ReferenceInfo>();
  const dictionary = context.storage.dictionary;
  for (const id of ids) {
    const constant = resolveJdkConstant(id);
    if (constant !== undefined) {
      out.set(id, { objectId: String(id), typeName: constant.typeName, text: constant.text });
      continue;
    }
    const node = graph.nodes.nodeOfId(id);
    if (!graph.isStored(node)) {
      out.set(id, { objectId: String(id), typeName: null, missing: true });
      continue;
    }
    const type = graph.types.at(graph.typeOf(node));
    const info: ReferenceInfo = { objectId: String(id), typeName: graph.types.nameOf(graph.typeOf(node)) };
    const renderer = type.entry === undefined ? undefined : simplifiedRenderer(type.entry, dictionary);
    if (renderer !== undefined && type.entry !== undefined) {
      try {
        const entity = await context.storage.readEntity(id);
        if (entity !== undefined) {
          const text = renderer(layoutEntity(type.entry, entity.content), { dictionary, timeZone: UTC, objectId: id });
          out.set(id, { objectId: info.objectId, typeName: info.typeName, text: text.length > TEXT_PREVIEW ? `${text.slice(0, TEXT_PREVIEW)}…` : text });
          continue;
        }
      } catch {
        // a value Java could not rebuild either: the type name alone
      }
    }
    out.set(id, info);
  }
  return out;
}

/**
 * Records from this size on have the places of all their references indexed once and kept
 * (the latest used, up to a number of references in all): the collection near the root that
 * most paths go through (717 KB in the 100M benchmark storage) is then walked once instead of
 * once per path step.
 */
const INDEXED_RECORD_BYTES = 64 * 1024;
const INDEXED_REFERENCES = 4 * 1024 * 1024;
const indexedRecords = new WeakMap<StorageContext, Map<string, RecordReferencePlaces | undefined>>();

/** The places (at most `limit`) in `referrer`'s latest record (as read into `entity`) where it refers to `target`. */
function placesOf(context: StorageContext, entry: TypeEntry, entity: StoredEntity, target: bigint, limit: number): ReferencePlace[] {
  // Too small to be worth it, or too large to keep: walked for this question alone.
  if (entity.content.length < INDEXED_RECORD_BYTES || entity.content.length / 8 > INDEXED_REFERENCES) {
    return findReferencePlaces(entry, entity.content, target, limit);
  }
  let records = indexedRecords.get(context);
  if (records === undefined) indexedRecords.set(context, (records = new Map()));
  // Keyed by where the record is: a newer version of the object is indexed anew.
  const key = `${entity.objectId}@${entity.file}:${entity.offset}`;
  let places: RecordReferencePlaces | undefined;
  if (records.has(key)) {
    places = records.get(key);
    records.delete(key);
  } else {
    places = RecordReferencePlaces.index(entry, entity.content);
    let kept = [...records.values()].reduce((n, r) => n + (r?.references ?? 0), places?.references ?? 0);
    for (const [oldest, record] of records) {
      if (kept <= INDEXED_REFERENCES) break;
      records.delete(oldest);
      kept -= record?.references ?? 0;
    }
  }
  // Last in the map: the most recently used.
  records.set(key, places);
  return places === undefined ? findReferencePlaces(entry, entity.content, target, limit) : places.findAll(entity.content, target, limit);
}

function placeText(place: ReferencePlace): string {
  return `${place.memberName}${place.indices.map((i) => `[${i}]`).join('')}${place.element === undefined ? '' : `.${place.element}`}`;
}

/** Further places listed after the first (`Via.others`). */
export const OTHER_PLACES = 100;

/**
 * Through which member (element, map entry) `referrer` holds a reference to `target`; with
 * `others`, up to that many further places in the same record as well.
 */
export async function viaOf(context: StorageContext, graph: GraphIndex, referrer: number, target: bigint, others = 0): Promise<ViaJson | null> {
  const entity = await context.storage.readEntity(graph.nodes.idOf(referrer));
  if (entity === undefined) return null;
  const entry = context.storage.dictionary.byId.get(entity.typeId);
  if (entry === undefined) return null;
  const places = placesOf(context, entry, entity, target, 1 + others);
  const place = places[0];
  if (place === undefined) return null;
  const via: { -readonly [K in keyof ViaJson]: ViaJson[K] } = { text: placeText(place), member: place.member.name };
  if (place.memberName !== place.member.name && place.member.qualifier !== undefined) via.declaringClass = place.member.qualifier;
  if (place.indices.length > 0) via.indices = [...place.indices];
  if (place.element !== undefined) via.element = place.element;
  if (place.keyId !== undefined && place.keyId !== 0n) {
    const key = (await referenceInfos(context, graph, [place.keyId])).get(place.keyId);
    if (key !== undefined) via.key = key as NonNullable<ViaJson['key']>;
  }
  if (places.length > 1) via.others = places.slice(1).map(placeText);
  return via;
}

/** The node of a stored object id, or a 404 problem. */
export function storedNode(graph: GraphIndex, objectId: bigint): number {
  const node = graph.nodes.nodeOfId(objectId);
  if (!graph.isStored(node)) {
    const referrers = node >= 0 ? graph.adjacency.referrerCount(node) : graph.missing.sourcesOf(objectId).length;
    throw notFound(`object ${objectId} is not stored in this storage${referrers > 0 ? ` (${referrers} objects refer to it: it is a missing reference)` : ''}`);
  }
  return node;
}

export interface ViewWindow {
  readonly offset: number;
  readonly limit: number;
}

/** The type-aware view of a record (the latest one, or an older version). */
export async function viewOf(context: StorageContext, graph: GraphIndex, entity: ViewableEntity, window: ViewWindow): Promise<ObjectViewJson> {
  const view = await describeObjectView(entity, context.storage.dictionary, {
    offset: window.offset,
    limit: window.limit,
    timeZone: UTC,
    resolve: (ids) => referenceInfos(context, graph, ids),
  });
  const node = graph.nodes.nodeOfId(entity.objectId);
  const reachable = node >= 0 && graph.isReachable(node);
  const referrers = node >= 0 ? graph.adjacency.referrerCount(node) : 0;
  const members = view.members as ObjectViewJson['members'];
  // Literals in the order `{ ...view, reachable, referrers }` had, not that spread: it cost every
  // view about 450 bytes promoted to the old generation (see valueMember in object-view.ts).
  const { objectId, typeId, typeName, typeVersion, typeVersions, currentType, text } = view;
  return text === undefined
    ? { objectId, typeId, typeName, typeVersion, typeVersions, currentType, members, reachable, referrers }
    : { objectId, typeId, typeName, typeVersion, typeVersions, currentType, text, members, reachable, referrers };
}

/** The view of the latest record of an object, or of a JDK constant id. */
export async function objectViewOf(context: StorageContext, graph: GraphIndex, objectId: bigint, window: ViewWindow): Promise<ObjectViewJson> {
  const constant = resolveJdkConstant(objectId);
  if (constant !== undefined) {
    const entry = context.storage.dictionary.currentByName.get(constant.typeName);
    return {
      objectId: String(objectId),
      typeId: String(entry?.typeId ?? 0n),
      typeName: constant.typeName,
      typeVersion: 0,
      typeVersions: context.storage.dictionary.entries.filter((e) => e.typeName === constant.typeName).length,
      currentType: true,
      text: constant.text,
      constant: true,
      reachable: true,
      referrers: 0,
      members: [],
    };
  }
  storedNode(graph, objectId);
  const entity = await context.storage.readEntity(objectId);
  if (entity === undefined) throw notFound(`object ${objectId} is not stored in this storage`);
  try {
    return await viewOf(context, graph, entity, window);
  } catch (error) {
    if (error instanceof FormatError) throw new ApiProblem(500, 'Unreadable Record', error.message);
    throw error;
  }
}
