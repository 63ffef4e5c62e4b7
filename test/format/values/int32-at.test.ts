import { describe, expect, it } from 'vitest';
import { int32At } from '../../../src/format/int32-at.js';

/**
 * int32At, the unchecked little-endian int32 read of the record loops: each of the four bytes in
 * its place (low byte first), the sign from the top byte, read at the offset given.
 */
describe('int32At', () => {
  it('reads each byte in its place, low byte first, at the offset given', () => {
    const bytes = new Uint8Array([0xff, 0x01, 0x02, 0x03, 0x04, 0xff]);
    expect(int32At(bytes, 1)).toBe(0x04030201);
    expect(int32At(new Uint8Array([0x78, 0x56, 0x34, 0x12]), 0)).toBe(0x12345678);
  });

  it('is signed: a top byte of 0x80 or more gives a negative number, as Java reads an int', () => {
    expect(int32At(new Uint8Array([0xff, 0xff, 0xff, 0xff]), 0)).toBe(-1);
    expect(int32At(new Uint8Array([0x00, 0x00, 0x00, 0x80]), 0)).toBe(-(2 ** 31));
    expect(int32At(new Uint8Array([0xff, 0xff, 0xff, 0x7f]), 0)).toBe(2 ** 31 - 1);
  });

  it('agrees with DataView.getInt32 for every byte value in every position', () => {
    const bytes = new Uint8Array(8);
    const view = new DataView(bytes.buffer);
    for (let place = 0; place < 4; place++) {
      for (let value = 0; value < 256; value += 17) {
        bytes.fill(0x5a);
        bytes[2 + place] = value;
        expect(int32At(bytes, 2)).toBe(view.getInt32(2, true));
      }
    }
  });
});
