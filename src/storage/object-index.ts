/**
 * Object id → location of its latest record, for one channel, with no JS object per entity:
 * an open-addressing hash table (linear probing) over one Uint32Array of 5-word slots
 * (id low, id high, file slot, offset, record length): 20 bytes a slot, at most ~27 bytes an
 * entity after `compact()`. Ids are split into two 32-bit halves so
 * that neither hashing nor probing allocates a bigint.
 *
 * Inserting the records in file order (ascending file number, ascending offset) and letting
 * later records overwrite earlier ones yields Java's "latest version" rule (storage-format.md §5.4).
 */

const WORDS = 5;
/** Load while indexing; `compact()` then shrinks the table to TARGET_LOAD. */
const MAX_LOAD = 0.85;
const TARGET_LOAD = 0.75;
const MIN_CAPACITY = 64;
const EMPTY_HIGH = 0xffffffff; // no valid object id has all high bits set (ids are < 2^63)

export interface EntityLocation {
  /** Index into the channel's file table. */
  readonly fileSlot: number;
  readonly offset: number;
  readonly length: number;
}

export class ObjectIndex {
  private table: Uint32Array;
  private capacity: number;
  private count = 0;

  constructor(expectedEntities = 0) {
    this.capacity = Math.max(MIN_CAPACITY, Math.ceil(expectedEntities / TARGET_LOAD));
    this.table = ObjectIndex.emptyTable(this.capacity);
  }

  /** Number of distinct object ids. */
  get size(): number {
    return this.count;
  }

  /** Bytes held by the table. */
  get byteSize(): number {
    return this.table.byteLength;
  }

  /** Record length of the entry the last `set` replaced (valid when it returned a slot). */
  replacedLength = 0;

  /**
   * Records (or replaces) the location of an object id given as two 32-bit halves. Returns the
   * file slot of the location it replaced, or -1 for a new id.
   */
  set(low: number, high: number, fileSlot: number, offset: number, length: number): number {
    if (this.count + 1 > this.capacity * MAX_LOAD) this.resize(this.capacity * 2);
    const table = this.table;
    let slot = this.home(low, high);
    for (;;) {
      const base = slot * WORDS;
      const h = table[base + 1] as number;
      if (h === EMPTY_HIGH) {
        table[base] = low;
        table[base + 1] = high;
        this.count++;
        table[base + 2] = fileSlot;
        table[base + 3] = offset;
        table[base + 4] = length;
        return -1;
      }
      if (h === high && table[base] === low) {
        const previous = table[base + 2] as number;
        this.replacedLength = table[base + 4] as number;
        table[base + 2] = fileSlot;
        table[base + 3] = offset;
        table[base + 4] = length;
        return previous;
      }
      slot = slot + 1 === this.capacity ? 0 : slot + 1;
    }
  }

  /** Location of the latest record of an object id, if any. */
  get(id: bigint): EntityLocation | undefined {
    if (id < 0n || id >= 1n << 63n) return undefined;
    const low = Number(id & 0xffffffffn);
    const high = Number(id >> 32n);
    const table = this.table;
    let slot = this.home(low, high);
    for (;;) {
      const base = slot * WORDS;
      const h = table[base + 1] as number;
      if (h === EMPTY_HIGH) return undefined;
      if (h === high && table[base] === low) {
        return { fileSlot: table[base + 2] as number, offset: table[base + 3] as number, length: table[base + 4] as number };
      }
      slot = slot + 1 === this.capacity ? 0 : slot + 1;
    }
  }

  /** Calls `visit` for every indexed object with its location (order unspecified). */
  forEach(visit: (low: number, high: number, fileSlot: number, offset: number, length: number) => void): void {
    const table = this.table;
    for (let base = 0; base < table.length; base += WORDS) {
      if (table[base + 1] === EMPTY_HIGH) continue;
      visit(table[base] as number, table[base + 1] as number, table[base + 2] as number, table[base + 3] as number, table[base + 4] as number);
    }
  }

  /** Removes every entry whose file slot `drop` accepts (rebuilds the table; for rare events). */
  removeWhere(drop: (fileSlot: number) => boolean): number {
    const old = this.table;
    const before = this.count;
    this.table = ObjectIndex.emptyTable(this.capacity);
    this.count = 0;
    for (let base = 0; base < old.length; base += WORDS) {
      if (old[base + 1] === EMPTY_HIGH || drop(old[base + 2] as number)) continue;
      this.set(old[base] as number, old[base + 1] as number, old[base + 2] as number, old[base + 3] as number, old[base + 4] as number);
    }
    return before - this.count;
  }

  /** Shrinks the table to what its entries need (call after bulk loading). */
  compact(): void {
    const capacity = Math.max(MIN_CAPACITY, Math.ceil(this.count / TARGET_LOAD));
    if (capacity < this.capacity) this.resize(capacity);
  }

  /** Slot where probing for an id starts: the hash scaled onto [0, capacity). */
  private home(low: number, high: number): number {
    return Math.floor((hash(low, high) * this.capacity) / 4294967296);
  }

  private resize(capacity: number): void {
    const old = this.table;
    this.table = ObjectIndex.emptyTable(capacity);
    this.capacity = capacity;
    this.count = 0;
    for (let base = 0; base < old.length; base += WORDS) {
      if (old[base + 1] === EMPTY_HIGH) continue;
      this.set(old[base] as number, old[base + 1] as number, old[base + 2] as number, old[base + 3] as number, old[base + 4] as number);
    }
  }

  private static emptyTable(capacity: number): Uint32Array {
    const table = new Uint32Array(capacity * WORDS);
    for (let base = 1; base < table.length; base += WORDS) table[base] = EMPTY_HIGH;
    return table;
  }
}

/** Mixes both halves; object ids are mostly sequential, so the low half carries the entropy. */
function hash(low: number, high: number): number {
  let h = Math.imul(low ^ Math.imul(high, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Splits an object id into the two 32-bit halves the index uses. */
export function splitId(id: bigint): [low: number, high: number] {
  return [Number(id & 0xffffffffn), Number((id >> 32n) & 0xffffffffn)];
}

/** Joins two 32-bit halves into an id. */
export function joinId(low: number, high: number): bigint {
  return (BigInt(high) << 32n) | BigInt(low);
}
