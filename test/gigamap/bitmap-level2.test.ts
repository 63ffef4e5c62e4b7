import { describe, expect, it } from 'vitest';
import { FormatError } from '../../src/errors.js';
import { decodeLevel2, type Level2Place } from '../../src/gigamap/bitmap-level2.js';
import { IdList } from '../../src/gigamap/id-list.js';
import { blockEntry, segment } from './level2-bytes.js';

/**
 * One `BitmapLevel2` segment (bitmap-level2.ts, docs/gigamap.md §5) on bytes built here: the block
 * kinds one after another (a full block followed by others, ids counted with and without a list
 * to put them in) and every bound of a damaged segment, each refusal with its code, its message
 * and the file offset of the byte at fault (data[0] of the segment lies at offset 1000 here).
 */

const WHERE: Level2Place = { file: 'channel_0_1.dat', offset: 1000 };
const ZEROS = [0, 64];

/** What decoding `data` refuses with: [code, message, file, offset]. */
function refusal(data: Uint8Array, where: Level2Place = WHERE): [string, string, string | undefined, number | undefined] {
  try {
    decodeLevel2(data, new IdList(), where);
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    return [error.code, error.message, error.file, error.offset];
  }
  throw new Error('expected a FormatError');
}

const range = (from: number, count: number): number[] => Array.from({ length: count }, (_v, i) => from + i);

describe('block kinds in a row', () => {
  it('a full block, then an empty one, then a full one, at level-3 slot 2: 8192 ids at their places', () => {
    const data = segment(2, [[0xff], [0x80], [0xff]]);
    const out = new IdList();
    expect(decodeLevel2(data, out, WHERE)).toEqual({ level3Index: 2, count: 8192 });
    const base = 2 * 2 ** 20;
    expect([...out.toArray()]).toEqual([...range(base, 4096), ...range(base + 8192, 4096)]);
  });

  it('a full block followed by a compressed one: the compressed block is read after the one header byte', () => {
    const data = segment(0, [[0xff], blockEntry([[36, 0x01], [0, 63]]), [0xff]]);
    const out = new IdList();
    expect(decodeLevel2(data, out)).toEqual({ level3Index: 0, count: 4096 + 1 + 4096 });
    const ids = [...out.toArray()];
    expect(ids.length).toBe(8193);
    expect(ids.slice(0, 4096)).toEqual(range(0, 4096));
    // Type 36 puts its one data byte into long 0 (where within it: bitmap-chunks.test.ts).
    expect(ids[4096]! >= 4096 && ids[4096]! < 4096 + 64).toBe(true);
    expect(ids.slice(4097)).toEqual(range(8192, 4096));
  });

  it('counts without a list to put the ids in: full and compressed blocks', () => {
    expect(decodeLevel2(segment(1, [[0xff], [0x80], [0xff]]), undefined)).toEqual({ level3Index: 1, count: 8192 });
    expect(decodeLevel2(segment(0, [blockEntry([[35, 9], [0, 63]])]), undefined)).toEqual({ level3Index: 0, count: 10 });
    expect(decodeLevel2(segment(0, [blockEntry([[0x80, 2], [0, 62]])]), undefined)).toEqual({ level3Index: 0, count: 128 });
  });

  it('reads a block length of up to 10 bits, the 6 hint bits above it ignored', () => {
    // 63 zero longs and one raw long: 3 (header) + 1 (count) + 2 + 1 + 8 = 15 bytes.
    const entry = blockEntry([[0, 63], [18, 0xff, 0, 0, 0, 0, 0, 0, 0x80]]);
    expect(entry.slice(1, 3)).toEqual([15, 0xfc]);
    const out = new IdList();
    expect(decodeLevel2(segment(0, [entry]), out)).toEqual({ level3Index: 0, count: 9 });
    expect([...out.toArray()]).toEqual([...range(63 * 64, 8), 63 * 64 + 63]);
  });
});

describe('a damaged segment: what is wrong and where', () => {
  it('fewer than 8 bytes: no header, at the segment', () => {
    expect(refusal(Uint8Array.from([0, 0, 0, 0, 2, 0, 0]))).toEqual(['FORMAT_BAD_RECORD', 'channel_0_1.dat at offset 1000: bitmap segment of 7 bytes has no header', 'channel_0_1.dat', 1000]);
  });

  it('a header alone: the first block is missing, at the byte after the header', () => {
    expect(refusal(segment(0, [[0x80]]).subarray(0, 8))).toEqual(['FORMAT_BAD_RECORD', 'channel_0_1.dat at offset 1008: bitmap segment ends before block 0 of 1', 'channel_0_1.dat', 1008]);
  });

  it('a type other than 2, at the type byte', () => {
    const data = segment(0, [[0x80]]);
    data[4] = 1;
    expect(refusal(data)).toEqual(['FORMAT_BAD_RECORD', 'channel_0_1.dat at offset 1004: bitmap segment of type 1 (only type 2 is stored by EclipseStore)', 'channel_0_1.dat', 1004]);
  });

  it('a negative level-3 index, at the segment', () => {
    expect(refusal(segment(-1, [[0xff]]))).toEqual(['FORMAT_BAD_RECORD', 'channel_0_1.dat at offset 1000: bitmap segment with level-3 index -1', 'channel_0_1.dat', 1000]);
  });

  it('a highest block past the bytes: which block of how many, where it should start', () => {
    const data = segment(0, [[0x80], [0xff]]);
    data[5] = 2;
    expect(refusal(data)).toEqual(['FORMAT_BAD_RECORD', 'channel_0_1.dat at offset 1010: bitmap segment ends before block 2 of 3', 'channel_0_1.dat', 1010]);
  });

  it('a header byte with the top bit set that is neither 0x80 nor 0xFF, at that byte', () => {
    expect(refusal(segment(0, [[0x80], [0x81, 0x10, 0x00, 0x00]]))).toEqual(['FORMAT_BAD_RECORD', 'channel_0_1.dat at offset 1009: bitmap block 1 has header byte 0x81', 'channel_0_1.dat', 1009]);
  });

  it('a block header cut short (2 of its 3 bytes), and one of 3 bytes with nothing after it', () => {
    expect(refusal(segment(0, [[0x5a, 0x07]]))).toEqual(['FORMAT_BAD_RECORD', 'channel_0_1.dat at offset 1008: bitmap block 0 has header byte 0x5a', 'channel_0_1.dat', 1008]);
    expect(refusal(segment(0, [[0x5a, 0x03, 0x00]]))).toEqual(['FORMAT_BAD_RECORD', "channel_0_1.dat at offset 1008: bitmap block 0 of 3 bytes runs past the segment's 11", 'channel_0_1.dat', 1008]);
  });

  it('a block of 4 bytes is a chunk count alone: the chunks make no longs, at the byte after the count', () => {
    expect(refusal(segment(0, [[0x5a, 0x04, 0x00, 0x00]]))).toEqual(['FORMAT_BAD_RECORD', 'channel_0_1.dat at offset 1012: bitmap block: the chunks expand to 0 longs, not 64', 'channel_0_1.dat', 1012]);
  });

  it('a block longer than the segment: its length and the segment’s, at the block', () => {
    const entry = blockEntry([ZEROS]);
    entry[1] = 40;
    expect(refusal(segment(0, [[0xff], entry]))).toEqual(['FORMAT_BAD_RECORD', "channel_0_1.dat at offset 1009: bitmap block 1 of 40 bytes runs past the segment's 15", 'channel_0_1.dat', 1009]);
  });

  it('without a place: the message alone', () => {
    expect(refusal(segment(-2, [[0xff]]), {})).toEqual(['FORMAT_BAD_RECORD', 'bitmap segment with level-3 index -2', undefined, undefined]);
    expect(refusal(segment(0, [[0x5a, 0x04, 0x00, 0x00]]), { file: 'f.dat' })).toEqual(['FORMAT_BAD_RECORD', 'f.dat: bitmap block: the chunks expand to 0 longs, not 64', 'f.dat', undefined]);
  });
});
