import { FORWARD_FLAG } from './adjacency.js';
import type { GraphIndex } from './graph-index.js';
import { NOT_STORED } from './type-table.js';

/**
 * Reachability as MicroStream's garbage collector sees it: everything reachable over forward
 * references from the roots entity (which lists the root and the registered constants). Kept as
 * one bit per node; a followed storage updates it from the edges a commit added and removed.
 */

/** A growable FIFO of node numbers (no JS object per node). */
class NodeQueue {
  private items = new Uint32Array(1024);
  private head = 0;
  private tail = 0;

  push(node: number): void {
    if (this.tail === this.items.length) {
      if (this.head > this.items.length / 2) {
        this.items.copyWithin(0, this.head, this.tail);
        this.tail -= this.head;
        this.head = 0;
      } else {
        const bigger = new Uint32Array(this.items.length * 2);
        bigger.set(this.items.subarray(this.head, this.tail));
        this.tail -= this.head;
        this.head = 0;
        this.items = bigger;
      }
    }
    this.items[this.tail++] = node;
  }

  shift(): number {
    return this.head < this.tail ? (this.items[this.head++] as number) : -1;
  }
}

function mark(reach: Uint8Array, node: number): boolean {
  const byte = reach[node >>> 3] as number;
  const bit = 1 << (node & 7);
  if ((byte & bit) !== 0) return false;
  reach[node >>> 3] = byte | bit;
  return true;
}

function unmark(reach: Uint8Array, node: number): boolean {
  const byte = reach[node >>> 3] as number;
  const bit = 1 << (node & 7);
  if ((byte & bit) === 0) return false;
  reach[node >>> 3] = byte & ~bit;
  return true;
}

/** Marks every stored node reachable from the queued ones that is not marked yet. */
function spread(graph: GraphIndex, queue: NodeQueue): void {
  const reach = graph.reach;
  const types = graph.typeOfNode;
  const adjacency = graph.adjacency;
  const rows = adjacency.baseRows;
  const rowStart = adjacency.baseRowStart;
  const baseNodes = adjacency.baseNodeCount;
  const visit = (u: number): void => {
    if (types[u] !== NOT_STORED && mark(reach, u)) queue.push(u);
  };
  for (let v = queue.shift(); v >= 0; v = queue.shift()) {
    const overlay = adjacency.forwardOverlayOf(v);
    if (overlay !== undefined) {
      for (let i = 0; i < overlay.length; i++) visit(overlay[i] as number);
      continue;
    }
    if (v >= baseNodes) continue;
    const end = rowStart[v + 1] as number;
    for (let i = rowStart[v] as number; i < end; i++) {
      const x = rows[i] as number;
      if (x < FORWARD_FLAG) break;
      visit(x & 0x7fffffff);
    }
  }
}

/** Computes reachability from scratch (after a build). */
export function computeReachability(graph: GraphIndex): void {
  graph.reach.fill(0);
  const roots = graph.rootsNode;
  if (roots < 0 || !graph.isStored(roots)) return;
  if (!graph.adjacency.hasForwardOverlays) {
    spreadOverBaseRows(graph, roots);
    return;
  }
  const queue = new NodeQueue();
  mark(graph.reach, roots);
  queue.push(roots);
  spread(graph, queue);
}

/**
 * The whole-graph breadth-first search over the base rows alone (right after a build). It is
 * bound by cache misses, so it touches as little per edge as it can: nodes that are not stored
 * are marked up front (one sequential pass over the types) and taken back afterwards, so that an
 * edge costs one look at the bit map (small enough to stay in cache) instead of also one at the
 * type of its target; every node is queued at most once, so the queue is one array.
 */
function spreadOverBaseRows(graph: GraphIndex, roots: number): void {
  const reach = graph.reach;
  const types = graph.typeOfNode;
  const n = Math.min(graph.nodeCount, types.length);
  const rows = graph.adjacency.baseRows;
  const rowStart = graph.adjacency.baseRowStart;
  const baseNodes = graph.adjacency.baseNodeCount;
  for (let u = 0; u < n; u++) if (types[u] === NOT_STORED) reach[u >>> 3] = (reach[u >>> 3] as number) | (1 << (u & 7));
  const queue = new Uint32Array(Math.max(graph.nodeCount, types.length));
  let tail = 0;
  reach[roots >>> 3] = (reach[roots >>> 3] as number) | (1 << (roots & 7));
  queue[tail++] = roots;
  for (let head = 0; head < tail; head++) {
    const v = queue[head] as number;
    if (v >= baseNodes) continue;
    const end = rowStart[v + 1] as number;
    for (let i = rowStart[v] as number; i < end; i++) {
      const x = rows[i] as number;
      if (x < FORWARD_FLAG) break;
      const u = x & 0x7fffffff;
      const byte = reach[u >>> 3] as number;
      const bit = 1 << (u & 7);
      if ((byte & bit) !== 0) continue;
      reach[u >>> 3] = byte | bit;
      queue[tail++] = u;
    }
  }
  for (let u = 0; u < n; u++) if (types[u] === NOT_STORED) reach[u >>> 3] = (reach[u >>> 3] as number) & ~(1 << (u & 7));
}

/** Edges a change added and removed, as parallel lists of (source, target) nodes. */
export interface EdgeChanges {
  readonly addedFrom: number[];
  readonly addedTo: number[];
  readonly removedFrom: number[];
  readonly removedTo: number[];
  /** Nodes that stopped being stored entities (lost with a deleted file). */
  readonly unstored: number[];
}

/**
 * Updates reachability after edges changed, touching only what the change can affect:
 * 1. what added edges from reachable nodes lead to becomes reachable;
 * 2. what removed edges (or objects that stopped being stored) led to, and everything reachable
 *    from it, is unmarked tentatively;
 * 3. each of those nodes that still has a reachable referrer (or is the roots entity) is marked
 *    again together with everything it reaches.
 * Nodes reached only through removed edges stay unmarked. Work is proportional to the part of
 * the graph below the removed edges (the whole graph at worst).
 */
export function updateReachability(graph: GraphIndex, changes: EdgeChanges): void {
  const reach = graph.reach;
  const queue = new NodeQueue();
  for (let i = 0; i < changes.addedFrom.length; i++) {
    const from = changes.addedFrom[i]!;
    const to = changes.addedTo[i]!;
    if (graph.isReachable(from) && graph.isStored(to) && mark(reach, to)) queue.push(to);
  }
  spread(graph, queue);

  const candidates: number[] = [];
  const suspect = (node: number): void => {
    if (unmark(reach, node)) {
      candidates.push(node);
      queue.push(node);
    }
  };
  // Decided on the marks before any is taken back: an edge from an unreachable node never
  // carried reachability.
  const cut = changes.removedTo.filter((to, i) => graph.isReachable(changes.removedFrom[i]!) && graph.isReachable(to));
  for (const node of cut) suspect(node);
  for (const node of changes.unstored) suspect(node);
  for (let v = queue.shift(); v >= 0; v = queue.shift()) {
    graph.adjacency.forEachForward(v, (u) => {
      if (graph.isReachable(u)) suspect(u);
    });
  }

  for (const node of candidates) {
    if (graph.isReachable(node) || !graph.isStored(node)) continue;
    let supported = node === graph.rootsNode;
    if (!supported) {
      graph.adjacency.forEachReferrer(node, (r) => {
        if (graph.isReachable(r)) supported = true;
        return !supported;
      });
    }
    if (!supported) continue;
    mark(reach, node);
    queue.push(node);
    spread(graph, queue);
  }
}
