import { BehindWrites } from './behind-writes.js';
import { HashedLocations } from './hashed-locations.js';
import { ObjectIndex } from './object-index.js';
import * as layout from './run-layout.js';
import { grownRunLength, runPlacement } from './run-layout.js';
import { sharedInts } from './shared-ints.js';

// Local copies (run-layout.ts says why).
const RUN_WORDS = layout.RUN_WORDS;
const RUN_LENGTH_BITS = layout.RUN_LENGTH_BITS;
const RUN_LENGTH_MASK = layout.RUN_LENGTH_MASK;
const RUN_SLOTS = layout.RUN_SLOTS;
const IN_HASH = layout.IN_HASH;

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
 * What indexing a channel hands each record to, in file order; `finish` gives the index and adds
 * each file's live bytes (its records that are the latest of their ids) to `live`.
 */
export interface IndexLoad {
  /** Room for about `expectedEntities` ids running consecutively from `low`/`high` (see `ObjectIndex.reserveRun`). */
  reserveRun(expectedEntities: number, low: number, high: number): void;
  load(low: number, high: number, fileSlot: number, offset: number, length: number): void;
  finish(live: number[]): ObjectIndex;
}

/**
 * From this many run positions (8 MiB of run) on, a channel is loaded blind (`IndexBuilder`);
 * below, one record at a time (`IndexBySet`). A short run stays in the processor's caches, so
 * reading what a write replaces costs next to nothing, while the pass over the finished run costs
 * its time (much of it before V8 has compiled it): at 1M entities (runs of 250,000 positions)
 * opening took 130 ms loaded blind and 115–121 ms without the pass; at 10M (2.5M positions)
 * loading blind took 10 ms off.
 */
export const BLIND_FROM_RUN = 1 << 20;

/** The index for a run of `expectedEntities` positions (0: none known), loaded the way that suits it. */
export function indexLoadFor(expectedEntities: number, idShift: number, files: number, options: BuilderOptions & { readonly blindFromRun?: number } = {}): IndexLoad {
  return expectedEntities >= (options.blindFromRun ?? BLIND_FROM_RUN) ? new IndexBuilder(idShift, options) : new IndexBySet(idShift, files);
}

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
 * Run positions counted per call of `countBlock`. The pass runs once per channel, new each time, so
 * much of it runs before V8 has compiled it; in blocks it is compiled sooner. Counting a channel of
 * the 10M benchmark storage (2.5M positions) took 13.8 ms in blocks of 4,096 positions, 15 ms in
 * blocks of 65,536 and 17 ms in one loop (medians of 12 channels each, in the open).
 */
const COUNT_BLOCK = 1 << 12;

export interface BuilderOptions {
  /** Run length from which writes far behind the top are put aside and sorted (tests lower it). */
  readonly behindFromRun?: number;
  /** Writes put aside before they are applied. */
  readonly behindBatch?: number;
}

export class IndexBuilder implements IndexLoad {
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
    const run = runPlacement(expectedEntities, low, high, this.idShift);
    [this.runStart, this.runHigh, this.runLowBits, this.runLength] = [run.start, run.high, run.lowBits, run.length];
    this.run = sharedInts(this.runLength * RUN_WORDS);
    if (this.runLength >= (this.options.behindFromRun ?? BEHIND_FROM_RUN)) this.behind = new BehindWrites(this.options.behindBatch ?? BEHIND_BATCH);
  }

  /** The next record in file order: an object id as two 32-bit halves and its location. */
  load(low: number, high: number, fileSlot: number, offset: number, length: number): void {
    low |= 0;
    high |= 0;
    if (high === this.runHigh && (low & this.lowMask) === this.runLowBits) {
      const position = (low >>> this.idShift) - this.runStart;
      if (position >= 0 && position < this.runLength && fileSlot < RUN_SLOTS && length >>> RUN_LENGTH_BITS === 0) {
        if (this.behind !== undefined && position < this.runTop - BEHIND) {
          if (this.behind.push(position, fileSlot, offset | 0, length | 0)) this.applyBehind();
          return;
        }
        const run = this.run;
        const base = position * RUN_WORDS;
        run[base] = ((fileSlot + 1) << RUN_LENGTH_BITS) | length;
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
      run[base] = (((writes[at + 1] as number) + 1) << RUN_LENGTH_BITS) | (writes[at + 3] as number);
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
      if (tag === 0 && fileSlot < RUN_SLOTS && length >>> RUN_LENGTH_BITS === 0) {
        run[base] = ((fileSlot + 1) << RUN_LENGTH_BITS) | length;
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

/**
 * A channel's index loaded one record at a time through `ObjectIndex.set`, each file's live bytes
 * kept as records come (what a write replaces is read): for runs short enough to stay in the
 * processor's caches (see `BLIND_FROM_RUN`).
 */
export class IndexBySet implements IndexLoad {
  private readonly index: ObjectIndex;
  private readonly live: number[];

  constructor(idShift: number, files: number) {
    this.index = new ObjectIndex(idShift);
    this.live = new Array<number>(files).fill(0);
  }

  reserveRun(expectedEntities: number, low: number, high: number): void {
    this.index.reserveRun(expectedEntities, low, high);
  }

  load(low: number, high: number, fileSlot: number, offset: number, length: number): void {
    const index = this.index;
    const live = this.live;
    const previous = index.set(low, high, fileSlot, offset, length);
    if (previous >= 0) live[previous] = (live[previous] as number) - index.replacedLength;
    live[fileSlot] = (live[fileSlot] as number) + length;
  }

  finish(live: number[]): ObjectIndex {
    this.live.forEach((bytes, slot) => (live[slot] = (live[slot] as number) + bytes));
    this.index.compact();
    return this.index;
  }
}
