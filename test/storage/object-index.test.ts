import { describe, expect, it } from 'vitest';
import { joinId, ObjectIndex, splitId } from '../../src/storage/object-index.js';

describe('ObjectIndex', () => {
  it('keeps the last location set for an id, across growth and compaction', () => {
    const index = new ObjectIndex();
    const base = 1000000000000000001n;
    for (let i = 0; i < 50_000; i++) {
      const [low, high] = splitId(base + BigInt(i));
      index.set(low, high, 0, i * 10, 30);
    }
    for (let i = 0; i < 50_000; i += 3) {
      const [low, high] = splitId(base + BigInt(i));
      index.set(low, high, 1, i, 40);
    }
    expect(index.size).toBe(50_000);
    const before = index.byteSize;
    index.compact();
    expect(index.byteSize).toBeLessThanOrEqual(before);
    expect(index.byteSize / index.size).toBeLessThanOrEqual(27);
    expect(index.get(base)).toEqual({ fileSlot: 1, offset: 0, length: 40 });
    expect(index.get(base + 1n)).toEqual({ fileSlot: 0, offset: 10, length: 30 });
    expect(index.get(base + 49_999n)).toEqual({ fileSlot: 0, offset: 499_990, length: 30 });
    expect(index.get(base + 50_000n)).toBeUndefined();
    expect(index.get(-1n)).toBeUndefined();
    expect(index.get(0n)).toBeUndefined();
    let seen = 0;
    let sum = 0n;
    index.forEach((low, high) => {
      seen++;
      sum += joinId(low, high) - base;
    });
    expect(seen).toBe(50_000);
    expect(sum).toBe((49_999n * 50_000n) / 2n);
  });

  it('handles ids above 2^53 exactly', () => {
    const index = new ObjectIndex();
    const a = 9007199254740993n; // 2^53 + 1
    const b = 9007199254740992n;
    index.set(...splitId(a), 2, 100, 24);
    expect(index.get(a)).toEqual({ fileSlot: 2, offset: 100, length: 24 });
    expect(index.get(b)).toBeUndefined();
  });
});
