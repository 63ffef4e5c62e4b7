/** Zeroed words over shared memory (read and written like any typed array's; another thread can read them). */
export function sharedInts(length: number): Int32Array<SharedArrayBuffer> {
  return new Int32Array(new SharedArrayBuffer(4 * length));
}

export function copyShared(words: Int32Array<ArrayBufferLike>): Int32Array<SharedArrayBuffer> {
  const copy = sharedInts(words.length);
  copy.set(words);
  return copy;
}
