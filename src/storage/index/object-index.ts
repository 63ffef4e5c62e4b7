/**
 * Object id → location of its latest record, for one channel, with no JS object per entity.
 * MicroStream hands out object ids consecutively, so most of a channel's ids form one run: those
 * live in a dense array indexed by the id's distance from the run's start, 2 words a position
 * (8 bytes, no id stored, no probing; run-layout.ts): the file slot + 1 and the record length
 * packed in one word, the offset in the other. Every other id goes to a hash table of 20-byte
 * slots (hashed-locations.ts), and so do records too long to pack (1 MiB or more) and records in a
 * channel's 4,095th file and beyond: their run position is then marked (`IN_HASH`), and the id's
 * later records go to the hash table too. At most 32 bytes an entity after `compact()`. Ids are
 * split into two 32-bit halves so that no lookup allocates a bigint. A storage's first load builds
 * each channel's index in one go (index-builder.ts); `set` keeps it up to date afterwards.
 *
 * Why the run matters, and its 8-byte layout: run-layout.ts. Beside this file: the plain data the
 * index hands out (object-index-parts.ts), who else reads its tables (table-sharing.ts), the run
 * as convert's reachability reads it (run-positions.ts), a copy sharing its tables
 * (shared-copy-index.ts).
 *
 * Inserting the records in file order (ascending file number, ascending offset) and letting
 * later records overwrite earlier ones yields Java's "latest version" rule (storage-format.md §5.4).
 */

import { HashedLocations, WORDS as HASH_WORDS, type LocationVisitor } from './hashed-locations.js';
import * as layout from './run-layout.js';
import { grownRunLength, runPlacement } from './run-layout.js';
import { copyShared, sharedInts } from './shared-ints.js';
import type { EntityLocation, ObjectIndexParts } from './object-index-parts.js';
import { markRunPositions, type RunArithmetic } from './run-positions.js';
import { TableSharing } from './table-sharing.js';

// Local copies (run-layout.ts says why).
const RUN_WORDS = layout.RUN_WORDS;
const RUN_LENGTH_BITS = layout.RUN_LENGTH_BITS;
const RUN_LENGTH_MASK = layout.RUN_LENGTH_MASK;
const RUN_SLOTS = layout.RUN_SLOTS;
const IN_HASH = layout.IN_HASH;

export { WORDS } from './hashed-locations.js';
export { IN_HASH, RUN_LENGTH_BITS, RUN_WORDS } from './run-layout.js';
export type { EntityLocation, ObjectIndexParts } from './object-index-parts.js';
/** `compact()` moves the run's entries into the hash table when the run costs more an entry. */
const MAX_RUN_BYTES_PER_ENTRY = 32;
/**
 * `compact()` trims a run whose used part is less than this share of it. Not for less: trimming
 * copies the run (page faults for all of it again), while its unused tail, never written, costs
 * address space only.
 */
const MIN_RUN_USE = 0.5;
/** `Long.MAX_VALUE`: computed once, not per lookup (a bigint shift allocates). */
const LONG_MAX = 0x7fffffffffffffffn;

export class ObjectIndex {
  /** Ids outside the run. */
  protected hashed: HashedLocations;
  private readonly lowMask: number;
  /** The dense run: `run[(key - runStart) * 2 ..]` for ids with `runHigh` and `runLowBits`. */
  protected run = sharedInts(0);
  private runLength = 0;
  /** Key (`low >>> idShift`) of the run's first position. */
  private runStart = 0;
  private runHigh = 0;
  private runLowBits = 0;
  /** Ids in the run; one past its last used position. */
  protected inRun = 0;
  private runTop = 0;
  /** Who else reads the tables (snapshots, shared copies): they are copied before they next change. */
  private readonly sharing = new TableSharing();

  /**
   * @param idShift log2 of the channel count: all ids of one channel share their low bits, so
   *   they are dropped to keep consecutive ids in consecutive slots.
   */
  constructor(
    private readonly idShift = 0,
    expectedEntities = 0,
  ) {
    this.idShift = idShift | 0;
    this.lowMask = (1 << this.idShift) - 1;
    this.hashed = new HashedLocations(this.idShift, expectedEntities);
  }

  /** The tables as they are (shared, not copied: for reading, or for handing over an index no longer used here). */
  toParts(): ObjectIndexParts {
    const { idShift, run } = this;
    const { table, capacity, count: hashed } = this.hashed;
    return { idShift, table, capacity, hashed, run, runFields: [this.runLength, this.runStart, this.runHigh, this.runLowBits, this.inRun, this.runTop] };
  }

  /**
   * The tables as they are now, for another thread to read while this index goes on changing
   * (a graph build's worker: graph-build.ts): until `release` is called, the index copies its
   * tables before it changes them, once. Nothing is copied when nothing changes meanwhile; a
   * structured copy of the tables cost the build about 80 ms on each side at 10M entities.
   */
  snapshot(): { readonly parts: ObjectIndexParts; readonly release: () => void } {
    const release = this.sharing.share();
    return { parts: this.toParts(), release };
  }

  /** Copies the tables that a snapshot still shares, before they change. */
  protected ownTables(): void {
    this.sharing.copied();
    this.hashed.ownTable();
    this.run = copyShared(this.run);
  }

  /** An index over tables made by `toParts` (no copy). */
  static fromParts(parts: ObjectIndexParts): ObjectIndex {
    const index = new ObjectIndex(parts.idShift);
    index.adopt(parts);
    return index;
  }

  /** Takes over tables made by `toParts` (no copy), in place of its own. */
  protected adopt(parts: ObjectIndexParts): void {
    this.hashed = new HashedLocations(parts.idShift, 0, { table: parts.table, capacity: parts.capacity, count: parts.hashed });
    this.run = parts.run;
    [this.runLength, this.runStart, this.runHigh, this.runLowBits, this.inRun, this.runTop] = parts.runFields;
  }

  /** Number of distinct object ids. */
  get size(): number {
    return this.hashed.count + this.inRun;
  }

  /** Bytes held by the tables. */
  get byteSize(): number {
    return this.hashed.table.byteLength + this.run.byteLength;
  }

  /** Record length of the entry the last `set` replaced (valid when it returned a slot). */
  replacedLength = 0;
  /** Record offset of the entry the last `set` replaced (valid when it returned a slot). */
  replacedOffset = 0;
  /** Record offset of the entry the last `locate` found (valid when it returned a slot). */
  foundOffset = 0;
  /** Record length of the entry the last `locate` found (valid when it returned a slot). */
  foundLength = 0;

  /**
   * A hint that about `sets` more ids are about to be set (a refresh's records, counted before they
   * are applied). Nothing to do here: the run and the hash table grow as ids come. A shared copy
   * (shared-copy-index.ts) sizes the table it keeps its own changes in once.
   */
  expectSets(_sets: number): void {}

  /**
   * Records (or replaces) the location of an object id given as two 32-bit halves. Returns the
   * file slot of the location it replaced, or -1 for a new id.
   */
  set(low: number, high: number, fileSlot: number, offset: number, length: number): number {
    if (this.sharing.shared) this.ownTables();
    low |= 0;
    high |= 0;
    if (high === this.runHigh && (low & this.lowMask) === this.runLowBits && this.runLength > 0) {
      const position = (low >>> this.idShift) - this.runStart;
      if (position >= 0) {
        if (position < this.runLength || this.growRun(position)) return this.setInRun(position, fileSlot, offset, length);
      }
    }
    return this.setHashed(low, high, fileSlot, offset, length);
  }

  private setInRun(position: number, fileSlot: number, offset: number, length: number): number {
    // The rare case in a method of its own, keeping this one small enough for V8 to compile into
    // its callers.
    if (fileSlot >= RUN_SLOTS || length >>> RUN_LENGTH_BITS !== 0) return this.setUnpacked(position, fileSlot, offset, length);
    const run = this.run;
    const base = position * RUN_WORDS;
    let previous = -1;
    // Never written: known empty without reading it. Reading a fresh page first maps the shared
    // zero page, and the write after it faults a second time and flushes the other cores' TLBs.
    if (position >= this.runTop) this.runTop = position + 1;
    else {
      const tag = run[base] as number;
      if (tag === IN_HASH) return this.setUnpacked(position, fileSlot, offset, length);
      previous = (tag >>> RUN_LENGTH_BITS) - 1;
      if (previous >= 0) {
        this.replacedOffset = (run[base + 1] as number) >>> 0;
        this.replacedLength = tag & RUN_LENGTH_MASK;
      }
    }
    if (previous < 0) this.inRun++;
    run[base] = ((fileSlot + 1) << RUN_LENGTH_BITS) | length;
    run[base + 1] = offset | 0;
    return previous;
  }

  /**
   * A run position's location that is (or, once this record does not pack, becomes) kept in the
   * hash table, the position marked `IN_HASH`. Returns the file slot replaced, or -1.
   */
  private setUnpacked(position: number, fileSlot: number, offset: number, length: number): number {
    const run = this.run;
    const base = position * RUN_WORDS;
    const fresh = position >= this.runTop;
    if (fresh) this.runTop = position + 1;
    const tag = fresh ? 0 : (run[base] as number);
    const low = this.runLow(position) | 0;
    if (tag === IN_HASH) return this.setHashed(low, this.runHigh, fileSlot, offset, length);
    run[base] = IN_HASH;
    const previous = (tag >>> RUN_LENGTH_BITS) - 1;
    if (previous >= 0) {
      this.inRun--;
      this.replacedOffset = (run[base + 1] as number) >>> 0;
      this.replacedLength = tag & RUN_LENGTH_MASK;
    }
    this.hashed.set(low, this.runHigh, fileSlot, offset, length); // new there
    return previous;
  }

  private setHashed(low: number, high: number, fileSlot: number, offset: number, length: number): number {
    const hashed = this.hashed;
    const previous = hashed.set(low, high, fileSlot, offset, length);
    if (previous >= 0) {
      this.replacedLength = hashed.replacedLength;
      this.replacedOffset = hashed.replacedOffset;
    }
    return previous;
  }

  /** Location of the latest record of an object id, if any. */
  get(id: bigint): EntityLocation | undefined {
    if (id < 0n || id > LONG_MAX) return undefined;
    const low = Number(id & 0xffffffffn) | 0;
    const high = Number(id >> 32n) | 0;
    const at = this.runWordOf(low, high);
    if (at >= 0) {
      const tag = this.run[at] as number;
      return { fileSlot: (tag >>> RUN_LENGTH_BITS) - 1, offset: (this.run[at + 1] as number) >>> 0, length: tag & RUN_LENGTH_MASK };
    }
    const base = this.hashed.slotOf(low, high);
    if (base < 0) return undefined;
    const table = this.hashed.table;
    return { fileSlot: table[base + 2] as number, offset: (table[base + 3] as number) >>> 0, length: (table[base + 4] as number) >>> 0 };
  }

  /**
   * `get` for an id given as two 32-bit halves, without a bigint or an object per call: the file
   * slot of its latest record, or -1 (not indexed, or a negative id, which `get` refuses too); the
   * record's offset and length left in `foundOffset` and `foundLength` until the next call. For
   * walks that look up many ids one after another (a diff's appended records: a bigint read, two
   * bigint operations and a location object per id otherwise).
   */
  locate(low: number, high: number): number {
    if ((high | 0) < 0) return -1;
    const at = this.runWordOf(low, high);
    if (at >= 0) {
      const tag = this.run[at] as number;
      this.foundOffset = (this.run[at + 1] as number) >>> 0;
      this.foundLength = tag & RUN_LENGTH_MASK;
      return (tag >>> RUN_LENGTH_BITS) - 1;
    }
    return this.locateIn(this.hashed, low, high);
  }

  /** `locate` in one hash table of locations (this index's, or a shared copy's own changes). */
  protected locateIn(hashed: HashedLocations, low: number, high: number): number {
    const base = hashed.slotOf(low, high);
    if (base < 0) return -1;
    const table = hashed.table;
    this.foundOffset = (table[base + 3] as number) >>> 0;
    this.foundLength = (table[base + 4] as number) >>> 0;
    return table[base + 2] as number;
  }

  /**
   * Whether the latest record of an id (given as two 32-bit halves) is the one at `fileSlot` and
   * `offset`: tells a walk over data files which records are current, without allocating.
   */
  isLatest(low: number, high: number, fileSlot: number, offset: number): boolean {
    const at = this.runWordOf(low, high);
    if (at >= 0) return (this.run[at] as number) >>> RUN_LENGTH_BITS === fileSlot + 1 && this.run[at + 1] === (offset | 0);
    const base = this.hashed.slotOf(low, high);
    return base >= 0 && this.hashed.table[base + 2] === fileSlot && this.hashed.table[base + 3] === (offset | 0);
  }

  /** Whether an object id given as two 32-bit halves is indexed (no allocation: for whole-storage walks). */
  has(low: number, high: number): boolean {
    return this.runWordOf(low, high) >= 0 || this.hashed.slotOf(low, high) >= 0;
  }

  /**
   * A number from 0 to `positions - 1` for an indexed id (two 32-bit halves), distinct per id, or
   * -1: its run position, else the run's length plus its hash slot. For per-object bits or
   * counters in typed arrays beside the index (convert's reachability); valid while nothing is set.
   */
  positionOf(low: number, high: number): number {
    const at = this.runWordOf(low, high);
    if (at >= 0) return at / RUN_WORDS;
    const base = this.hashed.slotOf(low, high);
    return base < 0 ? -1 : this.runLength + base / HASH_WORDS;
  }

  /** One past the largest `positionOf`. */
  get positions(): number {
    return this.runLength + this.hashed.capacity;
  }

  /** Convert's reachability's view of the run (run-positions.ts says what it is). Valid while nothing is set. */
  markRunPositions(present: Uint8Array, base: number): RunArithmetic {
    return markRunPositions(this.toParts(), present, base);
  }

  /** Index of the run word where an id's entry starts, or -1 (not in the run, maybe hashed). */
  protected runWordOf(low: number, high: number): number {
    low |= 0;
    if ((high | 0) !== this.runHigh || (low & this.lowMask) !== this.runLowBits) return -1;
    const position = (low >>> this.idShift) - this.runStart;
    if (position < 0 || position >= this.runLength) return -1;
    const base = position * RUN_WORDS;
    const tag = this.run[base] as number;
    return tag === 0 || tag === IN_HASH ? -1 : base;
  }

  /** Calls `visit` for every indexed object with its location (the run in id order, then the rest). */
  forEach(visit: LocationVisitor): void {
    const run = this.run;
    for (let position = 0; position < this.runTop; position++) {
      const base = position * RUN_WORDS;
      const tag = run[base] as number;
      if (tag === 0 || tag === IN_HASH) continue;
      visit(this.runLow(position), this.runHigh, (tag >>> RUN_LENGTH_BITS) - 1, (run[base + 1] as number) >>> 0, tag & RUN_LENGTH_MASK);
    }
    this.hashed.forEach(visit);
  }

  /** The (unsigned) low half of the id at a run position. */
  private runLow(position: number): number {
    return (((this.runStart + position) << this.idShift) | this.runLowBits) >>> 0;
  }

  /**
   * Removes every entry whose file slot `drop` accepts (rebuilds the hash table; for rare events);
   * `removed` hears the id halves of each entry removed.
   */
  removeWhere(drop: (fileSlot: number) => boolean, removed?: (low: number, high: number) => void): number {
    if (this.sharing.shared) this.ownTables();
    const before = this.size;
    const run = this.run;
    for (let position = 0; position < this.runTop; position++) {
      const base = position * RUN_WORDS;
      const tag = run[base] as number;
      // A position marked IN_HASH stays so: the hash table's entry is looked at below.
      if (tag === 0 || tag === IN_HASH || !drop((tag >>> RUN_LENGTH_BITS) - 1)) continue;
      run[base] = 0;
      this.inRun--;
      removed?.(this.runLow(position), this.runHigh);
    }
    this.hashed.filter((low, high, fileSlot) => {
      if (!drop(fileSlot)) return true;
      removed?.(low >>> 0, high);
      return false;
    });
    return before - this.size;
  }

  /**
   * Makes room for about `expectedEntities` ids that run consecutively from the id `low`/`high`
   * (the lowest id seen in a sample), in the dense run; call on an empty index. Ids outside the
   * run (below its start, with other low bits, far beyond its end) still go to the hash table.
   */
  reserveRun(expectedEntities: number, low: number, high: number): void {
    if (this.size > 0 || expectedEntities <= 0) return;
    const run = runPlacement(expectedEntities, low, high, this.idShift);
    [this.runStart, this.runHigh, this.runLowBits, this.runLength] = [run.start, run.high, run.lowBits, run.length];
    this.run = sharedInts(this.runLength * RUN_WORDS);
  }

  /**
   * Lengthens the run to hold `position` when that is within reach (a sample underestimated the
   * channel), moving hashed ids the longer run now covers. Returns whether it did.
   */
  private growRun(position: number): boolean {
    const length = grownRunLength(this.runLength, this.runStart, position, this.idShift);
    if (length === 0) return false;
    const run = sharedInts(length * RUN_WORDS);
    run.set(this.run);
    const oldLength = this.runLength;
    this.run = run;
    this.runLength = length;
    if (this.hashed.count > 0) this.moveHashedIntoRun(oldLength);
    return true;
  }

  /**
   * Moves hashed ids at run positions from `from` on (none used yet) into the run; a location that
   * does not pack stays hashed, its position marked.
   */
  private moveHashedIntoRun(from: number): void {
    const run = this.run;
    this.hashed.filter((low, high, fileSlot, offset, length) => {
      const position = (low >>> this.idShift) - this.runStart;
      if (high !== this.runHigh || (low & this.lowMask) !== this.runLowBits || position < from || position >= this.runLength) return true;
      if (position >= this.runTop) this.runTop = position + 1;
      const base = position * RUN_WORDS;
      if (fileSlot >= RUN_SLOTS || length >>> RUN_LENGTH_BITS !== 0) {
        run[base] = IN_HASH;
        return true;
      }
      run[base] = ((fileSlot + 1) << RUN_LENGTH_BITS) | length;
      run[base + 1] = offset | 0;
      this.inRun++;
      return false;
    });
  }

  /** Shrinks the tables when they are much larger than their entries need (call after bulk loading). */
  compact(): void {
    if (this.sharing.shared) this.ownTables();
    if (this.runLength > 0) {
      if (this.run.byteLength > this.inRun * MAX_RUN_BYTES_PER_ENTRY) this.dissolveRun();
      else if (this.runTop < this.runLength * MIN_RUN_USE) {
        this.run = copyShared(this.run.subarray(0, this.runTop * RUN_WORDS));
        this.runLength = this.runTop;
      }
    }
    this.hashed.compact();
  }

  /** Moves the run's entries into the hash table (too sparse a run costs more than hashing). */
  private dissolveRun(): void {
    const run = this.run;
    const top = this.runTop;
    this.run = sharedInts(0);
    this.runLength = 0;
    this.runTop = 0;
    this.inRun = 0;
    for (let position = 0; position < top; position++) {
      const base = position * RUN_WORDS;
      const tag = run[base] as number;
      if (tag === 0 || tag === IN_HASH) continue; // IN_HASH: hashed already
      this.setHashed(this.runLow(position) | 0, this.runHigh, (tag >>> RUN_LENGTH_BITS) - 1, run[base + 1] as number, tag & RUN_LENGTH_MASK);
    }
  }
}
