import type { SourceReads } from '../storage/source/source.js';

/**
 * Reads the records of one storage in roughly file order through windows of its bytes: a diff
 * walks one storage's files from start to end and asks the other for the same objects, which a
 * copy (a backup, a migrated storage) holds in much the same order. One read of a megabyte then
 * serves hundreds of records instead of one read each. Several windows (a few at most, over one
 * file or several): the changed objects of a copy lie at the end of its head file or in newer
 * files, and asking for one of them must not throw away the window the walk goes on in (with one
 * window, 1 % changed cost a megabyte read twice per change: 10 GB for a storage of 150 MB). Where the asked records jump around in a
 * file (a window served few records before the next miss), only the record itself is read.
 */

const WINDOW_BYTES = 1 << 20;
/** Windows kept (several may cover one file): the least recently used goes. */
const MAX_WINDOWS = 8;
/** A window that served fewer records than this before the next miss was not worth its size. */
const WORTH_A_WINDOW = 4;

interface Window {
  path: string;
  start: number;
  bytes: Buffer;
  served: number;
  used: number;
}

export class RecordWindow {
  private readonly windows: Window[] = [];
  /** The window that answered last: asked first. */
  private last: Window | undefined;
  private clock = 0;

  constructor(private readonly reads: SourceReads) {}

  /** The record `[offset, offset + length)` if a window holds it (no promise per record); valid until the next load. */
  peek(path: string, offset: number, length: number): Buffer | undefined {
    const last = this.last;
    if (last !== undefined && holds(last, path, offset, length)) return take(last, offset, length, ++this.clock);
    for (const w of this.windows) {
      if (!holds(w, path, offset, length)) continue;
      this.last = w;
      return take(w, offset, length, ++this.clock);
    }
    return undefined;
  }

  /**
   * Whether a window holds `bytes[at, at + length)` at `offset` of the file: undefined when no
   * window covers it. Compared where it lies: no buffer made per record.
   */
  equals(path: string, offset: number, bytes: Buffer, at: number, length: number): boolean | undefined {
    let w = this.last;
    if (w === undefined || !holds(w, path, offset, length)) {
      w = this.windows.find((x) => holds(x, path, offset, length));
      if (w === undefined) return undefined;
      this.last = w;
    }
    w.served++;
    w.used = ++this.clock;
    const start = offset - w.start;
    return w.bytes.compare(bytes, at, at + length, start, start + length) === 0;
  }

  /** How many bytes of the file from `offset` on a window holds (0 when none holds `offset`). */
  heldFrom(path: string, offset: number): number {
    let best = 0;
    for (const w of this.windows) {
      const at = offset - w.start;
      if (w.path === path && at >= 0 && w.bytes.length - at > best) best = w.bytes.length - at;
    }
    return best;
  }

  /** The record `[offset, offset + length)` of a file with `fileLength` committed bytes; valid until the next load. */
  async record(path: string, offset: number, length: number, fileLength: number): Promise<Buffer> {
    const held = this.peek(path, offset, length);
    if (held !== undefined) return held;
    // The window this read goes on from (reading on in file order), else the least recently used.
    let replaced = this.windows.find((w) => w.path === path && offset >= w.start + w.bytes.length && offset < w.start + w.bytes.length + WINDOW_BYTES);
    const onward = replaced !== undefined;
    if (replaced === undefined && this.windows.length >= MAX_WINDOWS) replaced = this.windows.reduce((a, b) => (a.used <= b.used ? a : b));
    // A window that paid off (or the first of a file) is followed by a window; else the record alone.
    const sameFile = this.windows.filter((w) => w.path === path);
    const wide = onward || sameFile.length === 0 || sameFile.some((w) => w.served >= WORTH_A_WINDOW);
    const size = wide ? Math.max(length, Math.min(WINDOW_BYTES, fileLength - offset)) : length;
    const bytes = await this.reads.read(path, offset, size, fileLength);
    const w: Window = { path, start: offset, bytes, served: 1, used: ++this.clock };
    if (replaced !== undefined) this.windows[this.windows.indexOf(replaced)] = w;
    else this.windows.push(w);
    this.last = w;
    return bytes.subarray(0, length);
  }
}

function holds(w: Window, path: string, offset: number, length: number): boolean {
  const at = offset - w.start;
  return w.path === path && at >= 0 && at + length <= w.bytes.length;
}

function take(w: Window, offset: number, length: number, clock: number): Buffer {
  w.served++;
  w.used = clock;
  const at = offset - w.start;
  return w.bytes.subarray(at, at + length);
}
