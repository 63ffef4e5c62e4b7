import { Type, type Static } from 'typebox';
import { instancesOf } from '../../../graph/queries/graph-figures.js';
import type { GraphIndex } from '../../../graph/model/graph-index.js';
import { requireGraph } from '../analysis/graph-answers.js';
import { withGigaMapMachinery } from '../gigamap/gigamap-machinery-field.js';
import { NdjsonExport } from './ndjson-export.js';
import { roomBeforeStream } from '../../guard/streamed-room.js';
import { storageInfo, typeList } from '../analysis/reports.js';
import { summariesOf } from '../analysis/summaries.js';
import { answers, notFound } from '../machinery/problem-details.js';
import type { ApiRoute } from '../machinery/routing.js';
import { InstanceList, ObjectView, Paging, StorageInfo, TypeList, TypeParams } from '../../../api-contract/schemas.js';

/** `/storage`, `/types`, `/types/{typeId}/instances` and its NDJSON export. */

const InstancesQuery = Type.Object({
  ...Paging,
  reachable: Type.Optional(Type.Boolean({ description: 'true: only instances reachable from the roots; false: only unreachable ones (garbage); absent: all' })),
  summaries: Type.Optional(Type.Boolean({ default: false, description: 'add a one-line summary of each object' })),
});

const TypesQuery = Type.Object({
  ...Paging,
  sort: Type.Optional(Type.Union([Type.Literal('typeId'), Type.Literal('bytes'), Type.Literal('instances'), Type.Literal('name')], { default: 'typeId' })),
});

export const storageRoutes: readonly ApiRoute[] = [
  {
    path: '/storage',
    schema: {
      summary: 'The storage: channels, entities, roots, files, bytes, last commit, graph index state',
      tags: ['storage'],
      response: answers(StorageInfo),
    },
    handler: (_request, _reply, context) => context.storage.consistent(() => storageInfo(context)),
  },
  {
    path: '/types',
    schema: {
      summary: 'Every type id (legacy versions too) with its instances and the bytes of their latest records',
      tags: ['types'],
      querystring: TypesQuery,
      response: answers(TypeList),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const query = request.query as Static<typeof TypesQuery>;
        const graph = requireGraph(context);
        const types = await withGigaMapMachinery(context.storage, graph, typeList(context, graph));
        const sort = query.sort ?? 'typeId';
        if (sort === 'bytes') types.sort((a, b) => b.liveBytes - a.liveBytes || cmp(a.typeId, b.typeId));
        else if (sort === 'instances') types.sort((a, b) => b.instances - a.instances || cmp(a.typeId, b.typeId));
        else if (sort === 'name') types.sort((a, b) => (a.typeName < b.typeName ? -1 : a.typeName > b.typeName ? 1 : cmp(a.typeId, b.typeId)));
        const offset = query.offset ?? 0;
        return { total: types.length, types: types.slice(offset, offset + (query.limit ?? 100)) };
      }),
  },
  {
    path: '/types/:typeId/instances',
    schema: {
      summary: 'The object ids of a type, ascending; all, only reachable or only unreachable (garbage) ones; with summaries on request',
      description: '`reachable=false` lists exactly the garbage of this type that /analysis counts.',
      tags: ['types'],
      params: TypeParams,
      querystring: InstancesQuery,
      response: answers(InstanceList, 404),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const graph = requireGraph(context);
        const { typeId, type } = typeOf(graph, (request.params as Static<typeof TypeParams>).typeId);
        const query = request.query as Static<typeof InstancesQuery>;
        const offset = query.offset ?? 0;
        const limit = query.limit ?? 100;
        const { total, nodes } = instancesOf(graph, type, offset, limit, query.reachable);
        const ids = nodes.map((n) => graph.nodes.idOf(n));
        const answer = {
          typeId: String(typeId),
          typeName: graph.types.nameOf(type),
          total,
          offset,
          limit,
          ...(query.reachable === undefined ? {} : { reachable: query.reachable }),
          objectIds: ids.map(String),
        };
        if (query.summaries !== true) return answer;
        const summaries = await summariesOf(context, graph, ids);
        return { ...answer, summaries: ids.map((id) => summaries.get(id) ?? null) };
      }),
  },
  {
    path: '/types/:typeId/instances.ndjson',
    schema: {
      summary: 'Every instance of a type as its type-aware view, one JSON object a line, streamed',
      description: 'Each line is an ObjectView (lists in full up to 10,000 elements). Lines are read in batches, each from one consistent state, as the client takes them; their bytes count against --max-unsent-bytes.',
      tags: ['types'],
      params: TypeParams,
      produces: ['application/x-ndjson'],
      response: answers({ description: 'one ObjectView a line', content: { 'application/x-ndjson': { schema: ObjectView } } }, 404),
    },
    handler: async (request, reply, context, options) => {
      const typeIdText = (request.params as Static<typeof TypeParams>).typeId;
      await context.storage.consistent(async () => typeOf(requireGraph(context), typeIdText));
      await roomBeforeStream(request.server.unsentAnswers, options.requestTimeoutMs, reply.raw);
      reply.type('application/x-ndjson');
      return new NdjsonExport(context, BigInt(typeIdText), reply.raw, request.server.unsentAnswers, request.log);
    },
  },
];

function cmp(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}

function typeOf(graph: GraphIndex, typeIdText: string): { typeId: bigint; type: number } {
  const typeId = BigInt(typeIdText);
  const type = graph.types.find(typeId);
  if (type === undefined) throw notFound(`type id ${typeId} is not in the type dictionary`);
  return { typeId, type };
}
