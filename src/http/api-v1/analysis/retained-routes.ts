import type { Static } from 'typebox';
import { channelOf } from '../../../format/ids.js';
import type { DominatorTree } from '../../../graph/model/dominator-tree.js';
import type { GraphIndex } from '../../../graph/model/graph-index.js';
import { retainedByType } from '../../../graph/queries/retained.js';
import type { StorageContext } from '../../../registry/storage-registry.js';
import { requireGraph, storedNode, typeNameOf } from './graph-answers.js';
import { ApiProblem, answers, notFound } from '../machinery/problem-details.js';
import type { ApiRoute } from '../machinery/routing.js';
import { ObjectParams, ObjectRef, RetainedFigures } from '../../../api-contract/schemas.js';
import {
  DominatorsAnswer,
  DominatorsQuery,
  RETAINED_MAX_PAGE,
  RETAINED_MAX_TYPES,
  RetainedAnswer,
  RetainedQuery,
  RetainerEntry,
  RetainersAnswer,
  RetainersQuery,
  type RetainersJson,
} from '../../../api-contract/retained-schemas.js';
import { summariesOf } from './summaries.js';

/**
 * What keeps the bytes alive: the dominator tree of a storage (`/dominators`, a node's children
 * by retained bytes), the biggest retainers (`/retainers`) and one object's retained set and
 * dominator chain (`/objects/{oid}/retained`). Every answer is bounded: pages of at most 1,000,
 * chains of at most 1,000 steps, at most 50 types per breakdown.
 */

/** The tree of the graph's current state; a 503 problem with progress while it is computed. */
export function requireDominators(context: StorageContext, graph: GraphIndex): DominatorTree {
  const tree = context.graph.dominators.treeOf(graph);
  if (tree !== undefined) return tree;
  const state = context.graph.dominators.state;
  if (state.kind === 'failed') {
    const message = state.error instanceof Error ? state.error.message : String(state.error);
    throw new ApiProblem(500, 'Dominator Tree Failed', `the dominator tree of storage ${context.name} could not be computed: ${message}`);
  }
  const p = state.kind === 'computing' ? state.progress : undefined;
  const percent = p === undefined || p.total === 0 ? 0 : Math.min(100, Math.floor((100 * p.done) / p.total));
  const progress = { phase: p?.phase ?? 'starting', percent, elapsedMs: state.kind === 'computing' ? Date.now() - state.startedAt : 0 };
  throw new ApiProblem(503, 'Dominator Tree Not Ready', `the dominator tree of storage ${context.name} is being computed (${progress.phase}, ${percent}%); ask again in 1 s`, { 'retry-after': '1' }, { progress });
}

/** `retained` of an object: its figures, or null when it is unreachable. */
export function retainedFigures(tree: DominatorTree, node: number): Static<typeof RetainedFigures> | null {
  if (!tree.isReachable(node)) return null;
  const total = tree.reachableBytes;
  const bytes = tree.retainedBytes(node);
  return { objects: tree.retainedObjects(node), bytes, share: total === 0 ? 0 : bytes / total };
}

export function objectRef(graph: GraphIndex, node: number): Static<typeof ObjectRef> {
  return { objectId: String(graph.nodes.idOf(node)), typeName: typeNameOf(graph, node) };
}

/** The fields `/objects/{oid}` adds once the tree is computed (none before). */
export function retainedPart(context: StorageContext, graph: GraphIndex, objectId: bigint): { retained: Static<typeof RetainedFigures> | null; immediateDominator: Static<typeof ObjectRef> | null } | undefined {
  const tree = context.graph.dominators.treeOf(graph);
  const node = graph.nodes.nodeOfId(objectId);
  if (tree === undefined || node < 0) return undefined;
  const d = tree.immediateDominator(node);
  return { retained: retainedFigures(tree, node), immediateDominator: d < 0 ? null : objectRef(graph, d) };
}

/** Bytes of an object's latest record (from the primary index). */
function ownBytes(context: StorageContext, objectId: bigint): number {
  const channels = context.storage.channels;
  return channels[channelOf(objectId, channels.length)]?.objects.get(objectId)?.length ?? 0;
}

type RetainerJson = Static<typeof RetainerEntry>;

async function entries(context: StorageContext, graph: GraphIndex, tree: DominatorTree, nodes: readonly number[], summaries: boolean, types: number): Promise<RetainerJson[]> {
  const ids = nodes.map((v) => graph.nodes.idOf(v));
  const texts = summaries ? await summariesOf(context, graph, ids) : undefined;
  const breakdown = types > 0 ? retainedByType(graph, tree, context.storage.channels, nodes, types) : undefined;
  return nodes.map((v, i) => {
    const id = ids[i]!;
    const figures = retainedFigures(tree, v);
    const entry: { -readonly [K in keyof RetainerJson]: RetainerJson[K] } = {
      objectId: String(id),
      typeName: typeNameOf(graph, v),
      ownBytes: ownBytes(context, id),
      retainedObjects: figures?.objects ?? 0,
      retainedBytes: figures?.bytes ?? 0,
      share: figures?.share ?? 0,
    };
    const summary = texts?.get(id);
    if (summary !== undefined) entry.summary = summary;
    if (breakdown !== undefined) entry.byType = breakdown[i]!.map((s) => ({ typeName: graph.types.nameOf(s.type), objects: s.objects, bytes: s.bytes }));
    return entry;
  });
}

/** The biggest retainers `[offset, offset + limit)` (within the first 1,000), for `/retainers` and `analyze`. */
export async function retainersReport(context: StorageContext, graph: GraphIndex, tree: DominatorTree, offset: number, limit: number, types: number, summaries: boolean): Promise<RetainersJson> {
  const first = Math.min(offset, RETAINED_MAX_PAGE);
  const count = Math.max(0, Math.min(limit, RETAINED_MAX_PAGE - first));
  const page = [...tree.top(first + count).subarray(first)];
  return {
    offset: first,
    limit: count,
    reachableObjects: tree.reachableObjects,
    reachableBytes: tree.reachableBytes,
    retainers: await entries(context, graph, tree, page, summaries, Math.min(types, RETAINED_MAX_TYPES)),
  };
}

export const retainedRoutes: readonly ApiRoute[] = [
  {
    path: '/dominators',
    schema: {
      summary: 'The dominator tree: the objects a parent immediately dominates, by retained bytes (the roots object when parent is left out)',
      description: 'Each child retains itself and everything below it in this tree: what would become garbage were it unreachable. 503 with progress while the tree is computed.',
      tags: ['analysis'],
      querystring: DominatorsQuery,
      response: answers(DominatorsAnswer, 404),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const query = request.query as Static<typeof DominatorsQuery>;
        const graph = requireGraph(context);
        const tree = requireDominators(context, graph);
        let parent = tree.rootsNode;
        if (query.parent !== undefined) {
          parent = storedNode(graph, BigInt(query.parent));
          if (!tree.isReachable(parent)) throw notFound(`object ${query.parent} is not reachable from the roots object: it dominates nothing`);
        } else if (parent < 0) throw notFound('the storage has no roots object');
        const offset = query.offset ?? 0;
        const limit = query.limit ?? 100;
        const children = tree.children(parent);
        const page = [...children.subarray(Math.min(offset, children.length), Math.min(children.length, offset + limit))];
        const summaries = query.summaries === true;
        const [parentEntry] = await entries(context, graph, tree, [parent], summaries, 0);
        return {
          parent: parentEntry!,
          total: children.length,
          offset,
          limit,
          reachableObjects: tree.reachableObjects,
          reachableBytes: tree.reachableBytes,
          children: await entries(context, graph, tree, page, summaries, 0),
        };
      }),
  },
  {
    path: '/retainers',
    schema: {
      summary: 'The biggest retainers: reachable objects by the bytes they keep alive, with their retained sets by type on request',
      description: 'The roots object (which retains everything reachable) is left out; an object and the objects it dominates may both be listed. 503 with progress while the tree is computed.',
      tags: ['analysis'],
      querystring: RetainersQuery,
      response: answers(RetainersAnswer),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const query = request.query as Static<typeof RetainersQuery>;
        const graph = requireGraph(context);
        const tree = requireDominators(context, graph);
        return retainersReport(context, graph, tree, query.offset ?? 0, query.limit ?? 20, query.types ?? 0, query.summaries === true);
      }),
  },
  {
    path: '/objects/:oid/retained',
    schema: {
      summary: 'What keeps an object alive (its dominator chain up to the roots object) and what deleting it would free (its retained set by type)',
      tags: ['objects'],
      params: ObjectParams,
      querystring: RetainedQuery,
      response: answers(RetainedAnswer, 404),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const query = request.query as Static<typeof RetainedQuery>;
        const graph = requireGraph(context);
        const tree = requireDominators(context, graph);
        const objectId = BigInt((request.params as Static<typeof ObjectParams>).oid);
        const node = storedNode(graph, objectId);
        const chain = tree.chain(node, query.chain ?? 100);
        const [byType] = retainedByType(graph, tree, context.storage.channels, [node], query.types ?? 20);
        const d = tree.immediateDominator(node);
        return {
          objectId: String(objectId),
          typeName: typeNameOf(graph, node),
          reachable: tree.isReachable(node),
          ownBytes: ownBytes(context, objectId),
          retained: retainedFigures(tree, node),
          immediateDominator: d < 0 ? null : objectRef(graph, d),
          chainLength: tree.depth(node),
          chain: await entries(context, graph, tree, chain, true, 0),
          byType: byType!.map((s) => ({ typeName: graph.types.nameOf(s.type), objects: s.objects, bytes: s.bytes })),
        };
      }),
  },
];
