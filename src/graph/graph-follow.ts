import { RECORD_WORDS, type Storage, type StorageChange } from '../storage/storage.js';
import type { GraphIndex } from './model/graph-index.js';
import { computeReachability, updateReachability, type EdgeChanges } from './model/reachability.js';
import { ReferenceCollector } from './build/reference-collector.js';
import { NOT_STORED } from './model/type-table.js';

/**
 * Takes a commit of a followed storage over into the graph without rebuilding it: the entities
 * the commit stored get their new forward lists (edges they lost and gained are told to their
 * targets' referrer lists), new ids get node numbers, their previous records become older
 * versions, and reachability is updated from the edges that changed. Runs inside the storage's
 * consistent step, so requests see the graph and the storage of the same state.
 */

export type FollowSource = Pick<Storage, 'dictionary' | 'readEntity' | 'rootsObjectId'>;

/** Overlays are folded into the rows once they exceed this share of the nodes (and a floor). */
const COMPACT_SHARE = 1 / 16;
const COMPACT_FLOOR = 65536;

export async function applyStorageChange(graph: GraphIndex, source: FollowSource, change: StorageChange): Promise<void> {
  if (change.dictionaryChanged) graph.types.update(source.dictionary);
  const words = change.stored.words;
  const count = change.stored.count;

  // New ids get node numbers in ascending id order (runs stay long).
  const fresh: bigint[] = [];
  for (let i = 0; i < count; i++) {
    const b = i * RECORD_WORDS;
    if (graph.nodes.nodeOf(words[b]!, words[b + 1]!) < 0) fresh.push(idOf(words[b]!, words[b + 1]!));
  }
  fresh.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  graph.nodes.addSorted(fresh);
  graph.ensureCapacity(graph.nodes.count);

  const changed = new Set<number>();
  for (let i = 0; i < count; i++) {
    const b = i * RECORD_WORDS;
    const v = graph.nodes.nodeOf(words[b]!, words[b + 1]!);
    changed.add(v);
    const previousSlot = words[b + 5]!;
    if (previousSlot >= 0) graph.superseded.add(v, words[b + 2]!, previousSlot, words[b + 6]! >>> 0);
  }
  const lost: number[] = [];
  for (let i = 0; i + 1 < change.lost.length; i += 2) {
    const v = graph.nodes.nodeOf(change.lost[i]!, change.lost[i + 1]!);
    if (v >= 0 && !changed.has(v)) lost.push(v);
  }

  const edges: EdgeChanges = { addedFrom: [], addedTo: [], removedFrom: [], removedTo: [], unstored: [] };
  const dropped = new Set<number>([...changed, ...lost]);
  graph.missing.removeSources((source) => dropped.has(source));
  const collector = new ReferenceCollector(graph.nodes);
  for (const v of changed) {
    const entity = await source.readEntity(graph.nodes.idOf(v));
    let targets = new Uint32Array(0);
    if (entity === undefined) {
      graph.typeOfNode[v] = NOT_STORED;
      edges.unstored.push(v);
    } else {
      const t = graph.types.indexOfId(entity.typeId);
      graph.typeOfNode[v] = t;
      const plan = graph.types.at(t).plan;
      if (plan !== undefined && plan.hasReferences) {
        const view = new DataView(entity.content.buffer, entity.content.byteOffset, entity.content.byteLength);
        collector.collect(plan, view, 0, entity.content.byteLength);
        targets = collector.targets.slice(0, collector.count);
        for (let i = 0; i < collector.missingCount; i++) graph.missing.add(v, collector.missing[2 * i]!, collector.missing[2 * i + 1]!);
      }
    }
    replace(graph, v, targets, edges);
  }
  for (const v of lost) {
    graph.typeOfNode[v] = NOT_STORED;
    edges.unstored.push(v);
    replace(graph, v, new Uint32Array(0), edges);
  }

  const rootsNode = source.rootsObjectId === 0n ? -1 : graph.nodes.nodeOfId(source.rootsObjectId);
  if (rootsNode !== graph.rootsNode) {
    graph.rootsNode = rootsNode;
    computeReachability(graph);
  } else {
    updateReachability(graph, edges);
  }
  if (graph.adjacency.pendingChanges > Math.max(COMPACT_FLOOR, graph.nodeCount * COMPACT_SHARE)) graph.adjacency.compact(graph.nodeCount);
  graph.version++;
}

function replace(graph: GraphIndex, v: number, targets: Uint32Array, edges: EdgeChanges): void {
  graph.adjacency.replaceForward(
    v,
    targets,
    (u) => {
      edges.addedFrom.push(v);
      edges.addedTo.push(u);
    },
    (u) => {
      edges.removedFrom.push(v);
      edges.removedTo.push(u);
    },
  );
}

function idOf(low: number, high: number): bigint {
  return (BigInt(high) << 32n) | BigInt(low >>> 0);
}
