import { describe, expect, it } from 'vitest';
import { ReplacedRecords } from '../../../src/storage/basis-open.js';
import { TakenRecords } from '../../../src/storage/source/prefix-compare.js';

/**
 * The basis's records a continuation replaced are copied out of the blocks the prefix comparison
 * reads (prefix-compare.ts): records inside one block, across two and across several, a header
 * split between two blocks (not taken: the diff reads that one itself), records beyond the bytes a
 * taking may hold, and takings of several files (several threads) kept within one limit.
 */

/** A file of records: each begins with its length (8 bytes, little-endian), then filler bytes. */
function fileOf(lengths: readonly number[]): { bytes: Buffer; offsets: number[] } {
  const offsets: number[] = [];
  const parts: Buffer[] = [];
  let at = 0;
  lengths.forEach((length, n) => {
    const record = Buffer.alloc(length, n + 1);
    record.writeUInt32LE(length, 0);
    record.writeUInt32LE(0, 4);
    parts.push(record);
    offsets.push(at);
    at += length;
  });
  return { bytes: Buffer.concat(parts), offsets };
}

function taken(bytes: Buffer, wanted: readonly number[], block: number, budget = 1 << 20): TakenRecords {
  const taking = new TakenRecords(Float64Array.from(wanted), budget);
  for (let at = 0; at < bytes.length; at += block) {
    const piece = bytes.subarray(at, Math.min(bytes.length, at + block));
    taking.take(Buffer.from(piece), at, piece.length);
  }
  return taking;
}

describe('the replaced records taken from the compared blocks', () => {
  const { bytes, offsets } = fileOf([24, 40, 100, 33, 24, 250, 31, 64]);

  it('are the records whole, within one block, across two or several', () => {
    const wanted = [offsets[0]!, offsets[2]!, offsets[3]!, offsets[5]!, offsets[7]!];
    for (const block of [1000, 64, 37]) {
      const replaced = taken(bytes, wanted, block);
      wanted.forEach((offset, i) => {
        const length = bytes.readUInt32LE(offset);
        const held = replaced.held(i);
        // A header split between two blocks is left to the reader.
        if (Math.floor(offset / block) !== Math.floor((offset + 7) / block)) expect(held).toBeUndefined();
        else expect(held).toEqual(bytes.subarray(offset, offset + length));
      });
    }
  });

  it('leave a header split between blocks to the reader, and take the records after it', () => {
    // offsets[1] = 24: with blocks of 28 bytes its header runs from byte 24 to 31, across the border at 28.
    const replaced = taken(bytes, [offsets[1]!, offsets[2]!], 28);
    expect(replaced.held(0)).toBeUndefined();
    expect(replaced.held(1)).toEqual(bytes.subarray(offsets[2]!, offsets[2]! + 100));
  });

  it('hold no more than their budget: a record that does not fit is left, a later smaller one taken', () => {
    // Records of 100 and 33 bytes wanted; 120 bytes: the 100 fit, the 33 do not; 40: only the 33.
    const wanted = [offsets[2]!, offsets[3]!];
    const both = taken(bytes, wanted, 64, 120);
    expect(both.held(0)).toEqual(bytes.subarray(offsets[2]!, offsets[2]! + 100));
    expect(both.held(1)).toBeUndefined();
    const small = taken(bytes, wanted, 64, 40);
    expect(small.held(0)).toBeUndefined();
    expect(small.held(1)).toEqual(bytes.subarray(offsets[3]!, offsets[3]! + 33));
  });

  it('come back the same from another thread (as plain data) and are kept per file by the replaced records', () => {
    const first = taken(bytes, [offsets[0]!, offsets[2]!], 37);
    const second = TakenRecords.from(structuredClone(taken(bytes, [offsets[5]!, offsets[7]!], 64).data()));
    const replaced = new ReplacedRecords([0, 0, offsets[0]!, 0, 0, offsets[2]!, 0, 1, offsets[5]!, 0, 1, offsets[7]!]);
    expect(replaced.held(0)).toBeUndefined(); // not compared yet
    replaced.adopt(0, first);
    replaced.adopt(2, second);
    expect([0, 1, 2, 3].map((i) => replaced.held(i))).toEqual([0, 2, 5, 7].map((n) => bytes.subarray(offsets[n]!, offsets[n]! + bytes.readUInt32LE(offsets[n]!))));
    expect(replaced.heldBytes).toBe(24 + 100 + 250 + 64);
  });
});
