import { describe, expect, it } from 'vitest';
import { RecordWindow } from '../../src/diff/record-window.js';
import type { SourceReads } from '../../src/storage/source/source.js';

/**
 * The windows a diff reads the other storage through: a walk in file order with, every hundredth
 * record, a jump to the records a copy's commit appended at the end of the same file (where the
 * changed objects of a copy lie) reads each byte about once, not a window again after every jump.
 */

const FILE = 4 * 1024 * 1024;
const RECORD = 100;

function countingReads(bytes: Buffer): { reads: SourceReads; read: () => number } {
  let read = 0;
  return {
    reads: {
      read: async (_path, position, length) => {
        read += length;
        return Buffer.from(bytes.subarray(position, position + length));
      },
      chunks: () => {
        throw new Error('not used');
      },
      readWhole: async () => bytes,
    },
    read: () => read,
  };
}

describe('RecordWindow', () => {
  it('reads a file with jumps to its end about once', async () => {
    const bytes = Buffer.alloc(FILE);
    for (let i = 0; i < FILE; i++) bytes[i] = (i * 7) & 0xff;
    const { reads, read } = countingReads(bytes);
    const window = new RecordWindow(reads);
    const tail = FILE - 64 * 1024;
    let jumps = 0;
    for (let offset = 0; offset + RECORD <= tail; offset += RECORD) {
      const record = window.peek('p', offset, RECORD) ?? (await window.record('p', offset, RECORD, FILE));
      expect(record.equals(bytes.subarray(offset, offset + RECORD))).toBe(true);
      if ((offset / RECORD) % 100 === 99) {
        const at = tail + (jumps++ % 600) * RECORD;
        expect(window.equals('p', at, bytes, at, RECORD) ?? (await window.record('p', at, RECORD, FILE)).equals(bytes.subarray(at, at + RECORD))).toBe(true);
      }
    }
    expect(jumps).toBeGreaterThan(400);
    expect(read()).toBeLessThan(1.5 * FILE);
  });
});
