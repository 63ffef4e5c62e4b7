import { closeSync, fstatSync, readSync } from 'node:fs';
import { openRegularFileSync } from '../source/regular-file.js';

/**
 * A data file's twin (the file of the same channel and number in another storage, a copy of this
 * one: `OpenOptions.compareTwin`) compared with it byte for byte in the reads that index the file:
 * each chunk the walk is handed, the twin's bytes at the same place read beside it and compared
 * before the walk takes it. A diff of a storage and a copy that went on (basis-open.ts) needs to
 * know the copy begins with this storage's bytes; compared here, the copy's bytes are read once and
 * this storage's not a second time.
 */

/** How much of a twin was found equal, and which file it was (the opener checks it is the one it opens). */
export interface TwinPrefix {
  /** The bytes from the file's start up to here are the same in both files. */
  readonly equalTo: number;
  /** The twin as it was when compared: `twinIdentity` of its status. */
  readonly file: string;
}

/**
 * A file's device, inode, size and status change time: another value, another file or the same
 * file written since (in place too: an inode alone stays the same through a rewrite, and a deleted
 * file's number is soon given to a new one).
 */
export function twinIdentity(stat: { readonly dev: bigint; readonly ino: bigint; readonly size: bigint; readonly ctimeNs: bigint }): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.ctimeNs}`;
}

/** The twin's bytes of a chunk up to this size go into one buffer per thread, reused (a worker's chunks are this size). */
const SPARE_BYTES = 512 * 1024;
let spare: Buffer | undefined;

/**
 * `chunks` of `[from, to)` as they come, the twin's bytes compared with each; `done` gets the
 * result once the chunks end or the walk stops taking them (undefined when the twin cannot be
 * opened as a regular file).
 */
export async function* comparedWithTwin(chunks: AsyncIterable<Uint8Array>, twin: string, from: number, done: (result: TwinPrefix | undefined) => void): AsyncGenerator<Uint8Array> {
  let fd: number;
  try {
    if (from !== 0) throw new RangeError('only a whole file is compared'); // a twin's prefix is what counts
    fd = openRegularFileSync(twin);
  } catch {
    done(undefined);
    yield* chunks;
    return;
  }
  let equalTo = from;
  let same = true;
  // Larger chunks (the opening thread's reads) get a buffer of this file's comparison alone: not kept.
  let larger: Buffer | undefined;
  try {
    const stat = fstatSync(fd, { bigint: true });
    for await (const chunk of chunks) {
      if (same) {
        let buffer = chunk.byteLength <= SPARE_BYTES ? (spare ??= Buffer.allocUnsafeSlow(SPARE_BYTES)) : larger;
        if (buffer === undefined || buffer.byteLength < chunk.byteLength) buffer = larger = Buffer.allocUnsafe(chunk.byteLength);
        // The twin failing to be read (EIO) is not this storage's failure: not compared here, the
        // copy's opening compares the file itself and says what it meets.
        try {
          same = twinHas(fd, chunk, equalTo, buffer);
        } catch {
          same = false;
        }
      }
      if (same) equalTo += chunk.byteLength;
      yield chunk;
    }
    done({ equalTo, file: twinIdentity(stat) });
  } finally {
    closeSync(fd);
  }
}

/** Whether the twin holds `chunk`'s bytes at `position` (read into `buffer`). */
function twinHas(fd: number, chunk: Uint8Array, position: number, buffer: Buffer): boolean {
  let filled = 0;
  while (filled < chunk.byteLength) {
    const n = readSync(fd, buffer, filled, chunk.byteLength - filled, position + filled);
    if (n === 0) return false;
    filled += n;
  }
  return buffer.compare(chunk, 0, chunk.byteLength, 0, filled) === 0;
}
