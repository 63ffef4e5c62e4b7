import { idExtent, markIdBits } from '../../storage/index/object-index-ids.js';
import type { StorageChannel } from '../../storage/storage.js';

/**
 * Dense node numbers for the stored object ids, independent of the primary index's hash slots
 * (which move when it grows, shrinks or drops a file). MicroStream hands out object ids
 * consecutively, so the ids of a storage form a few runs of consecutive values: a run maps
 * `start + k` to node `firstNode + k`. A storage without gaps is one run, whatever its size;
 * numbering costs nothing per entity. Ids added later (a followed storage) get the next node
 * numbers, extending the last run when they continue it.
 */
/** A numbering's runs as plain data (see `NodeIds.toParts`). */
export interface NodeIdsParts {
  readonly startLow: Int32Array;
  readonly startHigh: Int32Array;
  readonly lengths: Uint32Array;
  readonly firstNodes: Uint32Array;
  readonly nodes: number;
  readonly byNode: Int32Array | undefined;
}

export class NodeIds {
  private startLow: Int32Array;
  private startHigh: Int32Array;
  private lengths: Uint32Array;
  private firstNodes: Uint32Array;
  private runs = 0;
  private nodes = 0;
  /** Run indices in node order, when that differs from id order (ids added below the highest). */
  private byNode: Int32Array | undefined;

  private constructor(capacity: number) {
    this.startLow = new Int32Array(capacity);
    this.startHigh = new Int32Array(capacity);
    this.lengths = new Uint32Array(capacity);
    this.firstNodes = new Uint32Array(capacity);
  }

  /** The numbering as plain data, for a worker thread (`fromParts`); copies, not views. */
  toParts(): NodeIdsParts {
    const r = this.runs;
    return {
      startLow: this.startLow.slice(0, r),
      startHigh: this.startHigh.slice(0, r),
      lengths: this.lengths.slice(0, r),
      firstNodes: this.firstNodes.slice(0, r),
      nodes: this.nodes,
      byNode: this.byNode?.slice(),
    };
  }

  static fromParts(parts: NodeIdsParts): NodeIds {
    const ids = new NodeIds(Math.max(16, parts.lengths.length));
    ids.startLow.set(parts.startLow);
    ids.startHigh.set(parts.startHigh);
    ids.lengths.set(parts.lengths);
    ids.firstNodes.set(parts.firstNodes);
    ids.runs = parts.lengths.length;
    ids.nodes = parts.nodes;
    ids.byNode = parts.byNode;
    return ids;
  }

  /** Number of nodes (ids). */
  get count(): number {
    return this.nodes;
  }

  /** Number of runs of consecutive ids. */
  get runCount(): number {
    return this.runs;
  }

  get byteSize(): number {
    return this.startLow.byteLength * 4 + (this.byNode?.byteLength ?? 0);
  }

  /** Numbers the ids of every channel's index in ascending id order. */
  static fromChannels(channels: readonly StorageChannel[]): NodeIds {
    let count = 0;
    let minHigh = 0x7fffffff;
    let minLow = 0xffffffff;
    let maxHigh = -1;
    let maxLow = 0;
    for (const channel of channels) {
      const extent = idExtent(channel.objects);
      if (extent === undefined) continue;
      count += extent.count;
      if (extent.minHigh < minHigh || (extent.minHigh === minHigh && extent.minLow < minLow)) {
        minHigh = extent.minHigh;
        minLow = extent.minLow;
      }
      if (extent.maxHigh > maxHigh || (extent.maxHigh === maxHigh && extent.maxLow > maxLow)) {
        maxHigh = extent.maxHigh;
        maxLow = extent.maxLow;
      }
    }
    const ids = new NodeIds(16);
    if (count === 0) return ids;
    const range = (maxHigh - minHigh) * 2 ** 32 + (maxLow - minLow) + 1;
    if (range <= count * 16 + 1024) ids.numberFromBitmap(channels, minLow, minHigh, range);
    else ids.numberFromSortedIds(channels, count);
    return ids;
  }

  /** Dense enough: mark present ids in a bitmap over the id range, then read the runs off it. */
  private numberFromBitmap(channels: readonly StorageChannel[], minLow: number, minHigh: number, range: number): void {
    const bits = new Uint32Array(Math.ceil(range / 32));
    for (const channel of channels) markIdBits(channel.objects, bits, minLow, minHigh);
    let runStart = -1;
    const close = (end: number): void => {
      this.pushRun(minLow, minHigh, runStart, end - runStart);
      runStart = -1;
    };
    for (let w = 0; w < bits.length; w++) {
      const word = bits[w] as number;
      if (word === 0xffffffff) {
        if (runStart < 0) runStart = w * 32;
        continue;
      }
      if (word === 0) {
        if (runStart >= 0) close(w * 32);
        continue;
      }
      for (let b = 0; b < 32; b++) {
        const set = (word >>> b) & 1;
        if (set === 1 && runStart < 0) runStart = w * 32 + b;
        else if (set === 0 && runStart >= 0) close(w * 32 + b);
      }
    }
    if (runStart >= 0) close(Math.min(bits.length * 32, range));
  }

  /** Sparse ids: sort them all. */
  private numberFromSortedIds(channels: readonly StorageChannel[], count: number): void {
    const all = new BigInt64Array(count);
    let n = 0;
    for (const channel of channels) {
      channel.objects.forEach((low, high) => {
        all[n++] = (BigInt(high) << 32n) | BigInt(low >>> 0);
      });
    }
    all.sort();
    let start = 0;
    for (let i = 1; i <= count; i++) {
      if (i < count && all[i] === (all[i - 1] as bigint) + 1n) continue;
      const first = all[start] as bigint;
      this.pushRun(Number(first & 0xffffffffn), Number(first >> 32n), 0, i - start);
      start = i;
    }
  }

  /** Appends a run starting at (base + rel), numbered after the existing nodes. */
  private pushRun(baseLow: number, baseHigh: number, rel: number, length: number): void {
    if (this.runs === this.lengths.length) this.grow();
    const lowSum = (baseLow >>> 0) + (rel % 2 ** 32);
    const r = this.runs++;
    this.startLow[r] = lowSum >>> 0;
    this.startHigh[r] = baseHigh + Math.floor(rel / 2 ** 32) + (lowSum >= 2 ** 32 ? 1 : 0);
    this.lengths[r] = length;
    this.firstNodes[r] = this.nodes;
    this.nodes += length;
  }

  private grow(): void {
    const capacity = this.lengths.length * 2;
    const grow32 = <T extends Int32Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(capacity);
      b.set(a);
      return b;
    };
    this.startLow = grow32(this.startLow, (n) => new Int32Array(n));
    this.startHigh = grow32(this.startHigh, (n) => new Int32Array(n));
    this.lengths = grow32(this.lengths, (n) => new Uint32Array(n));
    this.firstNodes = grow32(this.firstNodes, (n) => new Uint32Array(n));
  }

  /** Index of the last run (in id order) whose start is at or below the id, or -1. */
  private runAtOrBelow(low: number, high: number): number {
    const lowU = low >>> 0;
    let lo = 0;
    let hi = this.runs - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const h = this.startHigh[mid] as number;
      if (h < high || (h === high && (this.startLow[mid] as number) >>> 0 <= lowU)) lo = mid + 1;
      else hi = mid - 1;
    }
    return hi;
  }

  /** The node of an id given as two 32-bit halves (either signedness of the low half), or -1. */
  nodeOf(low: number, high: number): number {
    if (this.runs === 1) {
      // The common case, without a search: one run of consecutive ids.
      const offset = (high - (this.startHigh[0] as number)) * 2 ** 32 + ((low >>> 0) - ((this.startLow[0] as number) >>> 0));
      return offset >= 0 && offset < (this.lengths[0] as number) ? (this.firstNodes[0] as number) + offset : -1;
    }
    const r = this.runAtOrBelow(low, high);
    if (r < 0) return -1;
    const offset = (high - (this.startHigh[r] as number)) * 2 ** 32 + ((low >>> 0) - ((this.startLow[r] as number) >>> 0));
    return offset < (this.lengths[r] as number) ? (this.firstNodes[r] as number) + offset : -1;
  }

  nodeOfId(id: bigint): number {
    if (id <= 0n || id >= 1n << 63n) return -1;
    return this.nodeOf(Number(id & 0xffffffffn) | 0, Number(id >> 32n));
  }

  /** The run holding a node. */
  private runOfNode(node: number): number {
    const order = this.byNode;
    let lo = 0;
    let hi = this.runs - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      const run = order === undefined ? mid : (order[mid] as number);
      if ((this.firstNodes[run] as number) <= node) lo = mid;
      else hi = mid - 1;
    }
    return order === undefined ? lo : (order[lo] as number);
  }

  idOf(node: number): bigint {
    const r = this.runOfNode(node);
    const offset = node - (this.firstNodes[r] as number);
    return ((BigInt(this.startHigh[r] as number) << 32n) | BigInt((this.startLow[r] as number) >>> 0)) + BigInt(offset);
  }

  /** The id of a node as two 32-bit halves in `out` (low, high), without a bigint (rows of millions). */
  writeIdHalves(node: number, out: Int32Array): void {
    const r = this.runOfNode(node);
    const low = ((this.startLow[r] as number) >>> 0) + (node - (this.firstNodes[r] as number));
    out[0] = low | 0;
    out[1] = (this.startHigh[r] as number) + (low >= 2 ** 32 ? 1 : 0);
  }

  /** Visits the runs in ascending id order: first id (as halves), first node, length. */
  forEachRun(visit: (startLow: number, startHigh: number, firstNode: number, length: number) => boolean | void): void {
    for (let r = 0; r < this.runs; r++) {
      if (visit((this.startLow[r] as number) >>> 0, this.startHigh[r] as number, this.firstNodes[r] as number, this.lengths[r] as number) === false) return;
    }
  }

  /**
   * Numbers ids that are not nodes yet (given in ascending order, as bigint), after the existing
   * nodes; returns the first new node.
   */
  addSorted(ids: readonly bigint[]): number {
    const first = this.nodes;
    for (const id of ids) {
      const low = Number(id & 0xffffffffn) | 0;
      const high = Number(id >> 32n);
      if (this.nodeOf(low, high) >= 0) continue;
      const r = this.runAtOrBelow(low, high);
      const lastInNodes = r >= 0 && (this.firstNodes[r] as number) + (this.lengths[r] as number) === this.nodes;
      if (lastInNodes && this.idOf(this.nodes - 1) + 1n === id) {
        this.lengths[r] = (this.lengths[r] as number) + 1;
        this.nodes++;
        continue;
      }
      this.insertRun(r + 1, low, high);
    }
    return first;
  }

  private insertRun(at: number, low: number, high: number): void {
    if (this.runs === this.lengths.length) this.grow();
    const shift = (a: Int32Array | Uint32Array): void => {
      a.copyWithin(at + 1, at, this.runs);
    };
    shift(this.startLow);
    shift(this.startHigh);
    shift(this.lengths);
    shift(this.firstNodes);
    this.startLow[at] = low;
    this.startHigh[at] = high;
    this.lengths[at] = 1;
    this.firstNodes[at] = this.nodes;
    this.nodes++;
    this.runs++;
    const inOrder = at === this.runs - 1 && this.byNode === undefined;
    if (inOrder) return;
    const order = Int32Array.from({ length: this.runs }, (_, i) => i);
    order.sort((a, b) => (this.firstNodes[a] as number) - (this.firstNodes[b] as number));
    this.byNode = order;
  }
}
