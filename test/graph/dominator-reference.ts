import type { GraphIndex } from '../../src/graph/model/graph-index.js';
import type { StorageChannel } from '../../src/storage/storage.js';

/**
 * The plain definition, slow but obviously right, to check the dominator tree against: the
 * iterative data-flow fixpoint Dom(roots) = {roots}, Dom(v) = {v} ∪ ⋂ Dom(p) over v's reachable
 * referrers p, in bit sets; the immediate dominator is the strict dominator with the most
 * dominators itself (the closest); X retains every Y with X in Dom(Y).
 */

export interface ReferenceDominators {
  /** Per node: immediate dominator, -1 for the roots object and unreachable nodes. */
  readonly idom: Int32Array;
  readonly retainedObjects: Float64Array;
  readonly retainedBytes: Float64Array;
}

export function referenceDominators(graph: GraphIndex, channels: readonly Pick<StorageChannel, 'objects'>[]): ReferenceDominators {
  const n = graph.nodeCount;
  const words = Math.ceil(n / 32);
  const reachable = (v: number): boolean => graph.isStored(v) && graph.isReachable(v);
  const dom: (Uint32Array | undefined)[] = new Array(n);
  const all = new Uint32Array(words).fill(0xffffffff);
  for (let v = 0; v < n; v++) if (reachable(v)) dom[v] = all.slice();
  const roots = graph.rootsNode;
  if (roots >= 0 && reachable(roots)) {
    const only = new Uint32Array(words);
    only[roots >>> 5] = 1 << (roots & 31);
    dom[roots] = only;
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (let v = 0; v < n; v++) {
      if (dom[v] === undefined || v === roots) continue;
      const next = all.slice();
      graph.adjacency.forEachReferrer(v, (p) => {
        const d = dom[p];
        if (d === undefined) return;
        for (let i = 0; i < words; i++) next[i] = next[i]! & d[i]!;
      });
      next[v >>> 5] = next[v >>> 5]! | (1 << (v & 31));
      const before = dom[v]!;
      for (let i = 0; i < words; i++) {
        if (before[i] !== next[i]) {
          changed = true;
          dom[v] = next;
          break;
        }
      }
    }
  }
  const has = (set: Uint32Array, x: number): boolean => ((set[x >>> 5]! >>> (x & 31)) & 1) === 1;
  const size = (set: Uint32Array): number => {
    let s = 0;
    for (let x = 0; x < n; x++) if (has(set, x)) s++;
    return s;
  };
  const own = new Float64Array(n);
  for (const channel of channels) {
    channel.objects.forEach((low, high, _slot, _offset, length) => {
      const v = graph.nodes.nodeOf(low, high);
      if (v >= 0) own[v] = length;
    });
  }
  const sizes = new Float64Array(n);
  for (let v = 0; v < n; v++) if (dom[v] !== undefined) sizes[v] = size(dom[v]!);
  const idom = new Int32Array(n).fill(-1);
  const retainedObjects = new Float64Array(n);
  const retainedBytes = new Float64Array(n);
  for (let v = 0; v < n; v++) {
    const d = dom[v];
    if (d === undefined) continue;
    let best = -1;
    let bestSize = -1;
    for (let x = 0; x < n; x++) {
      if (x === v || !has(d, x)) continue;
      const s = sizes[x]!;
      if (s > bestSize) {
        best = x;
        bestSize = s;
      }
    }
    idom[v] = best;
    for (let x = 0; x < n; x++) {
      if (!has(d, x)) continue;
      retainedObjects[x] = retainedObjects[x]! + 1;
      retainedBytes[x] = retainedBytes[x]! + own[v]!;
    }
  }
  return { idom, retainedObjects, retainedBytes };
}
