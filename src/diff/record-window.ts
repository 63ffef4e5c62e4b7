import type { SourceReads } from '../storage/source/source.js';

/**
 * Reads the records of one storage in roughly file order through a window of its bytes: a diff
 * walks one storage's files from start to end and asks the other for the same objects, which a
 * copy (a backup, a migrated storage) holds in much the same order. One read of a megabyte then
 * serves hundreds of records instead of one read each. Where the asked records jump around (a
 * window served few records before the next miss), only the record itself is read.
 */

const WINDOW_BYTES = 1 << 20;
/** A window that served fewer records than this before the next miss was not worth its size. */
const WORTH_A_WINDOW = 4;

export class RecordWindow {
  private path = '';
  private start = 0;
  private bytes: Buffer = Buffer.alloc(0);
  private served = 0;

  constructor(private readonly reads: SourceReads) {}

  /** The record `[offset, offset + length)` if the window holds it (no promise per record); valid until the next load. */
  peek(path: string, offset: number, length: number): Buffer | undefined {
    const at = offset - this.start;
    if (path !== this.path || at < 0 || at + length > this.bytes.length) return undefined;
    this.served++;
    return this.bytes.subarray(at, at + length);
  }

  /** The record `[offset, offset + length)` of a file with `fileLength` committed bytes; valid until the next load. */
  async record(path: string, offset: number, length: number, fileLength: number): Promise<Buffer> {
    const held = this.peek(path, offset, length);
    if (held !== undefined) return held;
    const at = offset - this.start;
    // Just past the window (reading on in file order), or a window that paid off: read a window.
    const onward = path === this.path && at >= this.bytes.length && at < this.bytes.length + WINDOW_BYTES;
    const wide = onward || this.served >= WORTH_A_WINDOW;
    const size = wide ? Math.max(length, Math.min(WINDOW_BYTES, fileLength - offset)) : length;
    this.bytes = await this.reads.read(path, offset, size, fileLength);
    this.path = path;
    this.start = offset;
    this.served = 1;
    return this.bytes.subarray(0, length);
  }
}
