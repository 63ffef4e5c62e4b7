import { storageFileName } from '../../../api-contract/storage-paths.js';
import { Type, type Static } from 'typebox';
import type { GraphIndex } from '../../../graph/model/graph-index.js';
import type { ObjectVersion } from '../../../graph/queries/object-versions.js';
import { diffObjectViews, type ObjectView as View } from '../../../inspect/object-view.js';
import type { StorageContext } from '../../../registry/storage-registry.js';
import { requireGraph, storedNode, viewOf } from '../analysis/graph-answers.js';
import { answers, notFound } from '../machinery/problem-details.js';
import type { ApiRoute } from '../machinery/routing.js';
import { ObjectParams, Paging, VersionDetail, VersionList, type Version } from '../../../api-contract/schemas.js';

/** `/objects/{oid}/versions` and `/objects/{oid}/versions/{n}`. */

const VersionParams = Type.Object({ ...ObjectParams.properties, n: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'version number, 0 = the current one' }) });
const PagingQuery = Type.Object(Paging);

export const versionRoutes: readonly ApiRoute[] = [
  {
    path: '/objects/:oid/versions',
    schema: {
      summary: 'Every record of the object still on disk, newest first, each with the commit that made it valid',
      description: '`offset` and `limit` page the versions; `total` counts them all.',
      tags: ['versions'],
      params: ObjectParams,
      querystring: PagingQuery,
      response: answers(VersionList, 404),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const graph = requireGraph(context);
        const objectId = BigInt((request.params as Static<typeof ObjectParams>).oid);
        storedNode(graph, objectId);
        const query = request.query as Static<typeof PagingQuery>;
        const offset = query.offset ?? 0;
        const limit = query.limit ?? 100;
        const page = await context.versions.list(graph, objectId, offset, limit);
        return { objectId: String(objectId), total: page.total, offset, limit, versions: page.versions.map((v, i) => versionJson(context, v, offset + i)) };
      }),
  },
  {
    path: '/objects/:oid/versions/:n',
    schema: {
      summary: 'One version of the object (its view) and what changed from it to the next newer version',
      tags: ['versions'],
      params: VersionParams,
      querystring: PagingQuery,
      response: answers(VersionDetail, 404),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const graph = requireGraph(context);
        const params = request.params as Static<typeof VersionParams>;
        const query = request.query as Static<typeof PagingQuery>;
        const window = { offset: query.offset ?? 0, limit: query.limit ?? 100 };
        const objectId = BigInt(params.oid);
        storedNode(graph, objectId);
        // Version n and the next newer one (n - 1), read alone.
        const first = Math.max(0, params.n - 1);
        const page = await context.versions.list(graph, objectId, first, params.n - first + 1);
        const version = page.versions[params.n - first];
        if (version === undefined) throw notFound(`object ${objectId} has ${page.total} versions on disk (0 to ${page.total - 1})`);
        const view = await versionView(context, graph, version, objectId, window);
        const newer = params.n > 0 ? await versionView(context, graph, page.versions[0]!, objectId, window) : undefined;
        return {
          objectId: String(objectId),
          version: versionJson(context, version, params.n),
          view,
          comparedWith: newer === undefined ? null : params.n - 1,
          changes: newer === undefined ? [] : diffObjectViews(view as unknown as View, newer as unknown as View),
        };
      }),
  },
];

async function versionView(context: StorageContext, graph: GraphIndex, version: ObjectVersion, objectId: bigint, window: { offset: number; limit: number }) {
  return viewOf(context, graph, await context.versions.read(version, objectId), window);
}

function versionJson(context: StorageContext, v: ObjectVersion, n: number): Static<typeof Version> {
  const commit = v.commit;
  return {
    n,
    current: v.current,
    channel: v.channel,
    // Relative to the storage: answers never say where the server keeps it (api-contract/storage-paths.ts).
    file: storageFileName(context.storage, v.file.path),
    fileNumber: String(v.file.fileNumber),
    offset: v.offset,
    length: v.length,
    typeId: String(v.typeId),
    typeName: context.storage.dictionary.byId.get(v.typeId)?.typeName ?? `unknown type id ${v.typeId}`,
    commit: commit === undefined ? null : { kind: commit.kind, timestamp: String(commit.timestamp), time: new Date(Number(commit.timestamp / 1_000_000n)).toISOString() },
  };
}
