/**
 * Object id → location of its latest record, for one channel, with no JS object per entity:
 * an open-addressing hash table (linear probing) over one Int32Array of 5-word slots
 * (id low, id high, file slot, offset, record length): 20 bytes a slot, at most 32 bytes an
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
/** Below this load `compact()` rebuilds the table (20 bytes / 0.625 = 32 bytes an entity). */
const MIN_COMPACT_LOAD = 0.625;
/**
 * Slots store `high + 1`, so a zero-filled (freshly allocated) table is empty. Every word is kept
 * as a signed 32-bit value: V8 then passes and compares them without boxing into heap numbers.
 */
const EMPTY = 0;

/** The raw table of an index, to hand it over without copying. */
export interface IndexTable {
  readonly words: Int32Array;
  readonly capacity: number;
  readonly count: number;
  readonly idShift: number;
}

export interface EntityLocation {
  /** Index into the channel's file table. */
  readonly fileSlot: number;
  readonly offset: number;
  readonly length: number;
}

export class ObjectIndex {
  private table: Int32Array;
  private capacity: number;
  private count = 0;

  /**
   * @param idShift log2 of the channel count: all ids of one channel share their low bits, so
   *   they are dropped to keep consecutive ids in consecutive slots.
   */
  constructor(
    private readonly idShift = 0,
    expectedEntities = 0,
  ) {
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
  /** Record offset of the entry the last `set` replaced (valid when it returned a slot). */
  replacedOffset = 0;

  /**
   * Records (or replaces) the location of an object id given as two 32-bit halves. Returns the
   * file slot of the location it replaced, or -1 for a new id.
   */
  set(low: number, high: number, fileSlot: number, offset: number, length: number): number {
    low |= 0;
    high |= 0;
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

  /** Location of the latest record of an object id, if any. */
  get(id: bigint): EntityLocation | undefined {
    if (id < 0n || id >= 1n << 63n) return undefined;
    const low = Number(id & 0xffffffffn) | 0;
    const high = Number(id >> 32n) | 0;
    const table = this.table;
    const tag = (high + 1) | 0;
    let slot = this.home(low, high);
    for (;;) {
      const base = slot * WORDS;
      const h = table[base + 1] as number;
      if (h === EMPTY) return undefined;
      if (h === tag && table[base] === low) {
        return {
          fileSlot: table[base + 2] as number,
          offset: (table[base + 3] as number) >>> 0,
          length: (table[base + 4] as number) >>> 0,
        };
      }
      slot = slot + 1 === this.capacity ? 0 : slot + 1;
    }
  }

  /**
   * Whether the latest record of an id (given as two 32-bit halves) is the one at `fileSlot` and
   * `offset`: tells a walk over data files which records are current, without allocating.
   */
  isLatest(low: number, high: number, fileSlot: number, offset: number): boolean {
    const base = this.slotOf(low, high);
    return base >= 0 && this.table[base + 2] === fileSlot && this.table[base + 3] === (offset | 0);
  }

  /** Whether an object id given as two 32-bit halves is indexed (no allocation: for whole-storage walks). */
  has(low: number, high: number): boolean {
    return this.slotOf(low, high) >= 0;
  }

  /** Index of the table word where an id's slot starts, or -1. */
  private slotOf(low: number, high: number): number {
    low |= 0;
    high |= 0;
    const tag = (high + 1) | 0;
    if (tag === EMPTY) return -1;
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

  /** Calls `visit` for every indexed object with its location (order unspecified). */
  forEach(visit: (low: number, high: number, fileSlot: number, offset: number, length: number) => void): void {
    const table = this.table;
    for (let base = 0; base < table.length; base += WORDS) {
      if (table[base + 1] === EMPTY) continue;
      visit(
        (table[base] as number) >>> 0,
        ((table[base + 1] as number) - 1) | 0,
        table[base + 2] as number,
        (table[base + 3] as number) >>> 0,
        (table[base + 4] as number) >>> 0,
      );
    }
  }

  /**
   * Removes every entry whose file slot `drop` accepts (rebuilds the table; for rare events);
   * `removed` hears the id halves of each entry removed.
   */
  removeWhere(drop: (fileSlot: number) => boolean, removed?: (low: number, high: number) => void): number {
    const old = this.table;
    const before = this.count;
    this.table = ObjectIndex.emptyTable(this.capacity);
    this.count = 0;
    for (let base = 0; base < old.length; base += WORDS) {
      if (old[base + 1] === EMPTY) continue;
      if (drop(old[base + 2] as number)) {
        removed?.((old[base] as number) >>> 0, ((old[base + 1] as number) - 1) | 0);
        continue;
      }
      this.set(old[base] as number, (old[base + 1] as number) - 1, old[base + 2] as number, old[base + 3] as number, old[base + 4] as number);
    }
    return before - this.count;
  }

  /** The table as it is; the index must not be used afterwards. */
  export(): IndexTable {
    return { words: this.table, capacity: this.capacity, count: this.count, idShift: this.idShift };
  }

  /** An index over a table exported by `export()`. */
  static fromTable(table: IndexTable): ObjectIndex {
    const index = new ObjectIndex(table.idShift);
    index.table = table.words;
    index.capacity = table.capacity;
    index.count = table.count;
    return index;
  }

  /** Makes room for `expectedEntities` in one step instead of growing table by table. */
  reserve(expectedEntities: number): void {
    const capacity = Math.ceil(expectedEntities / TARGET_LOAD);
    if (capacity > this.capacity) this.resize(capacity);
  }

  /** Shrinks the table when it is much larger than its entries need (call after bulk loading). */
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
    this.table = ObjectIndex.emptyTable(capacity);
    this.capacity = capacity;
    this.count = 0;
    for (let base = 0; base < old.length; base += WORDS) {
      if (old[base + 1] === EMPTY) continue;
      this.set(old[base] as number, (old[base + 1] as number) - 1, old[base + 2] as number, old[base + 3] as number, old[base + 4] as number);
    }
  }

  private static emptyTable(capacity: number): Int32Array {
    return new Int32Array(capacity * WORDS);
  }
}

/** Splits an object id into the two 32-bit halves the index uses. */
export function splitId(id: bigint): [low: number, high: number] {
  return [Number(id & 0xffffffffn), Number((id >> 32n) & 0xffffffffn)];
}

/** Joins two 32-bit halves (either signedness) into an id. */
export function joinId(low: number, high: number): bigint {
  return (BigInt(high | 0) << 32n) | BigInt(low >>> 0);
}
