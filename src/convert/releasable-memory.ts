/**
 * Typed arrays whose memory is given back at once (`release`) instead of when the garbage
 * collector next runs: their buffer is resizable and is shrunk to nothing. convert's
 * reachability lists (about 100 MB at 10M entities) are dropped after the search, just before the
 * copy allocates its stores; left to the collector, they were at times still held while the copy's
 * stores filled: at 10M, 5 of 15 runs peaked at 318-330 MB, the others at 276-292 MB (the memory
 * target there is 319 MB). Released, 10 of 10 runs peaked at 294-296 MB.
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

/** Gives an array's memory back now (from `releasable*`; others are left to the collector). The array is empty afterwards. */
export function release(array: Int32Array | Uint32Array): void {
  const buffer = array.buffer as ResizableArrayBuffer;
  if (buffer.resizable) buffer.resize(0);
}
