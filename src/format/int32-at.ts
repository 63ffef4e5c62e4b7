/**
 * The little-endian int32 at `bytes[at…]`, for loops over every record of a storage: small enough
 * for V8 to inline into them, where `Buffer.prototype.readInt32LE` (its argument checks) stayed a
 * call and took a tenth of `convert`'s CPU time on the benchmark storage. No bounds check: callers
 * read only inside records they have measured.
 */
export function int32At(bytes: Uint8Array, at: number): number {
  return (bytes[at] as number) | ((bytes[at + 1] as number) << 8) | ((bytes[at + 2] as number) << 16) | ((bytes[at + 3] as number) << 24);
}
