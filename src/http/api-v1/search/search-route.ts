import { Type, type Static } from 'typebox';
import type { GraphIndex } from '../../../graph/model/graph-index.js';
import { searchText, type SearchHit } from '../../../graph/queries/text-search.js';
import { NOT_STORED } from '../../../graph/model/type-table.js';
import { lookUpType } from '../../../inspect/type-names.js';
import type { StorageContext } from '../../../registry/storage-registry.js';
import { requireGraph, viaOf } from '../analysis/graph-answers.js';
import { answers, ApiProblem, badRequest } from '../machinery/problem-details.js';
import type { ApiRoute } from '../machinery/routing.js';
import { MAX_LIMIT, SEARCH_MAX_OFFSET, SearchResult } from '../../../api-contract/schemas.js';
import { summariesOf } from '../analysis/summaries.js';
import { searchSlotsOf } from './search-slots.js';

/**
 * `/search`: a text or value anywhere in the storage, reported where people look for it. A match
 * inside a value object (a String, an Integer, a Date) is reported as each object holding that
 * value and the member it holds it in (`gen.Person 1000… .name = "Greta Schmidt"`). Owners are known
 * from the graph index: while it is built, the search answers 503 with Retry-After like the other
 * routes that need it (a value object listed as itself, complete, was a wrong answer). The type
 * filter applies to these owners (or to the value's own type), and pages go on past the first with
 * `offset`.
 */

/** Owners listed per matching value object (a String shared by more is rare; the rest are left out). */
const OWNERS_PER_VALUE = 100;

const SearchQuery = Type.Object({
  q: Type.String({ minLength: 1, maxLength: 1000, description: 'text to find (case-insensitive) in texts, values and primitive members' }),
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'a type id, a full type name (all its versions) or a simple name (`Person`) where unambiguous' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: SEARCH_MAX_OFFSET, default: 0, description: 'results to skip (the scan starts again from the beginning)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: 100 })),
  maxMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 30_000, default: 2000, description: 'stop scanning after this many milliseconds' })),
});

type Row = SearchHit;
type FoundType = Exclude<ReturnType<typeof lookUpType>, { error: string }>;

export const searchRoutes: readonly ApiRoute[] = [
  {
    path: '/search',
    // Its scan is bounded by maxMs; holding a building slot that long would stall big answers.
    neverBig: true,
    schema: {
      summary: 'Objects holding a text or value containing q (the owner and member for texts and values in value objects), optionally of one type; paged; bounded in time',
      description:
        'Scans the latest records in file order while the storage is served (a commit meanwhile may or may not be seen). Needs the graph index to name the owners of matching value objects: while it is built, 503 with Retry-After and progress. Searches running at once are limited (serve --search-max-concurrent, default 4, shared with the MCP search tool): beyond the limit, 503 with Retry-After at once.',
      tags: ['search'],
      querystring: SearchQuery,
      response: answers(SearchResult),
    },
    handler: async (request, reply, context, options) => {
      const query = request.query as Static<typeof SearchQuery>;
      const found = query.type === undefined ? undefined : lookUpType(context.storage.dictionary, query.type);
      if (found !== undefined && 'error' in found) throw badRequest(found.error);
      const graph = requireGraph(context);
      // A slot for the whole of the work (the scan and the owners' descriptions), or a 503 at once.
      const release = searchSlotsOf(options.registry).take();
      // A client that goes away stops its scan (and frees the slot) at the scan's next pause.
      const gone = new AbortController();
      reply.raw.once('close', () => gone.abort());
      try {
        return await search(context, graph, query, found, gone.signal);
      } finally {
        release();
      }
    },
  },
];

/** One search with its slot: the scan, then the page of results described. */
async function search(context: StorageContext, graph: GraphIndex, query: Static<typeof SearchQuery>, found: FoundType | undefined, signal: AbortSignal): Promise<unknown> {
  const typeIds = found === undefined ? undefined : new Set(found.entries.map((e) => e.typeId));
  const offset = query.offset ?? 0;
  const limit = query.limit ?? 100;
  const started = Date.now();
  const outcome = await searchText(context.storage, {
    query: query.q,
    limit: offset + limit,
    deadline: started + (query.maxMs ?? 2000),
    expand: (hit) => rowsOf(hit, graph, typeIds),
    signal,
  });
  if (outcome.stoppedBy === 'cancelled') throw new ApiProblem(499, 'Cancelled', 'the client went away');
  const page = outcome.hits.slice(offset);
  const dictionary = context.storage.dictionary;
  const results = await context.storage.consistent(() => describeRows(context, graph, page));
  return {
    query: query.q,
    ...(found === undefined ? {} : { typeIds: found.entries.map((e) => String(e.typeId)), typeName: found.typeName }),
    offset,
    limit,
    complete: outcome.stoppedBy === undefined,
    stoppedBy: outcome.stoppedBy ?? null,
    scannedBytes: outcome.scannedBytes,
    totalBytes: outcome.totalBytes,
    elapsedMs: Date.now() - started,
    results: results.map(({ row, member, summary }) => ({
      objectId: String(row.objectId),
      typeName: dictionary.byId.get(row.typeId)?.typeName ?? String(row.typeId),
      member,
      text: row.text,
      value: row.value,
      ...(row.valueObjectId === undefined ? {} : { valueObjectId: String(row.valueObjectId), valueTypeName: dictionary.byId.get(row.valueTypeId!)?.typeName ?? String(row.valueTypeId) }),
      ...(summary === undefined ? {} : { summary }),
    })),
  };
}

/** A hit as result rows: a value object as its owners (of the type asked for), anything else as itself. */
function rowsOf(hit: SearchHit, graph: GraphIndex, typeIds: ReadonlySet<bigint> | undefined): readonly Row[] {
  const itself = typeIds === undefined || typeIds.has(hit.typeId);
  if (!hit.valueObject) return itself ? [hit] : [];
  const node = graph.nodes.nodeOfId(hit.objectId);
  if (!graph.isStored(node) || graph.adjacency.referrerCount(node) === 0) return itself ? [hit] : [];
  const rows: Row[] = [];
  for (const referrer of graph.adjacency.referrers(node, 0, OWNERS_PER_VALUE)) {
    const type = graph.typeOf(referrer);
    if (type === NOT_STORED) continue;
    const ownerTypeId = graph.types.at(type).typeId;
    if (!itself && !typeIds!.has(ownerTypeId)) continue;
    rows.push({ ...hit, objectId: graph.nodes.idOf(referrer), typeId: ownerTypeId, valueObjectId: hit.objectId, valueTypeId: hit.typeId });
  }
  return rows;
}

/** The member each owner holds its value in, and a summary of each object. */
async function describeRows(context: StorageContext, graph: GraphIndex, rows: readonly Row[]): Promise<{ row: Row; member: string; summary?: string }[]> {
  const summaries = await summariesOf(context, graph, rows.map((r) => r.objectId));
  const out = [];
  for (const row of rows) {
    let member = row.member;
    if (row.valueObjectId !== undefined) {
      const node = graph.nodes.nodeOfId(row.objectId);
      const via = graph.isStored(node) ? await viaOf(context, graph, node, row.valueObjectId) : null;
      member = via?.text ?? '';
    }
    const summary = summaries.get(row.objectId);
    out.push(summary === undefined ? { row, member } : { row, member, summary });
  }
  return out;
}
