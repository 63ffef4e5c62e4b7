/**
 * The layout of convert's reachability lists (walked-reachability.ts): the targets of each newest
 * version walked, in blocks that grow without copying, and how the lists of walks in several
 * threads are joined into one.
 */

/** Entries per block of the list. */
export const BLOCK_BITS = 22;
export const BLOCK = 1 << BLOCK_BITS;
export const BLOCK_MASK = BLOCK - 1;

/**
 * A thread's starts (for object numbers from where the threads before it ended) into `into`, each
 * list position moved by `offset`, taken from the end a MiB at a time with the thread's buffer
 * shrunk behind (`release`'s reason: one step's pages at most are made resident by the shrink).
 */
export function moveStarts(from: Uint32Array<ArrayBuffer>, into: Uint32Array, base: number, offset: number): void {
  const buffer = from.buffer as ArrayBuffer & { resize?: (byteLength: number) => void; readonly resizable?: boolean };
  let view = from;
  for (let end = from.length; end > 0; ) {
    const start = Math.max(0, end - MOVE_STEP);
    for (let i = start; i < end; i++) {
      const s = view[i] as number;
      if (s !== 0) into[base + i] = s + offset;
    }
    end = start;
    if (buffer.resizable === true) {
      buffer.resize!(end * 4);
      view = new Uint32Array(buffer, 0, end);
    }
  }
}

/** Starts moved per step of `moveStarts` (a MiB). */
const MOVE_STEP = 256 * 1024;

/** ORs the first `count` bits of `source` (none set beyond them) into `target` from bit `at` on. */
export function orBits(target: Uint8Array, at: number, source: Uint8Array, count: number): void {
  const shift = at & 7;
  let byte = at >>> 3;
  const bytes = Math.ceil(count / 8);
  for (let j = 0; j < bytes; j++, byte++) {
    const b = source[j] as number;
    if (b === 0) continue;
    target[byte]! |= (b << shift) & 0xff;
    if (shift !== 0) target[byte + 1]! |= b >>> (8 - shift);
  }
}

/** A copy of `array` with room for at least `length` elements (doubled). */
export function grown(array: Uint8Array, length: number): Uint8Array<ArrayBuffer> {
  const next = new Uint8Array(Math.max(length, array.length * 2));
  next.set(array);
  return next;
}
