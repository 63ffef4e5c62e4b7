/**
 * A growable little-endian output buffer for encoding records and log entries. Writers reserve
 * the bytes they need once (`reserve`) and then write at explicit positions without checks.
 */
export class ByteSink {
  buffer: Buffer;
  view: DataView;
  length = 0;

  /**
   * @param firstGrowth the capacity the first growth goes to at least: for a sink whose caller
   *   knows how far it will grow (convert's copy: a batch), one allocation instead of a chain of
   *   doublings, each of which leaves its buffer, written, as garbage until the next collection.
   */
  constructor(
    initialCapacity = 64 * 1024,
    private readonly firstGrowth = 0,
  ) {
    this.buffer = Buffer.allocUnsafe(initialCapacity);
    this.view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
  }

  /** Makes room for `count` more bytes and returns the position where they start. */
  reserve(count: number): number {
    const start = this.length;
    const needed = start + count;
    if (needed > this.buffer.length) {
      let capacity = Math.max(this.buffer.length * 2, this.firstGrowth);
      while (capacity < needed) capacity *= 2;
      const grown = Buffer.allocUnsafe(capacity);
      this.buffer.copy(grown, 0, 0, start);
      this.buffer = grown;
      this.view = new DataView(grown.buffer, grown.byteOffset, grown.byteLength);
    }
    this.length = needed;
    return start;
  }

  /** Forgets the content, keeping the memory. */
  clear(): void {
    this.length = 0;
  }

  /** Forgets the content and, where it grew beyond `capacity`, the memory too. */
  release(capacity: number): void {
    this.length = 0;
    if (this.buffer.length <= capacity) return;
    this.buffer = Buffer.allocUnsafe(capacity);
    this.view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
  }

  /** The written bytes (a view, valid until the next write or clear). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

const TWO_32 = 4294967296;

/** Writes a safe integer as a little-endian int64 without allocating a bigint. */
export function setInt64(view: DataView, pos: number, value: number): void {
  view.setUint32(pos, value >>> 0, true);
  view.setInt32(pos + 4, Math.floor(value / TWO_32), true);
}
