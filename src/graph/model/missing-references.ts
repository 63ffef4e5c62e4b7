/**
 * References to ids that are neither stored entities nor JDK constants ("zombie" ids that make
 * Java's garbage collector fail), as (referring node, id low, id high) triples in typed arrays.
 * A healthy storage has none; the arrays grow with the damage, not with the storage.
 */
export class MissingReferences {
  private sources = new Uint32Array(16);
  private lows = new Int32Array(16);
  private highs = new Int32Array(16);
  private count = 0;
  /** Triple indices sorted by id, then source; undefined after a change. */
  private order: Int32Array | undefined;

  get size(): number {
    return this.count;
  }

  add(source: number, low: number, high: number): void {
    if (this.count === this.sources.length) {
      const n = this.count * 2;
      const s = new Uint32Array(n);
      s.set(this.sources);
      this.sources = s;
      const l = new Int32Array(n);
      l.set(this.lows);
      this.lows = l;
      const h = new Int32Array(n);
      h.set(this.highs);
      this.highs = h;
    }
    this.sources[this.count] = source;
    this.lows[this.count] = low;
    this.highs[this.count] = high;
    this.count++;
    this.order = undefined;
  }

  /** Drops every triple whose source `drop` accepts. */
  removeSources(drop: (source: number) => boolean): void {
    let kept = 0;
    for (let i = 0; i < this.count; i++) {
      if (drop(this.sources[i] as number)) continue;
      this.sources[kept] = this.sources[i] as number;
      this.lows[kept] = this.lows[i] as number;
      this.highs[kept] = this.highs[i] as number;
      kept++;
    }
    if (kept !== this.count) this.order = undefined;
    this.count = kept;
  }

  private sorted(): Int32Array {
    if (this.order !== undefined) return this.order;
    const order = Int32Array.from({ length: this.count }, (_, i) => i);
    order.sort((a, b) => {
      const ha = this.highs[a] as number;
      const hb = this.highs[b] as number;
      if (ha !== hb) return ha - hb;
      const la = (this.lows[a] as number) >>> 0;
      const lb = (this.lows[b] as number) >>> 0;
      if (la !== lb) return la - lb;
      return (this.sources[a] as number) - (this.sources[b] as number);
    });
    this.order = order;
    return order;
  }

  private idAt(i: number): bigint {
    return (BigInt(this.highs[i] as number) << 32n) | BigInt((this.lows[i] as number) >>> 0);
  }

  /**
   * Visits each distinct missing id in ascending order with its referring nodes (ascending,
   * distinct); stops when `visit` returns false.
   */
  forEachId(visit: (id: bigint, sources: number[]) => boolean | void): void {
    const order = this.sorted();
    let i = 0;
    while (i < order.length) {
      const first = order[i] as number;
      const sources: number[] = [];
      let j = i;
      while (j < order.length && this.highs[order[j] as number] === this.highs[first] && this.lows[order[j] as number] === this.lows[first]) {
        const s = this.sources[order[j] as number] as number;
        if (sources[sources.length - 1] !== s) sources.push(s);
        j++;
      }
      if (visit(this.idAt(first), sources) === false) return;
      i = j;
    }
  }

  /** Number of distinct missing ids. */
  distinctIds(): number {
    let n = 0;
    this.forEachId(() => {
      n++;
    });
    return n;
  }

  /** The nodes that refer to a missing id (ascending), empty when it is not missing. */
  sourcesOf(id: bigint): number[] {
    let found: number[] = [];
    this.forEachId((missing, sources) => {
      if (missing === id) {
        found = sources;
        return false;
      }
      return missing < id;
    });
    return found;
  }
}
