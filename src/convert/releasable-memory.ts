/**
 * Typed arrays whose memory is given back at once (`release`) instead of when the garbage
 * collector next runs: their buffer is resizable and is shrunk to nothing. convert's
 * reachability lists (about 100 MB at 10M entities) are dropped after the search, just before the
 * copy allocates its stores; left to the collector, they were at times still held while the copy's
 * stores filled: at 10M, 6 of 18 runs peaked at 309-330 MB, the others at 276-292 MB (the memory
 * target there is 319 MB). Released (a step at a time, see `release`), 3 of 3 at 275-276 MB.
 */

/** ES2024's resizable ArrayBuffer (Node 20 has it; the project's TypeScript lib predates it). */
type ResizableArrayBuffer = ArrayBuffer & { resize(byteLength: number): void; readonly resizable: boolean };
const Resizable = ArrayBuffer as unknown as new (byteLength: number, options: { maxByteLength: number }) => ResizableArrayBuffer;

/** A zero-filled Int32Array of `length` elements whose memory `release` gives back. */
export function releasableInt32s(length: number): Int32Array<ArrayBuffer> {
  return new Int32Array(new Resizable(length * 4, { maxByteLength: length * 4 }), 0, length);
}

/** A zero-filled Uint32Array of `length` elements whose memory `release` gives back. */
export function releasableUint32s(length: number): Uint32Array<ArrayBuffer> {
  return new Uint32Array(new Resizable(length * 4, { maxByteLength: length * 4 }), 0, length);
}

/**
 * Gives an array's memory back now (from `releasable*`; others are left to the collector). The
 * array is empty afterwards. Shrunk a step at a time from its end: V8 zeroes the range a shrink
 * gives up before giving it back, and so first makes its pages that were never written resident
 * (shrunk to nothing at once, the lists' unwritten part raised the peak RSS by about 20 MB at 10M
 * entities just before they were given back).
 */
export function release(array: Int32Array | Uint32Array): void {
  const buffer = array.buffer as ResizableArrayBuffer;
  if (!buffer.resizable) return;
  for (let size = buffer.byteLength; size > 0; ) {
    size = Math.max(0, size - RELEASE_STEP);
    buffer.resize(size);
  }
}

/** Bytes given back per shrink: the most that is made resident at once. */
const RELEASE_STEP = 1024 * 1024;
