import { Type, type Static } from 'typebox';
import { resolveJdkConstant } from '../../../format/ids.js';
import { shortestPaths } from '../../../graph/queries/shortest-paths.js';
import { GIGAMAP } from '../../../gigamap/gigamap-type-names.js';
import { isLazyType } from '../../../inspect/type-names.js';
import { gigaMapPart } from '../gigamap/gigamap-routes.js';
import { ObjectViewWithGigaMap } from '../../../api-contract/gigamap-schemas.js';
import { objectViewOf, OTHER_PLACES, requireGraph, storedNode, typeNameOf, viaOf } from '../analysis/graph-answers.js';
import { answers, notFound } from '../machinery/problem-details.js';
import { retainedPart, retainedRoutes } from '../analysis/retained-routes.js';
import type { ApiRoute } from '../machinery/routing.js';
import { ObjectParams, Paging, PathList, ReferrerList, type ViaJson } from '../../../api-contract/schemas.js';
import { relativeToStorage, storageFileName } from '../../../api-contract/storage-paths.js';
import { summariesOf } from '../analysis/summaries.js';

/** `/objects/{oid}`, its referrers and its paths from the roots; with them the retained routes (retained-routes.ts). */

const PagingQuery = Type.Object(Paging);
const PathsQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 3, description: 'paths at most' })) });

export const objectRoutes: readonly ApiRoute[] = [
  {
    path: '/objects/:oid',
    schema: {
      summary: 'An object: its type, every member by name with its value, list elements and map entries paged',
      description: '`offset` and `limit` page the elements of every list member (collections, arrays, map entries), and the entities of a GigaMap (`gigamap`).',
      tags: ['objects'],
      params: ObjectParams,
      querystring: PagingQuery,
      response: answers(ObjectViewWithGigaMap, 404),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const graph = requireGraph(context);
        const query = request.query as Static<typeof PagingQuery>;
        const window = { offset: query.offset ?? 0, limit: query.limit ?? 100 };
        const objectId = BigInt((request.params as Static<typeof ObjectParams>).oid);
        const view = await objectViewOf(context, graph, objectId, window);
        // Once the dominator tree is computed: what the object retains and its immediate dominator.
        const retained = view.constant === true ? undefined : retainedPart(context, graph, objectId);
        const damaged = context.served?.damagedObjects?.get(view.objectId);
        const marked =
          damaged === undefined
            ? view
            : {
                ...view,
                damage: {
                  code: damaged.code,
                  ...(damaged.file === undefined ? {} : { file: storageFileName(context.storage, damaged.file) }),
                  ...(damaged.offset === undefined ? {} : { offset: damaged.offset }),
                  message: relativeToStorage(context.storage, damaged.message),
                },
              };
        const withRetained = retained === undefined ? marked : { ...marked, ...retained };
        return view.typeName === GIGAMAP && view.constant !== true ? { ...withRetained, gigamap: await gigaMapPart(context.storage, BigInt(view.objectId), window) } : withRetained;
      }),
  },
  {
    path: '/objects/:oid/referrers',
    schema: {
      summary: 'The objects that refer to this one, through which members, elements or map keys, and a summary of each',
      description: 'Also answers for ids that are referenced but not stored (missing references). `via` is the first place in the referrer, `via.others` the further ones (up to 100).',
      tags: ['objects'],
      params: ObjectParams,
      querystring: PagingQuery,
      response: answers(ReferrerList, 404),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const graph = requireGraph(context);
        const objectId = BigInt((request.params as Static<typeof ObjectParams>).oid);
        const query = request.query as Static<typeof PagingQuery>;
        const offset = query.offset ?? 0;
        const limit = query.limit ?? 100;
        const node = graph.nodes.nodeOfId(objectId);
        let total: number;
        let page: number[];
        if (node >= 0) {
          total = graph.adjacency.referrerCount(node);
          page = [...graph.adjacency.referrers(node, offset, limit)];
        } else {
          const sources = graph.missing.sourcesOf(objectId);
          if (sources.length === 0) {
            throw notFound(resolveJdkConstant(objectId) !== undefined ? `object ${objectId} is a JDK constant: its referrers are not tracked` : `object ${objectId} is neither stored nor referenced`);
          }
          total = sources.length;
          page = sources.slice(offset, offset + limit);
        }
        const summaries = await summariesOf(context, graph, page.map((r) => graph.nodes.idOf(r)));
        const referrers = [];
        for (const r of page) {
          const id = graph.nodes.idOf(r);
          const summary = summaries.get(id);
          const referrer = { objectId: String(id), typeName: typeNameOf(graph, r), via: await viaOf(context, graph, r, objectId, OTHER_PLACES) };
          referrers.push(summary === undefined ? referrer : { ...referrer, summary });
        }
        return { objectId: String(objectId), total, offset, limit, referrers };
      }),
  },
  {
    path: '/objects/:oid/paths',
    schema: {
      summary: 'Shortest paths from the roots entity to the object (how it is reachable)',
      tags: ['objects'],
      params: ObjectParams,
      querystring: PathsQuery,
      response: answers(PathList, 404),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const graph = requireGraph(context);
        const objectId = BigInt((request.params as Static<typeof ObjectParams>).oid);
        const node = storedNode(graph, objectId);
        const result = shortestPaths(graph, node, (request.query as Static<typeof PathsQuery>).limit ?? 3);
        const summaries = await summariesOf(context, graph, result.paths.flat().map((n) => graph.nodes.idOf(n)));
        const paths = [];
        for (const path of result.paths) {
          const steps: { objectId: string; typeName: string; via: ViaJson | null; lazyObjectId?: string; summary?: string }[] = [];
          for (let i = 0; i < path.length; i++) {
            const id = graph.nodes.idOf(path[i]!);
            const typeName = typeNameOf(graph, path[i]!);
            let via = i === 0 ? null : await viaOf(context, graph, path[i - 1]!, id);
            // A Lazy is no step of its own: what it holds is reached through the member holding the Lazy.
            const before = steps.at(-1);
            let lazyObjectId: string | undefined;
            if (before !== undefined && isLazyType(before.typeName)) {
              steps.pop();
              via = before.via;
              lazyObjectId = before.objectId;
            }
            const summary = summaries.get(id);
            steps.push({ objectId: String(id), typeName, via, ...(lazyObjectId === undefined ? {} : { lazyObjectId }), ...(summary === undefined ? {} : { summary }) });
          }
          paths.push(steps);
        }
        return { objectId: String(objectId), reachable: result.reachable, length: result.length, truncated: result.truncated, paths };
      }),
  },
  ...retainedRoutes,
];
