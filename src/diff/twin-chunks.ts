import type { SourceReads } from '../storage/source/source.js';

/**
 * The twin of a file of A (B's file of the same channel and number) read alongside A's walk in
 * the source's sequential chunks, whose buffers are reused: where a copy holds A's records at the
 * same places, the bytes compared come from here. Through the record windows every megabyte of B
 * was a new buffer (about 100 ms more CPU per 730 MB read, and the collector called for the
 * memory). Only forward: a chunk is valid until the next is read.
 */
export class TwinChunks {
  private readonly chunks: AsyncIterator<Uint8Array>;
  private bytes: Buffer = Buffer.alloc(0);
  private start = 0;
  private end = 0;
  private finished = false;

  /** `[from, to)` of the file at `path`. */
  constructor(reads: Pick<SourceReads, 'chunks'>, path: string, to: number, from = 0) {
    this.chunks = reads.chunks(path, from, to)[Symbol.asyncIterator]();
    this.start = from;
    this.end = from;
  }

  /** Whether `[offset, …)` lies beyond the chunk held and the file has more: `advance` first. */
  behind(offset: number): boolean {
    return !this.finished && offset >= this.end;
  }

  /** Reads on until the chunk held reaches past `offset` (or the file ends). */
  async advance(offset: number): Promise<void> {
    while (!this.finished && offset >= this.end) {
      const next = await this.chunks.next();
      if (next.done === true) {
        this.finished = true;
        this.bytes = Buffer.alloc(0);
        this.start = this.end;
        return;
      }
      const piece = next.value;
      this.bytes = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
      this.start = this.end;
      this.end = this.start + piece.byteLength;
    }
  }

  /** How many bytes of the file from `offset` on the chunk held has (0 when it does not hold `offset`). */
  heldFrom(offset: number): number {
    return offset >= this.start && offset < this.end ? this.end - offset : 0;
  }

  /** The file's bytes `[offset, offset + length)` if the chunk held has all of them (valid until the next `advance`). */
  slice(offset: number, length: number): Buffer | undefined {
    if (offset < this.start || offset + length > this.end) return undefined;
    return this.bytes.subarray(offset - this.start, offset - this.start + length);
  }

  /** Whether the chunk held has `bytes[at, at + length)` at `offset`; false when it does not hold all of it. */
  equals(offset: number, bytes: Buffer, at: number, length: number): boolean {
    if (offset < this.start || offset + length > this.end) return false;
    const from = offset - this.start;
    return this.bytes.compare(bytes, at, at + length, from, from + length) === 0;
  }

  /** Ends the reading (its buffers go back to the source). */
  async close(): Promise<void> {
    this.finished = true;
    await this.chunks.return?.();
  }
}
