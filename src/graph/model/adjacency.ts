import { appendReferrers } from './referrer-rows.js';

/**
 * Both directions of the reference graph in one compressed-sparse-row structure over node
 * numbers: row `v` is `rows[rowStart[v] .. rowStart[v + 1])` and holds first v's forward targets
 * (each with bit 31 set, ascending) and then the nodes that refer to v (ascending). So an edge
 * costs 8 bytes (4 in each direction) and a node 4 (its row start); no JS object per node or edge.
 *
 * A followed storage changes rows after the build: changed forward lists and added or removed
 * referrers live in small overlays until they grow past a fraction of the graph, when the rows
 * are compacted in memory (nothing is read from disk again).
 */

export const FORWARD_FLAG = 0x80000000;

const EMPTY = new Uint32Array(0);

export class Adjacency {
  private rowStart: Uint32Array;
  private rows: Uint32Array;
  /** Nodes covered by `rowStart` (later nodes have empty base rows). */
  private baseNodes: number;
  private readonly forwardOverlay = new Map<number, Uint32Array>();
  private readonly referrersAdded = new Map<number, number[]>();
  private readonly referrersRemoved = new Map<number, Set<number>>();
  private overlayWeight = 0;
  /** Edges gained minus edges lost since the rows were built. */
  private edgeDelta = 0;

  constructor(rowStart: Uint32Array, rows: Uint32Array, baseNodes: number) {
    this.rowStart = rowStart;
    this.rows = rows;
    this.baseNodes = baseNodes;
  }

  /** Bytes held by the rows and their starts (overlays excluded). */
  get byteSize(): number {
    return this.rowStart.byteLength + this.rows.byteLength;
  }

  /** Distinct edges in the base rows. */
  get baseEdges(): number {
    return this.rows.length / 2;
  }

  /** Distinct references (source, target pairs) in the graph. */
  referenceCount(): number {
    return this.rows.length / 2 + this.edgeDelta;
  }

  /** Changed nodes and referrers waiting in overlays. */
  get pendingChanges(): number {
    return this.overlayWeight;
  }

  /**
   * For hot loops over forward targets: the overlay list of a node if it has one (else the base
   * row applies: `baseRows`, `baseRowStart`, for nodes below `baseNodeCount`).
   */
  forwardOverlayOf(v: number): Uint32Array | undefined {
    return this.forwardOverlay.size === 0 ? undefined : this.forwardOverlay.get(v);
  }

  /** Whether some node's forward list lives in an overlay (else the base rows tell all). */
  get hasForwardOverlays(): boolean {
    return this.forwardOverlay.size > 0;
  }

  get baseRows(): Uint32Array {
    return this.rows;
  }

  get baseRowStart(): Uint32Array {
    return this.rowStart;
  }

  get baseNodeCount(): number {
    return this.baseNodes;
  }

  /** Index of the first referrer in a base row (the end of its forward part). */
  private split(v: number): number {
    let lo = this.rowStart[v] as number;
    let hi = this.rowStart[v + 1] as number;
    const rows = this.rows;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((rows[mid] as number) >= FORWARD_FLAG) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The forward targets of a node, ascending (a fresh array). */
  forward(v: number): Uint32Array {
    const overlay = this.forwardOverlay.get(v);
    if (overlay !== undefined) return overlay.slice();
    if (v >= this.baseNodes) return EMPTY;
    const start = this.rowStart[v] as number;
    const end = this.split(v);
    const out = new Uint32Array(end - start);
    for (let i = start; i < end; i++) out[i - start] = (this.rows[i] as number) & 0x7fffffff;
    return out;
  }

  /** Calls `visit` with each forward target of a node (stops when it returns false). */
  forEachForward(v: number, visit: (u: number) => boolean | void): void {
    if (this.forwardOverlay.size > 0) {
      const overlay = this.forwardOverlay.get(v);
      if (overlay !== undefined) {
        for (let i = 0; i < overlay.length; i++) if (visit(overlay[i] as number) === false) return;
        return;
      }
    }
    if (v >= this.baseNodes) return;
    const rows = this.rows;
    const end = this.rowStart[v + 1] as number;
    for (let i = this.rowStart[v] as number; i < end; i++) {
      const x = rows[i] as number;
      if (x < FORWARD_FLAG) return;
      if (visit(x & 0x7fffffff) === false) return;
    }
  }

  /** Whether v refers to u (a binary search in v's forward targets). */
  refersTo(v: number, u: number): boolean {
    const overlay = this.forwardOverlay.size === 0 ? undefined : this.forwardOverlay.get(v);
    let list: Uint32Array;
    let lo: number;
    let hi: number;
    if (overlay !== undefined) {
      list = overlay;
      lo = 0;
      hi = overlay.length;
    } else {
      if (v >= this.baseNodes) return false;
      list = this.rows;
      lo = this.rowStart[v] as number;
      hi = this.split(v);
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const x = ((list[mid] as number) & 0x7fffffff) >>> 0;
      if (x === u) return true;
      if (x < u) lo = mid + 1;
      else hi = mid;
    }
    return false;
  }

  forwardCount(v: number): number {
    const overlay = this.forwardOverlay.get(v);
    if (overlay !== undefined) return overlay.length;
    return v >= this.baseNodes ? 0 : this.split(v) - (this.rowStart[v] as number);
  }

  /** Number of distinct nodes that refer to a node. */
  referrerCount(v: number): number {
    const base = v >= this.baseNodes ? 0 : (this.rowStart[v + 1] as number) - this.split(v);
    return base - (this.referrersRemoved.get(v)?.size ?? 0) + (this.referrersAdded.get(v)?.length ?? 0);
  }

  /** Referrers `[offset, offset + limit)` of a node in ascending node order. */
  referrers(v: number, offset: number, limit: number): Uint32Array {
    if (!this.referrersRemoved.has(v) && !this.referrersAdded.has(v)) {
      if (v >= this.baseNodes) return EMPTY;
      const end = this.rowStart[v + 1] as number;
      const from = Math.min(end, this.split(v) + offset);
      return this.rows.slice(from, Math.min(end, from + limit));
    }
    const all = this.allReferrers(v);
    return all.slice(Math.min(offset, all.length), Math.min(all.length, offset + limit));
  }

  private allReferrers(v: number): Uint32Array {
    const removed = this.referrersRemoved.get(v);
    const added = this.referrersAdded.get(v) ?? [];
    const out: number[] = [];
    if (v < this.baseNodes) {
      const end = this.rowStart[v + 1] as number;
      for (let i = this.split(v); i < end; i++) {
        const r = this.rows[i] as number;
        if (removed === undefined || !removed.has(r)) out.push(r);
      }
    }
    for (const r of added) out.push(r);
    return Uint32Array.from(out).sort();
  }

  /** Calls `visit` with each referrer of a node (stops when it returns false). */
  forEachReferrer(v: number, visit: (r: number) => boolean | void): void {
    const removed = this.referrersRemoved.size > 0 ? this.referrersRemoved.get(v) : undefined;
    if (v < this.baseNodes) {
      const rows = this.rows;
      const end = this.rowStart[v + 1] as number;
      for (let i = this.split(v); i < end; i++) {
        const r = rows[i] as number;
        if (removed !== undefined && removed.has(r)) continue;
        if (visit(r) === false) return;
      }
    }
    if (this.referrersAdded.size > 0) {
      for (const r of this.referrersAdded.get(v) ?? []) if (visit(r) === false) return;
    }
  }

  /**
   * Replaces the forward targets of a node (ascending, distinct) and updates the referrers of
   * the targets it gained or lost; reports both.
   */
  replaceForward(v: number, targets: Uint32Array, gained: (u: number) => void, lost: (u: number) => void): void {
    const before = this.forward(v);
    let i = 0;
    let j = 0;
    while (i < before.length || j < targets.length) {
      const b = i < before.length ? (before[i] as number) : Infinity;
      const t = j < targets.length ? (targets[j] as number) : Infinity;
      if (b === t) {
        i++;
        j++;
      } else if (b < t) {
        this.removeReferrer(b, v);
        this.edgeDelta--;
        lost(b);
        i++;
      } else {
        this.addReferrer(t, v);
        this.edgeDelta++;
        gained(t);
        j++;
      }
    }
    this.forwardOverlay.set(v, targets);
    this.overlayWeight++;
  }

  private addReferrer(u: number, v: number): void {
    const removed = this.referrersRemoved.get(u);
    if (removed !== undefined && removed.delete(v)) {
      if (removed.size === 0) this.referrersRemoved.delete(u);
      return;
    }
    const added = this.referrersAdded.get(u);
    if (added === undefined) this.referrersAdded.set(u, [v]);
    else added.push(v);
    this.overlayWeight++;
  }

  private removeReferrer(u: number, v: number): void {
    const added = this.referrersAdded.get(u);
    const at = added === undefined ? -1 : added.indexOf(v);
    if (at >= 0) {
      added!.splice(at, 1);
      if (added!.length === 0) this.referrersAdded.delete(u);
      return;
    }
    const removed = this.referrersRemoved.get(u);
    if (removed === undefined) this.referrersRemoved.set(u, new Set([v]));
    else removed.add(v);
    this.overlayWeight++;
  }

  /**
   * Folds the overlays into fresh rows over `nodeCount` nodes (in memory; O(nodes + edges)).
   * Peak memory is a second copy of the rows.
   */
  compact(nodeCount: number): void {
    const degrees = new Uint32Array(nodeCount + 1);
    for (let v = 0; v < nodeCount; v++) {
      this.forEachForward(v, (u) => {
        degrees[v] = (degrees[v] as number) + 1;
        degrees[u] = (degrees[u] as number) + 1;
      });
    }
    const fresh = assembleRows(
      nodeCount,
      degrees,
      (v, rows, at) => {
        this.forEachForward(v, (u) => {
          rows[at++] = (u | FORWARD_FLAG) >>> 0;
        });
        return at;
      },
      new Uint32Array(nodeCount),
    );
    this.rowStart = fresh.rowStart;
    this.rows = fresh.rows;
    this.baseNodes = nodeCount;
    this.forwardOverlay.clear();
    this.referrersAdded.clear();
    this.referrersRemoved.clear();
    this.overlayWeight = 0;
    this.edgeDelta = 0;
  }
}

/**
 * Builds the rows from forward lists given in any node order (compacting overlays; a graph build
 * takes the same steps in link-steps.ts, in parts two threads share). `copyForward(v, rows, at)`
 * writes v's targets (ascending, distinct, with FORWARD_FLAG) at `at` and returns the end;
 * `degrees[v]` must hold v's forward count plus its referrer count and becomes the row starts
 * (length nodeCount + 1). `cursor` (length >= nodeCount) is scratch.
 */
export function assembleRows(
  nodeCount: number,
  degrees: Uint32Array,
  copyForward: (v: number, rows: Uint32Array, at: number) => number,
  cursor: Uint32Array | Int32Array,
): Adjacency {
  const rows = new Uint32Array(rowStartsFromDegrees(degrees, nodeCount));
  for (let v = 0; v < nodeCount; v++) cursor[v] = copyForward(v, rows, degrees[v] as number);
  // Referrers in ascending order: the sources in order, each appended to its targets.
  appendReferrers(nodeCount, degrees, rows, cursor);
  return new Adjacency(degrees, rows, nodeCount);
}

/** Turns `degrees[0, nodeCount]` into row starts in place (prefix sums); returns the rows' length. */
export function rowStartsFromDegrees(degrees: Uint32Array, nodeCount: number): number {
  let sum = 0;
  for (let v = 0; v <= nodeCount; v++) {
    const d = degrees[v] as number;
    degrees[v] = sum;
    sum += d;
  }
  return sum;
}
