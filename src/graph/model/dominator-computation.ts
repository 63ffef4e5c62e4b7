import type { StorageChannel } from '../../storage/storage.js';
import { FORWARD_FLAG } from './adjacency.js';
import { DominatorTree, NO_DOMINATOR } from './dominator-tree.js';
import type { GraphIndex } from './graph-index.js';
import { NOT_STORED } from './type-table.js';

/**
 * The dominator tree of a graph index from the roots object, by Semi-NCA (Georgiadis; the
 * semidominators of Lengauer and Tarjan, then each immediate dominator as the nearest common
 * ancestor of the DFS parent and the semidominator in the tree built so far). Everything runs
 * in typed arrays indexed by DFS preorder number, every loop iterative (a storage's chains are
 * millions deep): a depth-first numbering over forward references, semidominators over the
 * referrers in reverse preorder with path compression, immediate dominators in preorder, then
 * retained objects and bytes summed bottom-up (a node's dominator has a smaller number).
 * Work is linear in practice; temporary memory about 28 bytes a reachable node.
 *
 * The steps are a generator that yields its progress every so often, so that a caller can run
 * it in slices between other work (dominator-service.ts) or all at once (`computeDominators`).
 * The graph must not change while it runs (the service checks the version between slices).
 */

export type DominatorPhase = 'numbering' | 'semidominators' | 'dominators' | 'retained sizes';

/**
 * What the computation reads of a graph index: also what a worker thread rebuilds from the
 * index's shared arrays (dominator-thread.ts), without the rest of the index.
 */
export type DominatorGraph = Pick<GraphIndex, 'nodeCount' | 'rootsNode' | 'version' | 'typeOfNode' | 'adjacency'> & {
  isStored(node: number): boolean;
  readonly nodes: Pick<GraphIndex['nodes'], 'nodeOf'>;
};

export interface DominatorProgress {
  readonly phase: DominatorPhase;
  readonly done: number;
  readonly total: number;
}

/** Work (edges or nodes) between two yields. */
const SLICE = 1 << 16;

/** The last tree computed for each graph (the service's or `dominatorTreeOf`'s). */
const remembered = new WeakMap<GraphIndex, DominatorTree>();

/** Keeps a tree as the graph's latest (dominator-service.ts hands over each one it computes). */
export function rememberDominatorTree(graph: GraphIndex, tree: DominatorTree): void {
  remembered.set(graph, tree);
}

/**
 * The tree of the graph's current state: the one computed last if the graph has not changed
 * since, else computed here at once (for a pass that holds the storage's state and cannot wait
 * for the background computation, which needs turns of its own: the SQL `_objects` table, which
 * waits before it enters the storage's gate while that computation is under way,
 * dominators-under-way.ts).
 */
/** The tree remembered for the graph if it is of the graph's current state. */
export function rememberedDominatorTree(graph: GraphIndex): DominatorTree | undefined {
  const known = remembered.get(graph);
  return known !== undefined && known.graphVersion === graph.version && known.nodeCount === graph.nodeCount ? known : undefined;
}

export function dominatorTreeOf(graph: GraphIndex, channels: readonly Pick<StorageChannel, 'objects'>[]): DominatorTree {
  const known = rememberedDominatorTree(graph);
  if (known !== undefined) return known;
  const tree = computeDominators(graph, channels);
  remembered.set(graph, tree);
  return tree;
}

export function computeDominators(graph: DominatorGraph, channels: readonly Pick<StorageChannel, 'objects'>[]): DominatorTree {
  const steps = dominatorSteps(graph, channels);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

export function* dominatorSteps(graph: DominatorGraph, channels: readonly Pick<StorageChannel, 'objects'>[], slice = SLICE): Generator<DominatorProgress, DominatorTree> {
  const n = graph.nodeCount;
  const roots = graph.rootsNode;
  const version = graph.version;
  if (roots < 0 || !graph.isStored(roots)) return DominatorTree.empty(version, n);
  // The work done since the last yield is carried from step to step.
  const numbering = yield* numberingSteps(graph, roots, slice);
  const idom = new Uint32Array(numbering.reached + 1);
  let work = yield* semidominatorSteps(graph.adjacency, numbering, idom, slice, numbering.work);
  work = yield* immediateDominatorSteps(numbering, idom, slice, work);
  const bytes = objectBytes(graph, channels, numbering);
  yield { phase: 'retained sizes', done: 0, total: numbering.reached };
  return retainedSizes(version, roots, numbering, idom, bytes);
}

/**
 * Step 1's result: DFS preorder numbers (0: not reached) of the nodes, the node and the DFS
 * parent of each number, and two arrays of n + 1 numbers that the next steps use (`semi`,
 * `label`; an empty array once a step is done with one).
 */
interface Numbering {
  readonly num: Uint32Array;
  readonly vertex: Uint32Array;
  readonly parent: Uint32Array;
  semi: Uint32Array;
  label: Uint32Array;
  readonly reached: number;
  /** Work since the last yield. */
  readonly work: number;
}

/**
 * 1. Depth-first preorder numbers (0: not reached), the DFS parent of each number. While
 * numbering, `semi` holds each stacked node's cursor and `label` the stack itself.
 */
function* numberingSteps(graph: DominatorGraph, roots: number, slice: number): Generator<DominatorProgress, Numbering> {
  const n = graph.nodeCount;
  const types = graph.typeOfNode;
  const adjacency = graph.adjacency;
  const rows = adjacency.baseRows;
  const rowStart = adjacency.baseRowStart;
  const baseNodes = adjacency.baseNodeCount;
  const overlays = adjacency.hasForwardOverlays;
  const num = new Uint32Array(n);
  const vertex = new Uint32Array(n + 1);
  const parent = new Uint32Array(n + 1);
  const semi = new Uint32Array(n + 1);
  const label = new Uint32Array(n + 1);
  const cursorOf = (v: number): number => (overlays && adjacency.forwardOverlayOf(v) !== undefined ? 0 : v < baseNodes ? (rowStart[v] as number) : 0);
  let count = 1;
  num[roots] = 1;
  vertex[1] = roots;
  label[0] = roots;
  semi[0] = cursorOf(roots);
  let depth = 1;
  let work = 0;
  while (depth > 0) {
    const v = label[depth - 1] as number;
    let i = semi[depth - 1] as number;
    let next = -1;
    const overlay = overlays ? adjacency.forwardOverlayOf(v) : undefined;
    if (overlay !== undefined) {
      while (i < overlay.length) {
        const u = overlay[i++] as number;
        if (num[u] === 0 && types[u] !== NOT_STORED) {
          next = u;
          break;
        }
      }
    } else if (v < baseNodes) {
      const end = rowStart[v + 1] as number;
      while (i < end) {
        const x = rows[i] as number;
        if (x < FORWARD_FLAG) {
          i = end;
          break;
        }
        i++;
        const u = x & 0x7fffffff;
        if (num[u] === 0 && types[u] !== NOT_STORED) {
          next = u;
          break;
        }
      }
    }
    semi[depth - 1] = i;
    if (next < 0) {
      depth--;
      continue;
    }
    num[next] = ++count;
    vertex[count] = next;
    parent[count] = num[v] as number;
    label[depth] = next;
    semi[depth] = cursorOf(next);
    depth++;
    if (++work === slice) {
      work = 0;
      yield { phase: 'numbering', done: count, total: n };
    }
  }
  return { num, vertex, parent, semi, label, reached: count, work };
}

/**
 * 2. Semidominators, in reverse preorder: the smallest number among the referrers' evaluated
 * labels (a referrer numbered below w is its own candidate). `ancestor` links each processed
 * number to its DFS parent; `idom` serves as the path compression's stack until step 3.
 * Returns the work since the last yield.
 */
function* semidominatorSteps(adjacency: GraphIndex['adjacency'], numbering: Numbering, idom: Uint32Array, slice: number, work: number): Generator<DominatorProgress, number> {
  const { num, vertex, parent, semi, reached } = numbering;
  const label = numbering.label;
  const rows = adjacency.baseRows;
  const rowStart = adjacency.baseRowStart;
  const baseNodes = adjacency.baseNodeCount;
  for (let w = 1; w <= reached; w++) {
    semi[w] = w;
    label[w] = w;
  }
  const ancestor = new Uint32Array(reached + 1);
  const pathStack = idom;
  const evaluate = (v: number): number => {
    if (ancestor[v] === 0) return v;
    // Compress the path from v up to the child of its forest root, the root end first.
    let sp = 0;
    let x = v;
    while (ancestor[ancestor[x] as number] !== 0) {
      pathStack[sp++] = x;
      x = ancestor[x] as number;
    }
    while (sp > 0) {
      const y = pathStack[--sp] as number;
      const a = ancestor[y] as number;
      if ((semi[label[a] as number] as number) < (semi[label[y] as number] as number)) label[y] = label[a] as number;
      ancestor[y] = ancestor[a] as number;
    }
    return label[v] as number;
  };
  const plainReferrers = adjacency.pendingChanges === 0;
  for (let w = reached; w >= 2; w--) {
    const node = vertex[w] as number;
    let s = semi[w] as number;
    if (plainReferrers) {
      if (node < baseNodes) {
        const end = rowStart[node + 1] as number;
        for (let i = rowStart[node] as number; i < end; i++) {
          const r = rows[i] as number;
          if (r >= FORWARD_FLAG) continue;
          const v = num[r] as number;
          if (v === 0) continue;
          const candidate = semi[evaluate(v)] as number;
          if (candidate < s) s = candidate;
        }
      }
    } else {
      adjacency.forEachReferrer(node, (r) => {
        const v = num[r] as number;
        if (v === 0) return;
        const candidate = semi[evaluate(v)] as number;
        if (candidate < s) s = candidate;
      });
    }
    semi[w] = s;
    ancestor[w] = parent[w] as number;
    if (++work === slice) {
      work = 0;
      yield { phase: 'semidominators', done: reached - w, total: reached };
    }
  }
  numbering.label = EMPTY;
  return work;
}

/**
 * 3. Immediate dominators in preorder: from the DFS parent up the tree built so far while
 * above the semidominator's number. Returns the work since the last yield.
 */
function* immediateDominatorSteps(numbering: Numbering, idom: Uint32Array, slice: number, work: number): Generator<DominatorProgress, number> {
  const { parent, semi, reached } = numbering;
  idom[1] = 0;
  for (let w = 2; w <= reached; w++) {
    const s = semi[w] as number;
    let x = parent[w] as number;
    while (x > s) x = idom[x] as number;
    idom[w] = x;
    if (++work === slice) {
      work = 0;
      yield { phase: 'dominators', done: w, total: reached };
    }
  }
  return work;
}

/** 4a. The record length of each reached object, by preorder number. */
function objectBytes(graph: DominatorGraph, channels: readonly Pick<StorageChannel, 'objects'>[], numbering: Numbering): Float64Array {
  const { num, reached } = numbering;
  const bytes = new Float64Array(reached + 1);
  for (const channel of channels) {
    channel.objects.forEach((low, high, _fileSlot, _offset, length) => {
      const v = graph.nodes.nodeOf(low, high);
      if (v < 0) return;
      const w = num[v] as number;
      if (w !== 0) bytes[w] = length;
    });
  }
  return bytes;
}

/** 4b. Retained objects and bytes, children before their dominator (reverse preorder), and the tree. */
function retainedSizes(version: number, roots: number, numbering: Numbering, idom: Uint32Array, bytes: Float64Array): DominatorTree {
  const { num, vertex, reached } = numbering;
  const n = num.length;
  const retained = numbering.semi;
  retained.fill(1, 1, reached + 1);
  numbering.semi = EMPTY;
  for (let w = reached; w >= 2; w--) {
    const d = idom[w] as number;
    retained[d] = (retained[d] as number) + (retained[w] as number);
    bytes[d] = (bytes[d] as number) + (bytes[w] as number);
  }
  const idomOfNode = new Uint32Array(n).fill(NO_DOMINATOR);
  const countOfNode = new Uint32Array(n);
  for (let w = 1; w <= reached; w++) {
    const v = vertex[w] as number;
    if (w > 1) idomOfNode[v] = vertex[idom[w] as number] as number;
    countOfNode[v] = retained[w] as number;
  }
  return DominatorTree.fromFigures(version, roots, idomOfNode, countOfNode, (write) => {
    for (let w = 1; w <= reached; w++) write(vertex[w] as number, bytes[w] as number);
  });
}

const EMPTY = new Uint32Array(0);
