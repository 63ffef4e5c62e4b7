/**
 * The dominator tree of a graph index once computed (dominator-computation.ts): per node its
 * immediate dominator, the objects and bytes it retains (itself and everything it dominates:
 * what would become garbage were it unreachable). Three 4-byte words a node: retained bytes
 * are kept in 32 bits, and the few nodes retaining 4 GiB or more (the roots object and the
 * nodes above most of a large storage) are listed apart with their exact figure.
 * Unreachable nodes have no dominator and retain nothing.
 */

/** `immediate dominator` of the roots object and of unreachable nodes. */
export const NO_DOMINATOR = 0xffffffff;

/** In `bytesLow`: the figure is in the overflow list. */
const OVERFLOW = 0xffffffff;

/** Children lists kept for repeated pages (each the size of one node's children). */
const CACHED_CHILDREN = 8;

/** A tree as plain data (`DominatorTree.toParts`): what a worker thread hands back. */
export interface DominatorTreeParts {
  readonly graphVersion: number;
  readonly nodeCount: number;
  readonly rootsNode: number;
  readonly idom: Uint32Array;
  readonly count: Uint32Array;
  readonly bytesLow: Uint32Array;
  readonly overflowNodes: Uint32Array;
  readonly overflowBytes: Float64Array;
}

export class DominatorTree {
  private readonly childrenCache = new Map<number, Uint32Array>();
  private topCache: Uint32Array | undefined;

  constructor(
    /** The graph index's `version` the tree was computed for. */
    readonly graphVersion: number,
    /** Nodes covered (later nodes were added after the computation). */
    readonly nodeCount: number,
    /** The roots object's node, -1 when the storage has none. */
    readonly rootsNode: number,
    private readonly idom: Uint32Array,
    private readonly count: Uint32Array,
    private readonly bytesLow: Uint32Array,
    /** Nodes retaining 4 GiB or more, ascending, with their exact figures. */
    private readonly overflowNodes: Uint32Array,
    private readonly overflowBytes: Float64Array,
  ) {}

  /** The tree as plain data, for crossing threads (`fromParts`): its arrays, not copies. */
  toParts(): DominatorTreeParts {
    const { graphVersion, nodeCount, rootsNode, idom, count, bytesLow, overflowNodes, overflowBytes } = this;
    return { graphVersion, nodeCount, rootsNode, idom, count, bytesLow, overflowNodes, overflowBytes };
  }

  static fromParts(parts: DominatorTreeParts): DominatorTree {
    return new DominatorTree(parts.graphVersion, parts.nodeCount, parts.rootsNode, parts.idom, parts.count, parts.bytesLow, parts.overflowNodes, parts.overflowBytes);
  }

  /** A tree of a graph without roots object: nothing is reachable. */
  static empty(graphVersion: number, nodeCount: number): DominatorTree {
    const none = new Uint32Array(nodeCount).fill(NO_DOMINATOR);
    return new DominatorTree(graphVersion, nodeCount, -1, none, new Uint32Array(nodeCount), new Uint32Array(nodeCount), new Uint32Array(0), new Float64Array(0));
  }

  /** Builds the per-node words from exact retained bytes (the computation's last step). */
  static fromFigures(graphVersion: number, rootsNode: number, idom: Uint32Array, count: Uint32Array, bytes: (write: (node: number, value: number) => void) => void): DominatorTree {
    const low = new Uint32Array(idom.length);
    const bigNodes: number[] = [];
    const bigBytes: number[] = [];
    bytes((node, value) => {
      if (value >= OVERFLOW) {
        low[node] = OVERFLOW;
        bigNodes.push(node);
        bigBytes.push(value);
      } else low[node] = value;
    });
    const order = Array.from(bigNodes.keys()).sort((a, b) => bigNodes[a]! - bigNodes[b]!);
    return new DominatorTree(graphVersion, idom.length, rootsNode, idom, count, low, Uint32Array.from(order, (i) => bigNodes[i]!), Float64Array.from(order, (i) => bigBytes[i]!));
  }

  /** Bytes the tree holds. */
  get byteSize(): number {
    return this.idom.byteLength + this.count.byteLength + this.bytesLow.byteLength + this.overflowNodes.byteLength + this.overflowBytes.byteLength;
  }

  /** Whether the node is reachable from the roots object (covered by the tree). */
  isReachable(node: number): boolean {
    return node >= 0 && node < this.nodeCount && (this.count[node] as number) > 0;
  }

  /** The node's immediate dominator, -1 for the roots object and unreachable nodes. */
  immediateDominator(node: number): number {
    if (node < 0 || node >= this.nodeCount) return -1;
    const d = this.idom[node] as number;
    return d === NO_DOMINATOR ? -1 : d;
  }

  /** Objects the node retains (itself included); 0 when unreachable. */
  retainedObjects(node: number): number {
    return node >= 0 && node < this.nodeCount ? (this.count[node] as number) : 0;
  }

  /** Bytes of the latest records of the objects the node retains; 0 when unreachable. */
  retainedBytes(node: number): number {
    if (node < 0 || node >= this.nodeCount) return 0;
    const low = this.bytesLow[node] as number;
    if (low !== OVERFLOW) return low;
    let lo = 0;
    let hi = this.overflowNodes.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const m = this.overflowNodes[mid] as number;
      if (m === node) return this.overflowBytes[mid] as number;
      if (m < node) lo = mid + 1;
      else hi = mid - 1;
    }
    return low;
  }

  /** Objects reachable from the roots object. */
  get reachableObjects(): number {
    return this.retainedObjects(this.rootsNode);
  }

  /** Bytes of the latest records of every reachable object. */
  get reachableBytes(): number {
    return this.retainedBytes(this.rootsNode);
  }

  /** Dominators of a node from its immediate one up to the roots object (at most `limit`). */
  chain(node: number, limit: number): number[] {
    const out: number[] = [];
    for (let d = this.immediateDominator(node); d >= 0 && out.length < limit; d = this.immediateDominator(d)) out.push(d);
    return out;
  }

  /** Length of the node's dominator chain (0 for the roots object and unreachable nodes). */
  depth(node: number): number {
    let n = 0;
    for (let d = this.immediateDominator(node); d >= 0; d = this.immediateDominator(d)) n++;
    return n;
  }

  /**
   * The nodes a node immediately dominates, by retained bytes (largest first, then node order):
   * one scan over the tree (about 10 ms at 10M objects); the last few lists are kept.
   */
  children(parent: number): Uint32Array {
    const cached = this.childrenCache.get(parent);
    if (cached !== undefined) {
      this.childrenCache.delete(parent);
      this.childrenCache.set(parent, cached);
      return cached;
    }
    let n = 0;
    const idom = this.idom;
    for (let v = 0; v < this.nodeCount; v++) if (idom[v] === parent) n++;
    const out = new Uint32Array(n);
    n = 0;
    for (let v = 0; v < this.nodeCount; v++) if (idom[v] === parent) out[n++] = v;
    this.sortByRetained(out);
    this.childrenCache.set(parent, out);
    if (this.childrenCache.size > CACHED_CHILDREN) this.childrenCache.delete(this.childrenCache.keys().next().value as number);
    return out;
  }

  /**
   * The `limit` nodes retaining the most bytes, the roots object left out (it retains
   * everything reachable), largest first: one scan with a bounded heap; the largest list
   * asked for is kept.
   */
  top(limit: number): Uint32Array {
    const cached = this.topCache;
    if (cached !== undefined && (cached.length >= limit || cached.length === this.reachableObjects - 1)) return cached.subarray(0, Math.min(limit, cached.length));
    const heap = new Uint32Array(limit);
    let size = 0;
    // A min-heap on (bytes, -node): its first entry is the smallest kept.
    const less = (a: number, b: number): boolean => {
      const ba = this.retainedBytes(a);
      const bb = this.retainedBytes(b);
      return ba < bb || (ba === bb && a > b);
    };
    const down = (at: number): void => {
      for (;;) {
        const l = 2 * at + 1;
        const r = l + 1;
        let m = at;
        if (l < size && less(heap[l] as number, heap[m] as number)) m = l;
        if (r < size && less(heap[r] as number, heap[m] as number)) m = r;
        if (m === at) return;
        const t = heap[at] as number;
        heap[at] = heap[m] as number;
        heap[m] = t;
        at = m;
      }
    };
    let floor = 0;
    for (let v = 0; v < this.nodeCount && limit > 0; v++) {
      if ((this.count[v] as number) === 0 || v === this.rootsNode) continue;
      if (size < limit) {
        let at = size++;
        heap[at] = v;
        while (at > 0) {
          const p = (at - 1) >>> 1;
          if (!less(heap[at] as number, heap[p] as number)) break;
          const t = heap[at] as number;
          heap[at] = heap[p] as number;
          heap[p] = t;
          at = p;
        }
      } else {
        // Most nodes retain less than the smallest kept: one look at their figure.
        const b = (this.bytesLow[v] as number) === OVERFLOW ? this.retainedBytes(v) : (this.bytesLow[v] as number);
        if (b < floor) continue;
        if (!less(heap[0] as number, v)) continue;
        heap[0] = v;
        down(0);
      }
      if (size === limit) floor = this.retainedBytes(heap[0] as number);
    }
    const out = heap.slice(0, size);
    this.sortByRetained(out);
    this.topCache = out;
    return out;
  }

  private sortByRetained(nodes: Uint32Array): void {
    const bytes = new Float64Array(nodes.length);
    const order = Array.from(nodes.keys());
    for (let i = 0; i < nodes.length; i++) bytes[i] = this.retainedBytes(nodes[i] as number);
    order.sort((a, b) => (bytes[b] as number) - (bytes[a] as number) || (nodes[a] as number) - (nodes[b] as number));
    const sorted = Uint32Array.from(order, (i) => nodes[i] as number);
    nodes.set(sorted);
  }
}
