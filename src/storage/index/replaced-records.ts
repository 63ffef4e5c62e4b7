/**
 * The records of a storage that another one replaced, copied out of the blocks a comparison of
 * the two reads anyway (basis-open.ts opens a storage as another's continuation and compares the
 * bytes they share, here or in an index thread: prefix-compare.ts).
 */

/** Records taken by another thread (`ReplacedRecords.taken`), as plain data. */
export interface TakenRecords {
  /** Per record its length, 0 where it was not taken. */
  readonly lengths: Int32Array;
  /** Per record where it starts among `bytes` (-1: not taken). */
  readonly starts: Float64Array;
  readonly bytes: Uint8Array;
}

/** Records held at most: beyond, `ReplacedRecords.held` answers undefined (read them from the basis). */
export const HELD_BYTES = 64 * 1024 * 1024;

/**
 * The basis's records that the continuation's appended records replaced (the latest record of an
 * object before the continuation stored it again), in the basis's file order (channel, file,
 * offset), copied out of the blocks the prefix comparison reads anyway: a diff needs exactly these
 * records of the basis, and reading them again cost as much CPU as reading the basis's files.
 */
export class ReplacedRecords {
  count = 0;
  /** Channel, file slot, record length (0 until taken), where it is held (0: `bytes`, k: `adopted[k - 1]`). */
  private readonly ints: Int32Array;
  /** Offset in the file, start among the held bytes (-1: not held). */
  private readonly places: Float64Array;
  private bytes = Buffer.alloc(0);
  /** Records taken by other threads (`adopt`), as they handed them over. */
  private readonly adopted: Buffer[] = [];
  private heldBytes = 0;

  /** `locations`: channel, file slot, offset triples, in the basis's file order. */
  constructor(locations: readonly number[]) {
    this.count = locations.length / 3;
    this.ints = new Int32Array(this.count * 4);
    this.places = new Float64Array(this.count * 2).fill(-1);
    for (let i = 0; i < this.count; i++) {
      this.ints[i * 4] = locations[i * 3]!;
      this.ints[i * 4 + 1] = locations[i * 3 + 1]!;
      this.places[i * 2] = locations[i * 3 + 2]!;
    }
  }

  channel(i: number): number {
    return this.ints[i * 4]!;
  }

  slot(i: number): number {
    return this.ints[i * 4 + 1]!;
  }

  offset(i: number): number {
    return this.places[i * 2]!;
  }

  /** The `i`th record, whole, if it was taken and held (valid while this lives). */
  held(i: number): Buffer | undefined {
    const start = this.places[i * 2 + 1]!;
    if (start < 0) return undefined;
    const chunk = this.ints[i * 4 + 3]!;
    return (chunk === 0 ? this.bytes : this.adopted[chunk - 1]!).subarray(start, start + this.ints[i * 4 + 2]!);
  }

  /**
   * Takes the records `[from, to)` (one file's) out of a block of that file that begins at
   * `blockStart`, a record that runs on past the block over the next blocks; returns the first
   * record the next block still has to serve.
   */
  take(from: number, to: number, block: Buffer, blockStart: number, blockLength: number): number {
    const blockEnd = blockStart + blockLength;
    let next = from;
    for (let i = from; i < to; i++) {
      const offset = this.places[i * 2]!;
      if (offset >= blockEnd) break;
      let length = this.ints[i * 4 + 2]!;
      if (length === 0 && this.places[i * 2 + 1]! < 0) {
        // Its header here, whole (one split between blocks is not taken: the diff reads it then).
        if (offset >= blockStart && offset + 8 <= blockEnd) {
          length = block.readUInt32LE(offset - blockStart);
          if (length > 0 && this.heldBytes + length <= HELD_BYTES) {
            this.ints[i * 4 + 2] = length;
            this.places[i * 2 + 1] = this.reserve(length);
          }
        }
      }
      const start = this.places[i * 2 + 1]!;
      if (start >= 0) {
        const part = Math.max(offset, blockStart);
        const end = Math.min(offset + length, blockEnd);
        if (part < end) block.copy(this.bytes, start + (part - offset), part - blockStart, end - blockStart);
        if (offset + length > blockEnd) continue; // runs on: the next block serves it too
      }
      if (next === i) next = i + 1;
    }
    return next;
  }

  /**
   * The records taken so far, as plain data for another thread (prefix-compare.ts: a file compared
   * in an index thread): per record its length (0: not taken) and start among `bytes`, which are
   * handed over, not copied (this instance is done with then).
   */
  taken(): TakenRecords {
    const lengths = new Int32Array(this.count);
    const starts = new Float64Array(this.count);
    for (let i = 0; i < this.count; i++) {
      starts[i] = this.places[i * 2 + 1]!;
      lengths[i] = starts[i]! >= 0 ? this.ints[i * 4 + 2]! : 0;
    }
    // Its own memory (`reserve` asks for 64 KiB or more, never from Node's shared pool), else a copy.
    const own = this.bytes.byteOffset === 0 && this.bytes.buffer.byteLength === this.bytes.length;
    const bytes = own ? new Uint8Array(this.bytes.buffer, 0, this.heldBytes) : new Uint8Array(this.bytes.subarray(0, this.heldBytes));
    return { lengths, starts, bytes };
  }

  /**
   * Records `[from, from + part.lengths.length)` as another thread took them (`taken`), each held
   * where it lies (not copied) as far as the bound leaves room (else read by the diff, as one not
   * taken).
   */
  adopt(from: number, part: TakenRecords): void {
    let chunk = 0;
    for (let k = 0; k < part.lengths.length; k++) {
      const length = part.lengths[k]!;
      const i = from + k;
      if (length === 0 || this.places[i * 2 + 1]! >= 0 || this.heldBytes + length > HELD_BYTES) continue;
      if (chunk === 0) chunk = this.adopted.push(Buffer.from(part.bytes.buffer, part.bytes.byteOffset, part.bytes.byteLength));
      this.heldBytes += length;
      this.ints[i * 4 + 2] = length;
      this.ints[i * 4 + 3] = chunk;
      this.places[i * 2 + 1] = part.starts[k]!;
    }
  }

  private reserve(length: number): number {
    if (this.heldBytes + length > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.min(HELD_BYTES, Math.max(this.bytes.length * 2, this.heldBytes + length, 1 << 16)));
      this.bytes.copy(grown, 0, 0, this.heldBytes);
      this.bytes = grown;
    }
    const start = this.heldBytes;
    this.heldBytes += length;
    return start;
  }
}
