import { Type, type Static } from 'typebox';
import { searchText } from '../../graph/text-search.js';
import type { StorageContext } from '../storage-registry.js';
import { requireGraph } from './graph-answers.js';
import { analysis } from './reports.js';
import { answers, badRequest } from './problem.js';
import type { ApiRoute } from './routing.js';
import { Analysis, MAX_LIMIT, SearchResult } from './schemas.js';

/** `/analysis` (what is garbage, what is missing, where the space goes) and `/search`. */

const AnalysisQuery = Type.Object({
  examples: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, default: 20, description: 'missing ids to list' })),
  referrers: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 5, description: 'referrers to list per missing id' })),
});

const SearchQuery = Type.Object({
  q: Type.String({ minLength: 1, maxLength: 1000, description: 'text to find (case-insensitive) in texts and primitive values' }),
  type: Type.Optional(Type.String({ minLength: 1, description: 'a type id, or a type name (all its versions)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: 100 })),
  maxMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 30_000, default: 2000, description: 'stop scanning after this many milliseconds' })),
});

export const analysisRoutes: readonly ApiRoute[] = [
  {
    path: '/analysis',
    schema: {
      summary: 'Reachable and unreachable (garbage) objects by type, missing references, superseded and garbage bytes per file',
      tags: ['analysis'],
      querystring: AnalysisQuery,
      response: answers(Analysis),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const graph = requireGraph(context);
        const query = request.query as Static<typeof AnalysisQuery>;
        return analysis(context, graph, query.examples ?? 20, query.referrers ?? 5);
      }),
  },
  {
    path: '/search',
    // Its scan is bounded by maxMs; holding a building slot that long would stall big answers.
    neverBig: true,
    schema: {
      summary: 'Objects whose text or primitive value contains q, optionally of one type; bounded in time',
      description: 'Scans the latest records in file order while the storage is served (a commit meanwhile may or may not be seen). Works while the graph index is still being built.',
      tags: ['search'],
      querystring: SearchQuery,
      response: answers(SearchResult),
    },
    handler: async (request, _reply, context) => {
      const query = request.query as Static<typeof SearchQuery>;
      const typeIds = query.type === undefined ? undefined : typeIdsOf(context, query.type);
      const started = Date.now();
      const outcome = await searchText(context.storage, {
        query: query.q,
        ...(typeIds === undefined ? {} : { typeIds: new Set(typeIds) }),
        limit: query.limit ?? 100,
        deadline: started + (query.maxMs ?? 2000),
      });
      const dictionary = context.storage.dictionary;
      return {
        query: query.q,
        ...(typeIds === undefined ? {} : { typeIds: typeIds.map(String) }),
        complete: outcome.stoppedBy === undefined,
        stoppedBy: outcome.stoppedBy ?? null,
        scannedBytes: outcome.scannedBytes,
        totalBytes: outcome.totalBytes,
        elapsedMs: Date.now() - started,
        results: outcome.hits.map((h) => ({ objectId: String(h.objectId), typeName: dictionary.byId.get(h.typeId)?.typeName ?? String(h.typeId), member: h.member, text: h.text })),
      };
    },
  },
];

function typeIdsOf(context: StorageContext, type: string): bigint[] {
  const dictionary = context.storage.dictionary;
  if (/^[0-9]{1,19}$/.test(type)) {
    const typeId = BigInt(type);
    if (!dictionary.byId.has(typeId)) throw badRequest(`type id ${type} is not in the type dictionary`);
    return [typeId];
  }
  const ids = dictionary.entries.filter((e) => e.typeName === type).map((e) => e.typeId);
  if (ids.length === 0) throw badRequest(`no type named ${type} in the type dictionary`);
  return ids;
}

