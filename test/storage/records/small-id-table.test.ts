import { describe, expect, it } from 'vitest';
import { SmallIdMap, SmallIdSet, smallIdsOf } from '../../../src/storage/records/small-id-table.js';

// A dictionary's ids: the JDK's from 1, an application's about 1,000,000, and one far away.
const expected = [1, 2, 30, 46, 1_000_000, 1_000_055, 1_000_072, 3_000_000_000];
// Ids asked of the tables: the expected ones, their neighbours, ids between and beyond the clusters.
const asked = [0, 1, 2, 3, 29, 30, 31, 46, 47, 65_535, 65_536, 999_999, 1_000_000, 1_000_001, 1_000_055, 1_000_072, 1_000_073, 1_262_143, 1_262_144, 2_999_999_999, 3_000_000_000, 4_294_967_295];

describe('SmallIdMap and SmallIdSet', () => {
  it('answer every id as a Map and a Set of the same ids do, set inside and outside the arrays', () => {
    const map = new SmallIdMap<string>(expected);
    const set = new SmallIdSet(expected);
    const model = new Map<number, string>();
    const modelSet = new Set<number>();
    // Some expected ids, some never expected (kept beside the arrays), one set twice.
    for (const id of [2, 46, 1_000_055, 3_000_000_000, 47, 65_536, 1_262_144, 4_294_967_295, 46]) {
      map.set(id, `v${id}`);
      model.set(id, `v${id}`);
      set.add(id);
      modelSet.add(id);
    }
    for (const id of asked) {
      expect(map.get(id), `get(${id})`).toBe(model.get(id));
      expect(set.has(id), `has(${id})`).toBe(modelSet.has(id));
    }
  });

  it('work without expected ids, and with ids of one cluster only', () => {
    for (const ids of [[], [1_000_000, 1_000_001], [5, 6]]) {
      const map = new SmallIdMap<number>(ids);
      const set = new SmallIdSet(ids);
      map.set(5, 50);
      map.set(1_000_001, 51);
      set.add(1_000_000);
      expect([map.get(5), map.get(6), map.get(1_000_001), map.get(1_000_000)]).toEqual([50, undefined, 51, undefined]);
      expect([set.has(1_000_000), set.has(1_000_001), set.has(5)]).toEqual([true, false, false]);
    }
  });

  it('smallIdsOf keeps the ids below 2^32', () => {
    expect(smallIdsOf([0n, 1n, 1_000_000n, (1n << 32n) - 1n, 1n << 32n, -1n])).toEqual([0, 1, 1_000_000, 4_294_967_295]);
  });
});
