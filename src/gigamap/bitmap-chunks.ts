import { FormatError } from '../errors.js';

/**
 * EclipseStore's byte-pattern compression of one bitmap block (docs/gigamap.md §5): chunks that
 * expand to the block's 64 longs. The block is expanded into 512 bytes, long k's byte p at
 * k·8 + p (longs are little endian), so bit j of long k is bit (j & 7) of byte k·8 + (j >> 3).
 */

export const BLOCK_LONGS = 64;
export const BLOCK_BYTES = BLOCK_LONGS * 8;

/** Byte positions of the two-byte patterns (chunk types 60–65, reused by 66–71 and 80–127). */
const PAIRS: readonly (readonly [number, number])[] = [
  [1, 0],
  [2, 0],
  [3, 0],
  [2, 1],
  [3, 1],
  [3, 2],
];
/** Byte positions of the three-byte patterns (chunk types 72–79). */
const TRIPLES: readonly (readonly [number, number, number])[] = [
  [3, 2, 1],
  [3, 2, 0],
  [3, 1, 0],
  [2, 1, 0],
  [7, 6, 5],
  [7, 6, 4],
  [7, 5, 4],
  [6, 5, 4],
];

export interface ChunkPlace {
  readonly file?: string | undefined;
  /** Offset of the block's chunk-count byte in the file, for messages. */
  readonly offset?: number | undefined;
}

/**
 * Expands the chunks of one block: `data[start]` is the chunk count, the chunks follow up to
 * `end`. Writes the 512 bytes into `out` (which it clears first).
 */
export function expandBlockChunks(data: Uint8Array, start: number, end: number, out: Uint8Array, where: ChunkPlace = {}): void {
  out.fill(0);
  const fail = (at: number, message: string): FormatError =>
    new FormatError('FORMAT_BAD_RECORD', `bitmap block: ${message}`, { file: where.file, offset: where.offset === undefined ? undefined : where.offset + (at - start) });
  if (start >= end) throw fail(start, 'no chunk count');
  const chunks = data[start]!;
  let pos = start + 1;
  let long = 0;
  const need = (n: number): void => {
    if (pos + n > end) throw fail(pos, `chunk data runs past the block's ${end - start + 3} bytes`);
  };
  for (let c = 0; c < chunks; c++) {
    need(1);
    const head = data[pos++]!;
    const inverted = (head & 0x80) !== 0;
    const type = head & 0x7f;
    const fill = inverted ? 0xff : 0;
    let count: number;
    if (type === 0 || type === 1) {
      need(1);
      count = data[pos++]!;
    } else if (type >= 2 && type <= 17) count = type - 1;
    else if (type >= 18 && type <= 33) count = type - 17;
    else count = 1;
    if (long + count > BLOCK_LONGS) throw fail(pos, `chunk ${c} (type ${type}) expands past the block's 64 longs`);
    const base = long * 8;
    if (type === 0 || (type >= 2 && type <= 17)) {
      if (fill !== 0) out.fill(fill, base, base + count * 8);
    } else if (type === 1 || (type >= 18 && type <= 33)) {
      need(count * 8);
      for (let i = 0; i < count * 8; i++) out[base + i] = data[pos + i]! ^ fill;
      pos += count * 8;
    } else if (type === 34) {
      throw fail(pos - 1, 'chunk type 34 is reserved');
    } else {
      out.fill(fill, base, base + 8);
      pos = singleLong(type, data, pos, out, base, fill, need, fail);
    }
    long += count;
  }
  if (long !== BLOCK_LONGS) throw fail(pos, `the chunks expand to ${long} longs, not 64`);
}

/** Chunk types 35–127: one long built from a few data bytes; returns the position after them. */
function singleLong(
  type: number,
  data: Uint8Array,
  pos: number,
  out: Uint8Array,
  base: number,
  fill: number,
  need: (n: number) => void,
  fail: (at: number, message: string) => FormatError,
): number {
  const put = (position: number, value: number): void => {
    out[base + position] = value ^ fill;
  };
  if (type === 35) {
    need(1);
    const bits = data[pos]! + 1;
    if (bits > 64) throw fail(pos, `chunk type 35 with ${bits} bits set`);
    for (let b = 0; b < 8; b++) {
      const inByte = Math.max(0, Math.min(8, bits - b * 8));
      put(b, inByte === 8 ? 0xff : (1 << inByte) - 1);
    }
    return pos + 1;
  }
  if (type <= 43) {
    need(1);
    put(type - 36, data[pos]!);
    return pos + 1;
  }
  if (type <= 59) {
    need(2);
    const c = type - 44;
    put(4 + (c >> 2), data[pos]!);
    put(c & 3, data[pos + 1]!);
    return pos + 2;
  }
  if (type <= 71) {
    need(2);
    const c = type - 60;
    const plus = c >= 6 ? 4 : 0;
    const [a, b] = PAIRS[c % 6]!;
    put(a + plus, data[pos]!);
    put(b + plus, data[pos + 1]!);
    return pos + 2;
  }
  need(3);
  if (type <= 79) {
    const [a, b, d] = TRIPLES[type - 72]!;
    put(a, data[pos]!);
    put(b, data[pos + 1]!);
    put(d, data[pos + 2]!);
  } else if (type <= 103) {
    const c = type - 80;
    const [a, b] = PAIRS[c >> 2]!;
    put(a + 4, data[pos]!);
    put(b + 4, data[pos + 1]!);
    put(c & 3, data[pos + 2]!);
  } else {
    const c = type - 104;
    const [a, b] = PAIRS[c >> 2]!;
    put((c & 3) + 4, data[pos]!);
    put(a, data[pos + 1]!);
    put(b, data[pos + 2]!);
  }
  return pos + 3;
}
