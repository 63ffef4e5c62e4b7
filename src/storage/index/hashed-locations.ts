import { copyShared, sharedInts } from './shared-ints.js';

/**
 * The part of an object index (object-index.ts) that holds ids outside its dense run: an
 * open-addressing hash table (linear probing) over one Int32Array of 5-word slots (id low, id
 * high + 1, file slot, offset, record length: 20 bytes a slot), over shared memory. Ids are split
 * into two 32-bit halves so that neither hashing nor probing allocates a bigint.
 */

/** Words a slot: id low, id high + 1 (0 = empty), file slot, offset, record length. */
export const WORDS = 5;
/** Load while indexing; `compact()` then shrinks the table to TARGET_LOAD. */
const MAX_LOAD = 0.85;
const TARGET_LOAD = 0.75;
const MIN_CAPACITY = 64;
/** Below this load `compact()` rebuilds the table (20 bytes / 0.625 = 32 bytes an entity). */
const MIN_COMPACT_LOAD = 0.625;
/**
 * Slots store `high + 1`, so a zero-filled (freshly allocated) table is empty. Every word is kept
 * as a signed 32-bit value: V8 then passes and compares them without boxing into heap numbers.
 */
const EMPTY = 0;

/** Visits one entry: id halves (low unsigned), file slot, offset, record length. */
export type LocationVisitor = (low: number, high: number, fileSlot: number, offset: number, length: number) => void;

export class HashedLocations {
  table: Int32Array<SharedArrayBuffer>;
  capacity: number;
  /** Ids in the table. */
  count = 0;
  /** Record length and offset of the entry the last `set` replaced (valid when it returned a slot). */
  replacedLength = 0;
  replacedOffset = 0;

  /**
   * `idShift`: log2 of the channel count (ids of one channel share their low bits); sized for
   * `expectedEntities`, or over `existing`, a table another index built (not copied).
   */
  constructor(
    private readonly idShift: number,
    expectedEntities = 0,
    existing?: { readonly table: Int32Array<SharedArrayBuffer>; readonly capacity: number; readonly count: number },
  ) {
    this.capacity = existing?.capacity ?? Math.max(MIN_CAPACITY, Math.ceil(expectedEntities / TARGET_LOAD));
    this.table = existing?.table ?? sharedInts(this.capacity * WORDS);
    this.count = existing?.count ?? 0;
  }

  /** Room for `entries` ids in all (grown once, not doubling its way there set by set). */
  reserve(entries: number): void {
    if (entries > this.capacity * MAX_LOAD) this.resize(Math.ceil(entries / TARGET_LOAD));
  }

  /** Takes a copy of the table (a snapshot still reads the one it had). */
  ownTable(): void {
    this.table = copyShared(this.table);
  }

  /** Records (or replaces) an id's location; returns the file slot it replaced, or -1 for a new id. */
  set(low: number, high: number, fileSlot: number, offset: number, length: number): number {
    const tag = (high + 1) | 0;
    if (tag === EMPTY) return -1; // id -1 .. -2^32: not an object id, never indexed
    if (this.count + 1 > this.capacity * MAX_LOAD) this.resize(this.capacity * 2);
    const table = this.table;
    let slot = this.home(low, high);
    for (;;) {
      const base = slot * WORDS;
      const h = table[base + 1] as number;
      if (h === EMPTY) {
        table[base] = low;
        table[base + 1] = tag;
        this.count++;
        table[base + 2] = fileSlot;
        table[base + 3] = offset | 0;
        table[base + 4] = length | 0;
        return -1;
      }
      if (h === tag && table[base] === low) {
        const previous = table[base + 2] as number;
        this.replacedLength = (table[base + 4] as number) >>> 0;
        this.replacedOffset = (table[base + 3] as number) >>> 0;
        table[base + 2] = fileSlot;
        table[base + 3] = offset | 0;
        table[base + 4] = length | 0;
        return previous;
      }
      slot = slot + 1 === this.capacity ? 0 : slot + 1;
    }
  }

  /** Index of the table word where an id's slot starts, or -1. */
  slotOf(low: number, high: number): number {
    low |= 0;
    high |= 0;
    const tag = (high + 1) | 0;
    if (tag === EMPTY || this.count === 0) return -1;
    const table = this.table;
    let slot = this.home(low, high);
    for (;;) {
      const base = slot * WORDS;
      const h = table[base + 1] as number;
      if (h === EMPTY) return -1;
      if (h === tag && table[base] === low) return base;
      slot = slot + 1 === this.capacity ? 0 : slot + 1;
    }
  }

  forEach(visit: LocationVisitor): void {
    const table = this.table;
    for (let base = 0; base < table.length; base += WORDS) {
      if (table[base + 1] === EMPTY) continue;
      visit((table[base] as number) >>> 0, ((table[base + 1] as number) - 1) | 0, table[base + 2] as number, (table[base + 3] as number) >>> 0, (table[base + 4] as number) >>> 0);
    }
  }

  /** Keeps only the entries `keep` accepts (the table is rebuilt when it drops any). */
  filter(keep: (low: number, high: number, fileSlot: number, offset: number, length: number) => boolean): void {
    const old = this.table;
    const kept: number[] = [];
    for (let base = 0; base < old.length; base += WORDS) {
      if (old[base + 1] === EMPTY) continue;
      if (keep(old[base] as number, ((old[base + 1] as number) - 1) | 0, old[base + 2] as number, old[base + 3] as number, old[base + 4] as number)) kept.push(base);
    }
    if (kept.length === this.count) return;
    this.table = sharedInts(this.capacity * WORDS);
    this.count = 0;
    for (const base of kept) this.set(old[base] as number, ((old[base + 1] as number) - 1) | 0, old[base + 2] as number, old[base + 3] as number, old[base + 4] as number);
  }

  /** Shrinks the table when it is much larger than its entries need. */
  compact(): void {
    if (this.count >= this.capacity * MIN_COMPACT_LOAD) return;
    const capacity = Math.max(MIN_CAPACITY, Math.ceil(this.count / TARGET_LOAD));
    if (capacity < this.capacity) this.resize(capacity);
  }

  /**
   * Slot where probing for an id starts. MicroStream hands out object ids consecutively, so the id
   * itself (modulo the capacity) spreads them perfectly and keeps neighbours in neighbouring slots:
   * indexing a data file then writes the table almost sequentially instead of missing the cache on
   * every record. The high half only shifts ranges apart.
   */
  private home(low: number, high: number): number {
    return (((low >>> this.idShift) + Math.imul(high, 0x9e3779b1)) & 0x7fffffff) % this.capacity;
  }

  private resize(capacity: number): void {
    const old = this.table;
    this.table = sharedInts(capacity * WORDS);
    this.capacity = capacity;
    this.count = 0;
    for (let base = 0; base < old.length; base += WORDS) {
      if (old[base + 1] === EMPTY) continue;
      this.set(old[base] as number, ((old[base + 1] as number) - 1) | 0, old[base + 2] as number, old[base + 3] as number, old[base + 4] as number);
    }
  }
}
