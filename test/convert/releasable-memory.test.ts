import { describe, expect, it } from 'vitest';
import { release, releasableInt32s, releasableUint32s } from '../../src/convert/releasable-memory.js';

describe('releasable typed arrays (the reachability lists given back before the copy)', () => {
  it('are zero-filled arrays of the length asked that hold what is written', () => {
    const ints = releasableInt32s(1000);
    const uints = releasableUint32s(1000);
    expect([ints.length, uints.length, ints.buffer.byteLength, uints.buffer.byteLength]).toEqual([1000, 1000, 4000, 4000]);
    expect([ints.every((v) => v === 0), uints.every((v) => v === 0)]).toEqual([true, true]);
    ints[999] = -7;
    uints[0] = 2 ** 32 - 1;
    expect([ints[999], uints[0]]).toEqual([-7, 2 ** 32 - 1]);
  });

  it('give their memory back when released, at once (no collector needed)', () => {
    const ints = releasableInt32s(1 << 20);
    const uints = releasableUint32s(1 << 20);
    ints.fill(1);
    uints.fill(1);
    release(ints);
    release(uints);
    expect([ints.buffer.byteLength, uints.buffer.byteLength, ints.length, uints.length]).toEqual([0, 0, 0, 0]);
  });

  it('leave other arrays to the collector, unchanged', () => {
    const plain = new Int32Array(16).fill(3);
    release(plain);
    expect([plain.buffer.byteLength, plain.length, plain[15]]).toEqual([64, 16, 3]);
  });
});
