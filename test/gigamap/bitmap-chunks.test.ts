import { describe, expect, it } from 'vitest';
import { expandBlockChunks } from '../../src/gigamap/bitmap-chunks.js';
import { decodeLevel2 } from '../../src/gigamap/bitmap-level2.js';
import { FormatError } from '../../src/errors.js';
import { IdList } from '../../src/gigamap/id-list.js';
import { learnChunkPositions } from './corpus-chunks.js';
import { blockEntry, segment } from './level2-bytes.js';

/**
 * Bitmap segments built here, chunk kind by chunk kind (docs/gigamap.md §5), each expected
 * long written out as the number it must expand to; the byte places of the single-long types are
 * what EclipseStore's own bitmaps in the corpus show.
 */

const M64 = (1n << 64n) - 1n;

/** The ids a block's 64 longs stand for (block b of level 3 slot L). */
function idsOf(longs: readonly bigint[], block = 0, level3Index = 0): number[] {
  const ids: number[] = [];
  longs.forEach((value, k) => {
    for (let j = 0; j < 64; j++) if (((value >> BigInt(j)) & 1n) === 1n) ids.push(level3Index * 2 ** 20 + block * 4096 + k * 64 + j);
  });
  return ids;
}

function decode(data: Uint8Array): number[] {
  const out = new IdList();
  const summary = decodeLevel2(data, out);
  const ids = [...out.toArray()];
  expect(summary.count).toBe(ids.length);
  return ids;
}

function longBytes(value: bigint): number[] {
  return Array.from({ length: 8 }, (_v, i) => Number((value >> BigInt(8 * i)) & 0xffn));
}

/** Bytes at positions → the long they make. */
function longOf(placed: readonly (readonly [number, number])[]): bigint {
  let v = 0n;
  for (const [position, byte] of placed) v |= BigInt(byte) << BigInt(8 * position);
  return v;
}

/** One block: `chunk` makes long 0 (or the first longs), the rest is zeros in one type-0 chunk. */
function oneChunkBlock(chunk: readonly number[], longs: readonly bigint[]): { data: Uint8Array; expected: number[] } {
  const rest = 64 - longs.length;
  const chunks = rest > 0 ? [chunk, [0, rest]] : [chunk];
  return { data: segment(0, [blockEntry(chunks)]), expected: idsOf([...longs, ...Array<bigint>(rest).fill(0n)]) };
}

/**
 * Where each single-long chunk type puts its data bytes, learned from EclipseStore's own bitmaps
 * and its API's entities (corpus-chunks.ts), not from the decoder's tables.
 */
const learned = await learnChunkPositions();

/** Every single-long chunk type 35–127 with its data bytes and the long it stands for. */
function singleLongCases(): { type: number; data: number[]; value: bigint }[] {
  const cases: { type: number; data: number[]; value: bigint }[] = [];
  // Type 35: data byte d stands for the d + 1 lowest bits (EclipseStore's own chunks agree: below).
  for (const d of [0, 6, 31, 62, 63]) cases.push({ type: 35, data: [d], value: (1n << BigInt(d + 1)) - 1n });
  const samples = [0xa5, 0x3c, 0x7e];
  for (let type = 36; type <= 127; type++) {
    const positions = learned.positions.get(type)!;
    const data = samples.slice(0, positions.length);
    cases.push({ type, data, value: longOf(positions.map((p, i) => [p, data[i]!] as const)) });
  }
  return cases;
}

describe("EclipseStore's own chunks (the GigaMap corpus)", () => {
  it('hold every single-long chunk type 35–127, each placing its data bytes at distinct positions', () => {
    for (let type = 35; type <= 127; type++) expect(learned.occurrences.get(type) ?? 0, `type ${type}`).toBeGreaterThan(0);
    for (const [type, positions] of learned.positions) expect(new Set(positions).size, `type ${type}`).toBe(positions.length);
    expect(learned.positions.size).toBe(92);
  });

  it('type 35: data byte d is the d + 1 lowest bits', () => {
    expect(learned.lowBits.length).toBeGreaterThan(0);
    for (const [d, value] of learned.lowBits) expect(value, `data ${d}`).toBe((1n << BigInt(d + 1)) - 1n);
  });
});

describe('bitmap block entries', () => {
  it('0x80 is an empty block and 0xFF a full one, at the ids of their block and level-3 slot', () => {
    expect(decode(segment(0, [[0x80]]))).toEqual([]);
    const full = decode(segment(3, [[0x80], [0xff]]));
    expect(full.length).toBe(4096);
    expect(full[0]).toBe(3 * 2 ** 20 + 4096);
    expect(full[4095]).toBe(3 * 2 ** 20 + 8191);
  });

  it('counts the bits itself: the count hint in the header and block headers is ignored', () => {
    const data = segment(0, [blockEntry([[35, 9], [0, 63]])]);
    expect(decode(data)).toEqual(idsOf([(1n << 10n) - 1n]));
  });

  it('places blocks by their index: block b covers b·4096 …', () => {
    const data = segment(1, [[0x80], [0x80], blockEntry([[0, 5], [36, 0x01], [0, 58]])]);
    expect(decode(data)).toEqual([2 ** 20 + 2 * 4096 + 5 * 64]);
  });
});

describe('bitmap chunks', () => {
  it('type 0: n longs of zero; inverted: n longs of ones', () => {
    expect(decode(segment(0, [blockEntry([[0, 64]])]))).toEqual([]);
    const { data, expected } = oneChunkBlock([0x80, 3], [M64, M64, M64]);
    expect(decode(data)).toEqual(expected);
  });

  it('type 1: n raw longs; inverted: the raw longs bit-inverted', () => {
    const raw = [0x0123456789abcdefn, 0x8000000000000001n];
    const plain = oneChunkBlock([1, 2, ...longBytes(raw[0]!), ...longBytes(raw[1]!)], raw);
    expect(decode(plain.data)).toEqual(plain.expected);
    const inverted = oneChunkBlock([0x81, 2, ...longBytes(raw[0]!), ...longBytes(raw[1]!)], raw.map((v) => ~v & M64));
    expect(decode(inverted.data)).toEqual(inverted.expected);
  });

  it('types 2–17: (type − 1) longs of zero; inverted: of ones', () => {
    for (let type = 2; type <= 17; type++) {
      const zeros = segment(0, [blockEntry([[type], [36, 0x80], [0, 64 - (type - 1) - 1]])]);
      expect(decode(zeros), `type ${type}`).toEqual([(type - 1) * 64 + 7]);
      const ones = oneChunkBlock([0x80 | type], Array<bigint>(type - 1).fill(M64));
      expect(decode(ones.data), `type ${type} inverted`).toEqual(ones.expected);
    }
  });

  it('types 18–33: (type − 17) raw longs; inverted: bit-inverted', () => {
    for (let type = 18; type <= 33; type++) {
      const longs = Array.from({ length: type - 17 }, (_v, i) => (0x1000000000000001n * BigInt(i + 1)) & M64);
      const bytes = longs.flatMap(longBytes);
      const plain = oneChunkBlock([type, ...bytes], longs);
      expect(decode(plain.data), `type ${type}`).toEqual(plain.expected);
      const inverted = oneChunkBlock([0x80 | type, ...bytes], longs.map((v) => ~v & M64));
      expect(decode(inverted.data), `type ${type} inverted`).toEqual(inverted.expected);
    }
  });

  it('type 34 is reserved: an error naming the chunk', () => {
    expect(() => decode(oneChunkBlock([34], [0n]).data)).toThrow(/type 34 is reserved/);
  });

  it.each(singleLongCases())('type $type: one long from its data bytes, and inverted', ({ type, data, value }) => {
    const plain = oneChunkBlock([type, ...data], [value]);
    expect(decode(plain.data)).toEqual(plain.expected);
    const inverted = oneChunkBlock([0x80 | type, ...data], [~value & M64]);
    expect(decode(inverted.data)).toEqual(inverted.expected);
  });

  it('covers every chunk type 0–127 in these tests', () => {
    const types = new Set([0, 1, 34, ...Array.from({ length: 32 }, (_v, i) => i + 2), ...singleLongCases().map((c) => c.type)]);
    expect(types.size).toBe(128);
  });
});

describe('damaged bitmap segments', () => {
  it('chunks that do not make 64 longs are an error', () => {
    expect(() => decode(segment(0, [blockEntry([[0, 63]])]))).toThrow(/63 longs, not 64/);
    expect(() => decode(segment(0, [blockEntry([[0, 63], [3]])]))).toThrow(/past the block's 64 longs/);
  });

  it('a block entry longer than the segment, a missing block, a wrong type are errors', () => {
    const entry = blockEntry([[0, 64]]);
    expect(() => decode(segment(0, [[entry[0]!, 0xff, 0x03, ...entry.slice(3)]]))).toThrow(/runs past/);
    expect(() => decode(segment(0, [[0x80], [0x80]]).subarray(0, 9))).toThrow(/ends before block 1/);
    const wrongType = segment(0, [[0x80]]);
    wrongType[4] = 1;
    expect(() => decode(wrongType)).toThrow(/type 1/);
  });
});

describe('a damaged block on its own: what is wrong and where', () => {
  /** Expands `bytes` (chunk count first) as a block whose count byte lies at file offset 500; the refusal. */
  function refused(bytes: readonly number[], start = 0, end = bytes.length): [string, string, number | undefined] {
    try {
      expandBlockChunks(Uint8Array.from(bytes), start, end, new Uint8Array(512), { file: 'f.dat', offset: 500 });
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      return [error.code, error.message, error.offset];
    }
    throw new Error('expected a FormatError');
  }

  it('no byte for the chunk count', () => {
    expect(refused([9, 9], 1, 1)).toEqual(['FORMAT_BAD_RECORD', 'f.dat at offset 500: bitmap block: no chunk count', 500]);
  });

  it('raw longs cut short (type 1 with 2 longs, type 18 with one), at the first byte missing its data', () => {
    expect(refused([1, 1, 2, ...Array<number>(11).fill(7)])).toEqual(['FORMAT_BAD_RECORD', "f.dat at offset 503: bitmap block: chunk data runs past the block's 17 bytes", 503]);
    expect(refused([1, 18, 1, 2, 3, 4])).toEqual(['FORMAT_BAD_RECORD', "f.dat at offset 502: bitmap block: chunk data runs past the block's 9 bytes", 502]);
  });

  it('a chunk count larger than the chunks there, at the missing chunk', () => {
    expect(refused([3, 0, 64])).toEqual(['FORMAT_BAD_RECORD', "f.dat at offset 503: bitmap block: chunk data runs past the block's 6 bytes", 503]);
  });

  it('type 34 at its header byte; type 35 with more than 64 bits at its data byte', () => {
    expect(refused([2, 0, 63, 34])).toEqual(['FORMAT_BAD_RECORD', 'f.dat at offset 503: bitmap block: chunk type 34 is reserved', 503]);
    expect(refused([2, 0, 63, 35, 64])).toEqual(['FORMAT_BAD_RECORD', 'f.dat at offset 504: bitmap block: chunk type 35 with 65 bits set', 504]);
  });
});
