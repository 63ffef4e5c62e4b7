/**
 * Writes to an object index's dense run that building a channel's index puts aside
 * (index-builder.ts): records of objects stored again long after they were first stored. Indexing
 * a data file writes the run almost sequentially, except for those, which land anywhere in it:
 * each one a cache miss and, in a run of hundreds of megabytes, an address translation miss (read
 * one at a time, about a fifth of the CPU time of opening the 100M benchmark storage). Put aside
 * and applied in position order, a batch walks the run once, forwards.
 *
 * Entries are four words (position, file slot, offset, length) in one array; ordering them is a
 * counting sort by bucket of positions (stable, so equal positions stay in file order), into a
 * second array. Both are allocated at their full size at once (memory never written costs
 * nothing; growing would copy) and kept for the next index the thread loads (a channel after
 * another), since fresh memory costs a page fault a page.
 */

/** Entry words: run position, file slot, offset, record length. */
const ENTRY = 4;
/** Positions per bucket of the sort: within one, the writes are in file order. */
const BUCKET_BITS = 10;

/** Arrays of batches that were applied, for the next batch of this thread. */
const idle: { words: Int32Array; ordered: Int32Array }[] = [];

export class BehindWrites {
  count = 0;
  private words: Int32Array;
  private ordered: Int32Array;

  /** `capacity`: entries held before the batch must be applied (`push` says when). */
  constructor(readonly capacity: number) {
    const arrays = idle.pop();
    this.words = arrays !== undefined && arrays.words.length >= ENTRY * capacity ? arrays.words : new Int32Array(ENTRY * capacity);
    this.ordered = arrays !== undefined && arrays.ordered.length >= ENTRY * capacity ? arrays.ordered : new Int32Array(ENTRY * capacity);
  }

  /** Puts a write aside; returns whether the batch is full now. */
  push(position: number, fileSlot: number, offset: number, length: number): boolean {
    let at = this.count * ENTRY;
    const words = this.words;
    words[at++] = position;
    words[at++] = fileSlot;
    words[at++] = offset;
    words[at] = length;
    return ++this.count >= this.capacity;
  }

  /**
   * The entries ordered by position, equal positions in the order they were put aside:
   * `[0, count * 4)` of the array returned, four words each. `positions` bounds the positions.
   */
  byPosition(positions: number): Int32Array {
    const n = this.count;
    const words = this.words;
    const starts = new Uint32Array((positions >>> BUCKET_BITS) + 2);
    for (let at = 0; at < n * ENTRY; at += ENTRY) {
      const b = ((words[at] as number) >>> BUCKET_BITS) + 1;
      starts[b] = (starts[b] as number) + 1;
    }
    for (let b = 1; b < starts.length; b++) starts[b] = (starts[b] as number) + (starts[b - 1] as number);
    const ordered = this.ordered;
    for (let at = 0; at < n * ENTRY; at += ENTRY) {
      const b = (words[at] as number) >>> BUCKET_BITS;
      const to = (starts[b] as number) * ENTRY;
      starts[b] = (starts[b] as number) + 1;
      ordered[to] = words[at] as number;
      ordered[to + 1] = words[at + 1] as number;
      ordered[to + 2] = words[at + 2] as number;
      ordered[to + 3] = words[at + 3] as number;
    }
    return ordered;
  }

  clear(): void {
    this.count = 0;
  }

  /** Hands the arrays to the next batch of this thread (this one is not used again). */
  release(): void {
    if (idle.length === 0) idle.push({ words: this.words, ordered: this.ordered });
    this.words = new Int32Array(0);
    this.ordered = new Int32Array(0);
    this.count = 0;
  }
}
