import { FormatError } from '../errors.js';
import { BLOCK_BYTES, expandBlockChunks } from './bitmap-chunks.js';
import type { IdList } from './id-list.js';

/**
 * The `data` bytes of one `BitmapLevel2` (docs/gigamap.md §5): an 8-byte header (level-3 index
 * L, type, highest block H, non-empty block count), then H+1 block entries of 4096 ids each.
 * Bits are counted here: the hint in each block header is not the bit count (wrong in most
 * blocks EclipseStore writes), so it is never used.
 */

export const LEVEL2_IDS = 1 << 20;
export const BLOCK_IDS = 4096;
/** The only level-2 type EclipseStore 4.1.0 loads: byte-pattern compressed. */
const COMPRESSED = 2;
const HEADER = 8;

export interface Level2Place {
  readonly file?: string | undefined;
  /** Offset of `data[0]` in the file, for messages. */
  readonly offset?: number | undefined;
}

export interface Level2Summary {
  /** The level-3 slot this segment says it is (ids L·2^20 …). */
  readonly level3Index: number;
  /** Number of ids (bits set). */
  readonly count: number;
}

/**
 * Appends the ids of one level-2 segment to `out` in ascending order; returns its level-3
 * index and how many ids it held.
 */
export function decodeLevel2(data: Uint8Array, out: IdList | undefined, where: Level2Place = {}): Level2Summary {
  const at = (offset: number): number | undefined => (where.offset === undefined ? undefined : where.offset + offset);
  if (data.length < HEADER) throw new FormatError('FORMAT_BAD_RECORD', `bitmap segment of ${data.length} bytes has no header`, { file: where.file, offset: at(0) });
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const level3Index = view.getInt32(0, true);
  const type = data[4]!;
  if (type !== COMPRESSED) throw new FormatError('FORMAT_BAD_RECORD', `bitmap segment of type ${type} (only type 2 is stored by EclipseStore)`, { file: where.file, offset: at(4) });
  if (level3Index < 0) throw new FormatError('FORMAT_BAD_RECORD', `bitmap segment with level-3 index ${level3Index}`, { file: where.file, offset: at(0) });
  const highest = data[5]!;
  const base = level3Index * LEVEL2_IDS;
  const block = new Uint8Array(BLOCK_BYTES);
  let pos = HEADER;
  let count = 0;
  for (let b = 0; b <= highest; b++) {
    if (pos >= data.length) throw new FormatError('FORMAT_BAD_RECORD', `bitmap segment ends before block ${b} of ${highest + 1}`, { file: where.file, offset: at(pos) });
    const head = data[pos]!;
    const blockBase = base + b * BLOCK_IDS;
    if (head === 0x80) {
      pos += 1;
      continue;
    }
    if (head === 0xff) {
      for (let i = 0; i < BLOCK_IDS; i++) out?.push(blockBase + i);
      count += BLOCK_IDS;
      pos += 1;
      continue;
    }
    if ((head & 0x80) !== 0 || pos + 3 > data.length) throw new FormatError('FORMAT_BAD_RECORD', `bitmap block ${b} has header byte 0x${head.toString(16)}`, { file: where.file, offset: at(pos) });
    const length = view.getUint16(pos + 1, true) & 0x3ff;
    const end = pos + length;
    if (length < 4 || end > data.length) throw new FormatError('FORMAT_BAD_RECORD', `bitmap block ${b} of ${length} bytes runs past the segment's ${data.length}`, { file: where.file, offset: at(pos) });
    expandBlockChunks(data, pos + 3, end, block, { file: where.file, offset: at(pos + 3) });
    count += emitBits(block, blockBase, out);
    pos = end;
  }
  return { level3Index, count };
}

/** Appends the ids of the set bits of an expanded block; returns how many there were. */
function emitBits(block: Uint8Array, blockBase: number, out: IdList | undefined): number {
  let count = 0;
  for (let i = 0; i < BLOCK_BYTES; i++) {
    let byte = block[i]!;
    while (byte !== 0) {
      const low = byte & -byte;
      const bit = 31 - Math.clz32(low);
      out?.push(blockBase + i * 8 + bit);
      count++;
      byte ^= low;
    }
  }
  return count;
}
