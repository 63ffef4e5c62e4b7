import { describe, expect, it } from 'vitest';
import { ReplacedRecords } from '../../src/storage/basis-open.js';

/**
 * The basis's records a continuation replaced are copied out of the blocks the prefix comparison
 * reads: records inside one block, across two and across several, a header split between two
 * blocks (not taken: the diff reads that one itself), and records beyond the limit of what is held.
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

function taken(bytes: Buffer, wanted: readonly number[], block: number): ReplacedRecords {
  const replaced = new ReplacedRecords(wanted.flatMap((offset) => [0, 0, offset]));
  let next = 0;
  for (let at = 0; at < bytes.length; at += block) {
    const piece = bytes.subarray(at, Math.min(bytes.length, at + block));
    next = replaced.take(next, replaced.count, Buffer.from(piece), at, piece.length);
  }
  return replaced;
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
});
