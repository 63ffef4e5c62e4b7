/**
 * Records read lately, kept in memory of our own: what MicroStream's storage engine does with the
 * entity cache of each channel (loaded entities' bytes stay until its cache evaluator unloads
 * them), so that an object asked for again is answered without the file.
 *
 * Without it every read is a `pread` that the page cache answers, until the kernel drops the page:
 * under memory pressure, or by proactive reclaim (DAMON's `pageout` of file pages nothing touched
 * for a while). A record read is synchronous (file-reader.ts), so a dropped page then stalls every
 * request for a disk read. Records asked for often stay here whatever the page cache does.
 *
 * A ring of bytes and a four-way set-associative table over it, all typed arrays: a record is
 * keyed by where it lies (channel, file slot, offset), which never changes (data files are
 * appended to; a file slot is never reused; a rebuilt index clears the cache). New records
 * overwrite the oldest ones; an entry is valid while the ring has not come round over its bytes.
 */

/** Default size of the cache. */
export const DEFAULT_RECORD_CACHE_BYTES = 64 * 1024 * 1024;

/** One table entry per this many bytes of the ring (records are mostly smaller). */
const BYTES_PER_ENTRY = 256;

/** A record larger than this share of the ring is not kept (it would push out many others). */
const LARGEST_SHARE = 1 / 64;

const TWO_32 = 2 ** 32;

/**
 * Entries a place may take (a set). Direct-mapped (one), records asked for in turn pushed each
 * other out: 7 % of 20,000 records read over and over missed (about their share of the table).
 */
const WAYS = 4;

export interface RecordCacheStats {
  readonly hits: number;
  readonly misses: number;
  /** Bytes of records it may keep (`--record-cache-bytes`). */
  readonly capacity: number;
  /** Bytes of memory the cache holds (its ring and table, once the first record is kept). */
  readonly bytes: number;
}

export class RecordCache {
  hits = 0;
  misses = 0;
  /** Times the cache was emptied: a record read before one must not be kept after it. */
  clears = 0;
  private ring: Uint8Array | undefined;
  /**
   * Per entry: channel × 2^32 + file slot + 1 (0: empty; no filling, so that the table takes
   * memory only where entries are made), the offset, the ring position written at (absolute), the length.
   */
  private place: Float64Array | undefined;
  private offsets: Float64Array | undefined;
  private writtenAt: Float64Array | undefined;
  private lengths: Int32Array | undefined;
  private setMask = 0;
  /** Bytes written into the ring so far, gaps at its end included: positions are absolute. */
  private written = 0;
  private readonly largest: number;

  /** `capacity`: bytes of the ring (0 keeps nothing). Memory is taken when the first record is kept. */
  constructor(readonly capacity: number) {
    this.largest = Math.floor(capacity * LARGEST_SHARE);
  }

  /** A copy of the record at `offset` of file `slot` of `channel`, `length` bytes, if kept. */
  get(channel: number, slot: number, offset: number, length: number): Buffer | undefined {
    const ring = this.ring;
    const e = ring === undefined ? -1 : this.find(this.setOf(channel, slot, offset), channel * TWO_32 + slot + 1, offset);
    // Kept, of that length, and not yet written over by the ring coming round.
    if (e < 0 || this.lengths![e] !== length || (this.writtenAt![e] as number) < this.written - ring!.length) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    const start = (this.writtenAt![e] as number) % ring!.length;
    const copy = Buffer.allocUnsafe(length);
    copy.set(ring!.subarray(start, start + length));
    return copy;
  }

  /** Keeps a record read from the file (unless it is too large to be worth it). */
  put(channel: number, slot: number, offset: number, bytes: Uint8Array): void {
    const length = bytes.length;
    if (length === 0 || length > this.largest) return;
    const ring = this.ring ?? this.allocate();
    let head = this.written % ring.length;
    if (head + length > ring.length) {
      // Records are kept whole: the rest of the ring is skipped.
      this.written += ring.length - head;
      head = 0;
    }
    ring.set(bytes, head);
    const set = this.setOf(channel, slot, offset);
    const place = channel * TWO_32 + slot + 1;
    const found = this.find(set, place, offset);
    const e = found >= 0 ? found : this.oldest(set);
    this.place![e] = place;
    this.offsets![e] = offset;
    this.lengths![e] = length;
    this.writtenAt![e] = this.written;
    this.written += length;
  }

  /** Forgets every record (the index was rebuilt, so slots may mean other files now; a file was cut short). */
  clear(): void {
    this.clears++;
    if (this.ring === undefined) return;
    // Moving past the whole ring invalidates every entry at once.
    this.written += this.ring.length;
  }

  stats(): RecordCacheStats {
    const table = this.place === undefined ? 0 : (this.setMask + 1) * WAYS * (8 + 8 + 8 + 4);
    return { hits: this.hits, misses: this.misses, capacity: this.capacity, bytes: (this.ring?.length ?? 0) + table };
  }

  private allocate(): Uint8Array {
    const entries = 2 ** Math.max(4, Math.ceil(Math.log2(Math.max(1, this.capacity / BYTES_PER_ENTRY))));
    this.setMask = entries / WAYS - 1;
    this.place = new Float64Array(entries);
    this.offsets = new Float64Array(entries);
    this.writtenAt = new Float64Array(entries);
    this.lengths = new Int32Array(entries);
    this.ring = new Uint8Array(this.capacity);
    return this.ring;
  }

  /** The entry of a set that a record's place has (its bytes may be gone from the ring since), or -1. */
  private find(set: number, place: number, offset: number): number {
    for (let e = set; e < set + WAYS; e++) {
      if (this.place![e] === place && this.offsets![e] === offset) return e;
    }
    return -1;
  }

  /** The entry of a set to reuse: an empty one, else the one written longest ago (gone first from the ring). */
  private oldest(set: number): number {
    let chosen = set;
    for (let e = set; e < set + WAYS; e++) {
      if (this.place![e] === 0) return e;
      if ((this.writtenAt![e] as number) < (this.writtenAt![chosen] as number)) chosen = e;
    }
    return chosen;
  }

  /** The first entry of the set a place maps to. */
  private setOf(channel: number, slot: number, offset: number): number {
    // The parts combined, then mixed so that every bit of them moves the low bits (murmur3's finalizer).
    let h = (offset | 0) ^ Math.imul((offset / TWO_32) | 0, 0x27d4eb2d) ^ Math.imul(slot + 1, 0x9e3779b1) ^ Math.imul(channel + 1, 0x85ebca77);
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h ^= h >>> 16;
    return (h & this.setMask) * WAYS;
  }
}
