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
 *
 * The ring and its table start at 1 MiB and double as they fill, up to the capacity, the records
 * kept carried over: a small storage (or a server asked little) never takes the 64 MiB. Taken at
 * once, they made V8 collect garbage for the external memory (a scavenge and a full mark-compact)
 * in the first answer of every `serve` (docs/benchmarks/startup.md).
 */

/** Default size of the cache. */
export const DEFAULT_RECORD_CACHE_BYTES = 64 * 1024 * 1024;

/** The ring's first size (or the capacity, if smaller); it doubles as it fills. */
export const FIRST_RING_BYTES = 1024 * 1024;

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
  /** Bytes of memory the cache holds (its ring and table, once the first record is kept; they grow as it fills). */
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

  /** `capacity`: most bytes of the ring (0 keeps nothing). Memory is taken when the first record is kept, and as the ring fills. */
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
    let ring = this.ring ?? this.allocate(Math.min(this.capacity, FIRST_RING_BYTES));
    // Full below the capacity: twice the ring, rather than going round over its records (so until
    // it reaches the capacity, a ring never goes round: `written` stays within it).
    while (ring.length < this.capacity && this.written + length > ring.length) ring = this.grow(ring);
    this.keep(channel, slot, offset, bytes);
  }

  /** Writes a record at the ring's head (which fits it, whole or from the start) and its entry in the table. */
  private keep(channel: number, slot: number, offset: number, bytes: Uint8Array): void {
    const ring = this.ring!;
    const length = bytes.length;
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
    if (this.ring.length < this.capacity) {
      // Still growing: its memory is let go, and it starts small again.
      this.ring = this.place = this.offsets = this.writtenAt = this.lengths = undefined;
      return;
    }
    // Moving past the whole ring invalidates every entry at once.
    this.written += this.ring.length;
  }

  stats(): RecordCacheStats {
    const table = this.place === undefined ? 0 : (this.setMask + 1) * WAYS * (8 + 8 + 8 + 4);
    return { hits: this.hits, misses: this.misses, capacity: this.capacity, bytes: (this.ring?.length ?? 0) + table };
  }

  /** A ring of `bytes` (its position counting from 0 again) and an empty table for it. */
  private allocate(bytes: number): Uint8Array {
    const entries = 2 ** Math.max(4, Math.ceil(Math.log2(Math.max(1, bytes / BYTES_PER_ENTRY))));
    this.setMask = entries / WAYS - 1;
    this.place = new Float64Array(entries);
    this.offsets = new Float64Array(entries);
    this.writtenAt = new Float64Array(entries);
    this.lengths = new Int32Array(entries);
    this.ring = new Uint8Array(bytes);
    this.written = 0;
    return this.ring;
  }

  /**
   * A ring twice as large (at most the capacity) and its table, holding the records the old one
   * still held, oldest first (so that in the new table, too, a newer record takes a place from an older one).
   */
  private grow(old: Uint8Array): Uint8Array {
    const { place, offsets, writtenAt, lengths, written } = this;
    const kept: number[] = [];
    for (let e = 0; e < place!.length; e++) {
      if (place![e] !== 0 && (writtenAt![e] as number) >= written - old.length) kept.push(e);
    }
    kept.sort((a, b) => (writtenAt![a] as number) - (writtenAt![b] as number));
    const ring = this.allocate(Math.min(this.capacity, old.length * 2));
    for (const e of kept) {
      const at = (writtenAt![e] as number) % old.length;
      const where = (place![e] as number) - 1;
      this.keep(Math.floor(where / TWO_32), where % TWO_32, offsets![e] as number, old.subarray(at, at + (lengths![e] as number)));
    }
    return ring;
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
