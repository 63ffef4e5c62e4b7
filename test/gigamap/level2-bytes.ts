/** Bitmap segment bytes built by tests (docs/gigamap.md §5), for the level-2 and chunk decoders. */

/** A block entry: header byte (a wrong bit-count hint on purpose), short length, chunk count, chunks. */
export function blockEntry(chunks: readonly (readonly number[])[]): number[] {
  const body = [chunks.length, ...chunks.flat()];
  const length = 3 + body.length;
  // The hint bits around the length are nonsense: the decoder must count bits itself.
  return [0x5a, length & 0xff, ((length >> 8) & 0x03) | 0xfc, ...body];
}

/** A level-2 segment of the given block entries (or 0x80 / 0xFF bytes), at level-3 index L. */
export function segment(level3Index: number, blocks: readonly (readonly number[])[]): Uint8Array {
  const header = [level3Index & 0xff, (level3Index >> 8) & 0xff, (level3Index >> 16) & 0xff, level3Index >>> 24, 2, blocks.length - 1, 0x77, 0x01];
  return Uint8Array.from([...header, ...blocks.flat()]);
}
