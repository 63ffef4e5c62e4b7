import { BehindWrites } from './behind-writes.js';
import { HashedLocations } from './hashed-locations.js';
import { ObjectIndex } from './object-index.js';
import { grownRunLength, IN_HASH, packs, RUN_LENGTH_BITS, RUN_LENGTH_MASK, RUN_WORDS, tagOf } from './run-layout.js';
import { sharedInts } from './shared-ints.js';

/**
 * Builds a channel's object index (object-index.ts) from its records in file order, in one go:
 * the first load of a storage. Unlike `ObjectIndex.set`, a record's location is written into the
 * dense run blind, without reading what it replaces: records of objects stored again (4–5 % of
 * the benchmark storages' records) land anywhere in a run of tens of megabytes, and reading the
 * entry there was a cache miss (and an address translation miss) the walk waited for, each time.
 * What a channel's files hold live, and how many ids the run has, are counted once the run is
 * complete, in one pass over it.
 *
 * Records land in file order, so the later of two records of an id is the one in the later file,
 * or later in the same file: a record kept in the hash table beside the run (one that does not
 * pack, or whose id was beyond the run then) is weighed against the run's entry for its id that
 * way when the index is finished.
 */

/**
 * A write this many positions or more behind the run's top is put aside (behind-writes.ts), in
 * runs where that is done (`BuilderOptions.behindFromRun`): nearer ones hit memory written a
 * moment ago (32 KiB of run).
 */
const BEHIND = 1 << 12;
/** Writes put aside before they are applied: 16 MiB of them (and as much to order them). */
const BEHIND_BATCH = 1 << 20;
/**
 * Runs of this many positions and more put writes far behind aside, sorted by position before
 * they are applied, so that a batch walks the run once, forwards: at 100M entities (runs of 25M
 * positions, 200 MB) a blind write to anywhere in the run still costs the store's cache line. At
 * 10M (runs of 2.5M positions) it gained nothing, and compiling its code took CPU in each thread.
 */
const BEHIND_FROM_RUN = 1 << 23;
/**
 * Run positions counted per call of `countBlock`: V8 compiles a function it calls often early,
 * where one loop over millions of positions, run once per channel, went through most of them in
 * the interpreter before its compiled code took over.
 */
const COUNT_BLOCK = 1 << 16;

export interface BuilderOptions {
  /** Run length from which writes far behind the top are put aside and sorted (tests lower it). */
  readonly behindFromRun?: number;
  /** Writes put aside before they are applied. */
  readonly behindBatch?: number;
}

export class IndexBuilder {
  private readonly lowMask: number;
  private readonly hashed: HashedLocations;
  private run = sharedInts(0);
  private runLength = 0;
  /** Key (`low >>> idShift`) of the run's first position. */
  private runStart = 0;
  private runHigh = 0;
  private runLowBits = 0;
  /** One past the run's last written position. */
  private runTop = 0;
  private behind: BehindWrites | undefined;

  /** `idShift`: log2 of the channel count (the ids of one channel share their low bits). */
  constructor(
    private readonly idShift: number,
    private readonly options: BuilderOptions = {},
  ) {
    this.lowMask = (1 << idShift) - 1;
    this.hashed = new HashedLocations(idShift);
  }

  /**
   * Makes room for about `expectedEntities` ids that run consecutively from the id `low`/`high`
   * (the lowest id seen in a sample), in the dense run; call before loading. Ids outside the run
   * (below its start, with other low bits, far beyond its end) go to the hash table.
   */
  reserveRun(expectedEntities: number, low: number, high: number): void {
    if (this.runTop > 0 || this.hashed.count > 0 || expectedEntities <= 0) return;
    const start = (low | 0) >>> this.idShift;
    this.runHigh = high | 0;
    this.runLowBits = low & this.lowMask;
    this.runStart = start;
    this.runLength = Math.min(Math.ceil(expectedEntities), 2 ** (32 - this.idShift) - start);
    this.run = sharedInts(this.runLength * RUN_WORDS);
    if (this.runLength >= (this.options.behindFromRun ?? BEHIND_FROM_RUN)) this.behind = new BehindWrites(this.options.behindBatch ?? BEHIND_BATCH);
  }

  /** The next record in file order: an object id as two 32-bit halves and its location. */
  load(low: number, high: number, fileSlot: number, offset: number, length: number): void {
    low |= 0;
    high |= 0;
    if (high === this.runHigh && (low & this.lowMask) === this.runLowBits) {
      const position = (low >>> this.idShift) - this.runStart;
      if (position >= 0 && position < this.runLength && packs(fileSlot, length)) {
        if (this.behind !== undefined && position < this.runTop - BEHIND) {
          if (this.behind.push(position, fileSlot, offset | 0, length | 0)) this.applyBehind();
          return;
        }
        const run = this.run;
        const base = position * RUN_WORDS;
        run[base] = tagOf(fileSlot, length);
        run[base + 1] = offset | 0;
        if (position >= this.runTop) this.runTop = position + 1;
        return;
      }
    }
    this.loadAside(low, high, fileSlot, offset, length);
  }

  /** A record that does not go into the run as it is: the run grows to it, or it is hashed. */
  private loadAside(low: number, high: number, fileSlot: number, offset: number, length: number): void {
    if (high === this.runHigh && (low & this.lowMask) === this.runLowBits && this.runLength > 0) {
      const position = (low >>> this.idShift) - this.runStart;
      const length2 = position >= this.runLength ? grownRunLength(this.runLength, this.runStart, position, this.idShift) : 0;
      if (length2 > 0) {
        const run = sharedInts(length2 * RUN_WORDS);
        run.set(this.run);
        this.run = run;
        this.runLength = length2;
        this.load(low, high, fileSlot, offset, length);
        return;
      }
    }
    this.hashed.set(low, high, fileSlot, offset, length);
  }

  /** Writes put aside, in position order (a position's writes in file order): the last one wins. */
  private applyBehind(): void {
    const behind = this.behind!;
    const n = behind.count;
    if (n === 0) return;
    const writes = behind.byPosition(this.runLength);
    const run = this.run;
    for (let at = 0; at < 4 * n; at += 4) {
      const base = (writes[at] as number) * RUN_WORDS;
      run[base] = tagOf(writes[at + 1] as number, writes[at + 3] as number);
      run[base + 1] = writes[at + 2] as number;
    }
    behind.clear();
  }

  /**
   * The finished index (compacted); `live[fileSlot]` gets the bytes of the records that are the
   * latest of their ids in each file.
   */
  finish(live: number[]): ObjectIndex {
    if (this.behind !== undefined) {
      this.applyBehind();
      this.behind.release();
      this.behind = undefined;
    }
    if (this.hashed.count > 0) this.settleHashed();
    let inRun = 0;
    for (let from = 0; from < this.runTop; from += COUNT_BLOCK) inRun += countBlock(this.run, from, Math.min(this.runTop, from + COUNT_BLOCK), live);
    this.hashed.forEach((_low, _high, fileSlot, _offset, length) => {
      live[fileSlot] = (live[fileSlot] as number) + length;
    });
    const { table, capacity, count } = this.hashed;
    const index = ObjectIndex.fromParts({
      idShift: this.idShift,
      table,
      capacity,
      hashed: count,
      run: this.run,
      runFields: [this.runLength, this.runStart, this.runHigh, this.runLowBits, inRun, this.runTop],
    });
    index.compact();
    return index;
  }

  /**
   * Weighs each hashed record whose id lies in the run against the run's entry for that id: the
   * later one in file order stays. A hashed record that is the latest packs into an empty position
   * when it can; otherwise its position is marked `IN_HASH`.
   */
  private settleHashed(): void {
    const run = this.run;
    this.hashed.filter((low, high, fileSlot, offset, length) => {
      const position = (low >>> this.idShift) - this.runStart;
      if (high !== this.runHigh || (low & this.lowMask) !== this.runLowBits || position < 0 || position >= this.runLength) return true;
      const base = position * RUN_WORDS;
      const tag = run[base] as number;
      if (tag !== 0 && tag !== IN_HASH) {
        const runSlot = (tag >>> RUN_LENGTH_BITS) - 1;
        if (runSlot > fileSlot || (runSlot === fileSlot && (run[base + 1] as number) >>> 0 > offset >>> 0)) return false;
      }
      if (position >= this.runTop) this.runTop = position + 1;
      if (tag === 0 && packs(fileSlot, length)) {
        run[base] = tagOf(fileSlot, length);
        run[base + 1] = offset;
        return false;
      }
      run[base] = IN_HASH;
      return true;
    });
  }
}

/** Counts the entries of run positions `[from, to)` and adds their record lengths to `live` by file slot. */
function countBlock(run: Int32Array, from: number, to: number, live: number[]): number {
  let entries = 0;
  for (let base = from * RUN_WORDS; base < to * RUN_WORDS; base += RUN_WORDS) {
    const tag = run[base] as number;
    if (tag === 0 || tag === IN_HASH) continue;
    entries++;
    const slot = (tag >>> RUN_LENGTH_BITS) - 1;
    live[slot] = (live[slot] as number) + (tag & RUN_LENGTH_MASK);
  }
  return entries;
}
