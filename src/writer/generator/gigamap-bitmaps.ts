/**
 * Writes a set of entity ids (a bitset, bit i = entity id i) as EclipseStore's `BitmapLevel2`
 * `data` (docs/gigamap.md §5): per 2^20 ids one segment of an 8-byte header and one entry per
 * 4096-id block: `0x80` for an empty block, else a compressed entry whose chunks are runs of zero
 * longs (type 0) and runs of raw longs (type 1). The reader (src/gigamap/bitmap-level2.ts) and
 * EclipseStore read every chunk type; these two are all a writer needs.
 */

const SEGMENT_BYTES = (1 << 20) / 8;
const BLOCK_BYTES = 512;
const EMPTY_BLOCK = 0x80;

/** The `data` of each non-empty level-2 segment, by level-3 slot (undefined where empty). */
export function encodeBitmap(bits: Uint8Array): (Uint8Array | undefined)[] {
  const segments: (Uint8Array | undefined)[] = [];
  for (let level = 0; level * SEGMENT_BYTES < bits.length; level++) {
    const segment = bits.subarray(level * SEGMENT_BYTES, Math.min(bits.length, (level + 1) * SEGMENT_BYTES));
    segments.push(encodeSegment(segment, level));
  }
  while (segments.length > 0 && segments[segments.length - 1] === undefined) segments.pop();
  return segments;
}

function encodeSegment(segment: Uint8Array, level: number): Uint8Array | undefined {
  const blocks = Math.ceil(segment.length / BLOCK_BYTES);
  let highest = -1;
  for (let b = 0; b < blocks; b++) if (!isZero(segment, b * BLOCK_BYTES, Math.min(segment.length, (b + 1) * BLOCK_BYTES))) highest = b;
  if (highest < 0) return undefined;
  const parts: number[] = [level & 0xff, (level >>> 8) & 0xff, (level >>> 16) & 0xff, (level >>> 24) & 0xff, 2, highest, 0, 0];
  let nonEmpty = 0;
  const block = new Uint8Array(BLOCK_BYTES);
  for (let b = 0; b <= highest; b++) {
    block.fill(0);
    block.set(segment.subarray(b * BLOCK_BYTES, Math.min(segment.length, (b + 1) * BLOCK_BYTES)));
    if (isZero(block, 0, BLOCK_BYTES)) {
      parts.push(EMPTY_BLOCK);
      continue;
    }
    nonEmpty++;
    const chunks: number[] = [];
    let chunkCount = 0;
    for (let k = 0; k < 64; ) {
      const zero = isZero(block, k * 8, k * 8 + 8);
      let n = 1;
      while (k + n < 64 && isZero(block, (k + n) * 8, (k + n) * 8 + 8) === zero) n++;
      if (zero) chunks.push(0, n);
      else {
        chunks.push(1, n);
        for (let i = k * 8; i < (k + n) * 8; i++) chunks.push(block[i]!);
      }
      chunkCount++;
      k += n;
    }
    const length = 3 + 1 + chunks.length;
    // Header byte (top bit clear) and a short whose low 10 bits are the entry's length; the
    // remaining bits (a count hint EclipseStore does not rely on) are left 0.
    parts.push(0, length & 0xff, (length >> 8) & 0x03, chunkCount, ...chunks);
  }
  parts[6] = nonEmpty & 0xff;
  parts[7] = (nonEmpty >> 8) & 0xff;
  return Uint8Array.from(parts);
}

function isZero(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (bytes[i] !== 0) return false;
  return true;
}
