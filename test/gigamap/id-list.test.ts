import { describe, expect, it } from 'vitest';
import { BigIntColumn, containsId, IdList, lowerBound } from '../../src/gigamap/id-list.js';

/**
 * The growing id lists (id-list.ts) on their own: every value kept in order across growth, the
 * array handed out without a copy when the list is exactly full (a million ids are not copied
 * twice), a copy of the used part otherwise; the binary search at both ends and between values.
 */

describe('IdList', () => {
  it('keeps every id in order while it doubles from a capacity of 1 (0 asked for)', () => {
    const list = new IdList(0);
    const pushed = [5, 2 ** 48, 0, 7.5e12, 3, 3, 1];
    for (const id of pushed) list.push(id);
    expect(list.length).toBe(7);
    expect([...list.toArray()]).toEqual(pushed);
    expect(list.toArray().length).toBe(7);
  });

  it('hands out its own array when exactly full, a copy of the used part when not', () => {
    const full = new IdList(3);
    for (const id of [1, 2, 3]) full.push(id);
    expect(full.toArray()).toBe(full.toArray());
    expect([...full.toArray()]).toEqual([1, 2, 3]);
    const part = new IdList(4);
    for (const id of [1, 2, 3]) part.push(id);
    expect(part.toArray()).not.toBe(part.toArray());
    expect([...part.toArray()]).toEqual([1, 2, 3]);
    // Grown from 3 to 6 and filled: its own array again.
    for (const id of [4, 5, 6]) full.push(id);
    expect(full.toArray()).toBe(full.toArray());
    expect([...full.toArray()]).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('starts with 64 places by default: 64 ids fill it without a copy', () => {
    const list = new IdList();
    for (let i = 0; i < 64; i++) list.push(i * 2);
    expect(list.toArray()).toBe(list.toArray());
    list.push(128);
    expect(list.toArray()).not.toBe(list.toArray());
    expect(list.toArray()[64]).toBe(128);
  });
});

describe('BigIntColumn', () => {
  it('keeps 64-bit object ids whole (above 2^53, negative) while it doubles from 1', () => {
    const column = new BigIntColumn(0);
    const pushed = [2n ** 63n - 1n, 1_000_000_000_000_000_001n, -(2n ** 63n), 0n, 2n ** 53n + 1n];
    for (const id of pushed) column.push(id);
    expect(column.length).toBe(5);
    expect([...column.toArray()]).toEqual(pushed);
  });

  it('hands out its own array when exactly full, a copy of the used part when not', () => {
    const full = new BigIntColumn(3);
    for (const id of [7n, 8n, 9n]) full.push(id);
    expect(full.toArray()).toBe(full.toArray());
    const part = new BigIntColumn(5);
    for (const id of [7n, 8n, 9n]) part.push(id);
    expect(part.toArray()).not.toBe(part.toArray());
    expect([...part.toArray()]).toEqual([7n, 8n, 9n]);
  });
});

describe('lowerBound and containsId', () => {
  const sorted = Float64Array.from([2, 4, 4, 9, 2 ** 40]);

  it('lowerBound: the first index whose id is not below the value', () => {
    const cases: [number, number][] = [
      [0, 0],
      [2, 0],
      [3, 1],
      [4, 1],
      [5, 3],
      [9, 3],
      [10, 4],
      [2 ** 40, 4],
      [2 ** 40 + 1, 5],
    ];
    for (const [value, index] of cases) expect(lowerBound(sorted, value), `value ${value}`).toBe(index);
    expect(lowerBound(new Float64Array(0), 1)).toBe(0);
  });

  it('containsId: true for each stored id, false between, below and past the end', () => {
    expect([2, 4, 9, 2 ** 40].map((v) => containsId(sorted, v))).toEqual([true, true, true, true]);
    expect([0, 3, 5, 10, 2 ** 40 + 1].map((v) => containsId(sorted, v))).toEqual([false, false, false, false, false]);
    expect(containsId(new Float64Array(0), 0)).toBe(false);
  });
});
