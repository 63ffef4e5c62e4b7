import { HashedLocations, type LocationVisitor } from './hashed-locations.js';
import { ObjectIndex, type EntityLocation, type ObjectIndexParts } from './object-index.js';
import { RUN_LENGTH_BITS, RUN_LENGTH_MASK } from './run-layout.js';

/**
 * Another index with an index's entries, over the same tables: a storage opened as the
 * continuation of another's (basis-open.ts). The index shared from copies its tables before its
 * next change (a snapshot it never releases); the copy never changes them, it keeps what is set in
 * it apart, in a hash table of its own that is looked up first. A diff's second storage stores
 * about 1 % of the objects again: copying all the tables for that (90 MB at 10M entities) was
 * most of what opening it added to the diff's peak memory (about 290 MB, 210 MB without the copy).
 * Where the changes grow past `SETTLE_SHARE` of the entries (kept apart, they would cost more than
 * the copy), or the tables are asked for whole (`toParts`, `forEach`, positions, reshaping), the
 * tables are copied and the changes set into them (`settle`): from then on it is an index like
 * any other.
 */

const SETTLE_SHARE = 1 / 8;
const SETTLE_MIN = 4096;
/** `Long.MAX_VALUE`, as `ObjectIndex.get` bounds an id. */
const LONG_MAX = 0x7fffffffffffffffn;

export function sharedCopyOf(index: ObjectIndex): ObjectIndex {
  return new SharedCopyIndex(index.snapshot().parts);
}

class SharedCopyIndex extends ObjectIndex {
  /** Set here since the copy began; undefined once settled. */
  private changes: HashedLocations | undefined;
  /** Ids among `changes` that the shared tables lack. */
  private newIds = 0;

  constructor(parts: ObjectIndexParts) {
    super(parts.idShift);
    this.adopt(parts);
    this.changes = new HashedLocations(parts.idShift, 0);
  }

  /** The shared tables copied and the changes set into them. */
  private settle(): void {
    const changes = this.changes;
    if (changes === undefined) return;
    this.changes = undefined;
    this.newIds = 0;
    this.ownTables();
    changes.forEach((low, high, fileSlot, offset, length) => void super.set(low | 0, high, fileSlot, offset, length));
  }

  /**
   * Room for `sets` more changes, up to where they would be settled into copied tables instead. At
   * 10M entities a diff's second storage sets 25,000 ids per channel, and growing this table from
   * empty by doubling rehashed twice as many entries (about 55 ms of the open's CPU, profiled).
   */
  override expectSets(sets: number): void {
    const changes = this.changes;
    if (changes === undefined || sets <= 0) return;
    changes.reserve(Math.min(changes.count + sets, SETTLE_MIN + (this.hashed.count + this.inRun) * SETTLE_SHARE));
  }

  override set(low: number, high: number, fileSlot: number, offset: number, length: number): number {
    const changes = this.changes;
    if (changes === undefined) return super.set(low, high, fileSlot, offset, length);
    if (changes.count >= SETTLE_MIN + (this.hashed.count + this.inRun) * SETTLE_SHARE) {
      this.settle();
      return super.set(low, high, fileSlot, offset, length);
    }
    low |= 0;
    high |= 0;
    let previous: number;
    const at = changes.slotOf(low, high);
    if (at >= 0) {
      previous = changes.table[at + 2] as number;
      this.replacedOffset = (changes.table[at + 3] as number) >>> 0;
      this.replacedLength = (changes.table[at + 4] as number) >>> 0;
    } else {
      previous = this.sharedPrevious(low, high);
    }
    const count = changes.count;
    changes.set(low, high, fileSlot, offset, length);
    if (previous < 0 && changes.count > count) this.newIds++;
    return previous;
  }

  /** The shared tables' location of an id, as `set` reports the one it replaced (file slot, or -1). */
  private sharedPrevious(low: number, high: number): number {
    const word = this.runWordOf(low, high);
    if (word >= 0) {
      const tag = this.run[word] as number;
      this.replacedOffset = (this.run[word + 1] as number) >>> 0;
      this.replacedLength = tag & RUN_LENGTH_MASK;
      return (tag >>> RUN_LENGTH_BITS) - 1;
    }
    const at = this.hashed.slotOf(low, high);
    if (at < 0) return -1;
    const table = this.hashed.table;
    this.replacedOffset = (table[at + 3] as number) >>> 0;
    this.replacedLength = (table[at + 4] as number) >>> 0;
    return table[at + 2] as number;
  }

  override get(id: bigint): EntityLocation | undefined {
    const changes = this.changes;
    if (changes !== undefined && id >= 0n && id <= LONG_MAX) {
      const at = changes.slotOf(Number(id & 0xffffffffn) | 0, Number(id >> 32n) | 0);
      if (at >= 0) {
        const table = changes.table;
        return { fileSlot: table[at + 2] as number, offset: (table[at + 3] as number) >>> 0, length: (table[at + 4] as number) >>> 0 };
      }
    }
    return super.get(id);
  }

  override locate(low: number, high: number): number {
    const changes = this.changes;
    if (changes !== undefined && (high | 0) >= 0) {
      const slot = this.locateIn(changes, low, high);
      if (slot >= 0) return slot;
    }
    return super.locate(low, high);
  }

  override isLatest(low: number, high: number, fileSlot: number, offset: number): boolean {
    const at = this.changes?.slotOf(low, high) ?? -1;
    if (at < 0) return super.isLatest(low, high, fileSlot, offset);
    const table = this.changes!.table;
    return table[at + 2] === fileSlot && table[at + 3] === (offset | 0);
  }

  override has(low: number, high: number): boolean {
    return (this.changes !== undefined && this.changes.slotOf(low, high) >= 0) || super.has(low, high);
  }

  override get size(): number {
    return super.size + this.newIds;
  }

  override get byteSize(): number {
    return super.byteSize + (this.changes?.table.byteLength ?? 0);
  }

  // Asked for the tables whole: settled first.
  override toParts(): ObjectIndexParts {
    this.settle();
    return super.toParts();
  }

  override snapshot(): { readonly parts: ObjectIndexParts; readonly release: () => void } {
    this.settle(); // before sharing: settling copies the tables, which forgets their readers
    return super.snapshot();
  }

  override forEach(visit: LocationVisitor): void {
    this.settle();
    super.forEach(visit);
  }

  override positionOf(low: number, high: number): number {
    this.settle();
    return super.positionOf(low, high);
  }

  override get positions(): number {
    this.settle();
    return super.positions;
  }

  override removeWhere(drop: (fileSlot: number) => boolean, removed?: (low: number, high: number) => void): number {
    this.settle();
    return super.removeWhere(drop, removed);
  }

  override reserveRun(expectedEntities: number, low: number, high: number): void {
    this.settle();
    super.reserveRun(expectedEntities, low, high);
  }

  override compact(): void {
    this.settle();
    super.compact();
  }
}
