import { describe, expect, it } from 'vitest';
import { crc32c } from '../../../src/format/crc32c.js';

/**
 * CRC32C, the checksum of EclipseStore 4.2's chunks (issue 48: the table-driven slicing-by-8 had no
 * test of its own). Checked against a bit-by-bit CRC written from the definition (reflected
 * polynomial 0x82F63B78), at every length around the 8-byte step and every alignment of the
 * view, since the fast path reads 4-byte aligned words after a byte-wise head.
 */

function bitwise(bytes: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return ~c >>> 0;
}

/** Deterministic bytes that use every bit of every byte (no two neighbours alike). */
function pattern(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

describe('crc32c', () => {
  it('gives the published check values', () => {
    expect(crc32c(new TextEncoder().encode('123456789'))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(0))).toBe(0);
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
    expect(crc32c(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
  });

  it('equals the bit-by-bit definition for every length 0..70 at every alignment 0..3', () => {
    const backing = pattern(80, 12345);
    for (let align = 0; align < 4; align++) {
      for (let length = 0; length <= 70; length++) {
        const view = backing.subarray(align, align + length);
        expect(crc32c(view), `length ${length} at alignment ${align}`).toBe(bitwise(view));
      }
    }
  });

  it('continues from the checksum of the bytes before, as Java’s update does', () => {
    const all = pattern(1000, 777);
    for (const cut of [0, 1, 3, 8, 13, 500, 999, 1000]) {
      expect(crc32c(all.subarray(cut), crc32c(all.subarray(0, cut))), `cut at ${cut}`).toBe(crc32c(all));
    }
    expect(crc32c(all)).toBe(bitwise(all));
    expect(crc32c(all.subarray(1), 0x12345678)).toBe(bitwise(all.subarray(1), 0x12345678));
  });
});
