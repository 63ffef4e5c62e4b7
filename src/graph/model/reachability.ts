import { FORWARD_FLAG } from './adjacency.js';
import type { GraphIndex } from './graph-index.js';
import { NOT_STORED, type TypeNumbers } from './type-table.js';

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

/** The whole-graph search over the base rows alone (right after a build): `sweepReachability`. */
function spreadOverBaseRows(graph: GraphIndex, roots: number): void {
  const adjacency = graph.adjacency;
  sweepReachability({
    rows: adjacency.baseRows,
    rowStart: adjacency.baseRowStart,
    baseNodes: adjacency.baseNodeCount,
    types: graph.typeOfNode,
    nodeCount: graph.nodeCount,
    reach: graph.reach,
    roots,
  });
}

/** What the sweep reads (a build's base rows) and writes (`reach`, cleared): plain arrays, so a worker thread can do it. */
export interface SweepInput {
  readonly rows: Uint32Array;
  readonly rowStart: Uint32Array;
  readonly baseNodes: number;
  readonly types: TypeNumbers;
  readonly nodeCount: number;
  readonly reach: Uint8Array;
  /** Node of the roots entity (stored). */
  readonly roots: number;
  /** Whether every node is stored (a build decoded a latest record for each): nothing to mark up front. */
  readonly allStored?: boolean;
}

/**
 * The whole-graph search over the base rows alone (right after a build). A breadth-first order
 * jumps to a random row for every node, a cache miss each (half the build's linking time at 10M
 * entities); so this sweeps the rows in ascending node order instead and expands every node that
 * is marked by the time the sweep reaches it. A node marked behind the sweep (a reference to a
 * lower node) is expanded at once from a stack. MicroStream numbers objects as it first meets
 * them from the root, so most references point ahead and most work is a sequential read.
 * Nodes that are not stored are marked up front (one sequential pass over the types) and taken
 * back afterwards, so that an edge costs one look at the bit map (small enough to stay in cache).
 * Right after a build, when every node is stored, neither pass is needed.
 *
 * Marks in `reach` (all clear) every stored node reachable from `roots` over the base rows'
 * forward entries.
 */
export function sweepReachability(input: SweepInput): void {
  const { rows, rowStart, types, reach, roots } = input;
  const n = Math.min(input.nodeCount, types.length);
  const baseNodes = Math.min(input.baseNodes, n);
  const markUnstored = input.allStored !== true;
  if (markUnstored) for (let u = 0; u < n; u++) if (types[u] === NOT_STORED) reach[u >>> 3] = (reach[u >>> 3] as number) | (1 << (u & 7));
  reach[roots >>> 3] = (reach[roots >>> 3] as number) | (1 << (roots & 7));
  const behind = new Uint32Array(Math.max(1, n));
  let depth = 0;
  // Expands `v`: marks its unmarked targets, stacking those the sweep at `s` has passed already.
  const expand = (v: number, s: number): void => {
    const end = rowStart[v + 1] as number;
    for (let i = rowStart[v] as number; i < end; i++) {
      const x = rows[i] as number;
      if (x < FORWARD_FLAG) break;
      const u = x & 0x7fffffff;
      const byte = reach[u >>> 3] as number;
      const bit = 1 << (u & 7);
      if ((byte & bit) !== 0) continue;
      reach[u >>> 3] = byte | bit;
      if (u <= s && u < baseNodes) behind[depth++] = u;
    }
  };
  for (let s = 0; s < baseNodes; s++) {
    const byte = reach[s >>> 3] as number;
    if (byte === 0) {
      s |= 7; // none of these 8 nodes is marked
      continue;
    }
    if ((byte & (1 << (s & 7))) === 0 || (markUnstored && types[s] === NOT_STORED)) continue;
    expand(s, s);
    while (depth > 0) expand(behind[--depth] as number, s);
  }
  if (markUnstored) for (let u = 0; u < n; u++) if (types[u] === NOT_STORED) reach[u >>> 3] = (reach[u >>> 3] as number) & ~(1 << (u & 7));
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
