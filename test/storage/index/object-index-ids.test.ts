import { describe, expect, it } from 'vitest';
import { joinId, splitId } from '../../../src/storage/index/object-id-halves.js';
import { ObjectIndex } from '../../../src/storage/index/object-index.js';
import { idExtent, markIdBits } from '../../../src/storage/index/object-index-ids.js';
import { prng } from '../../helpers/corpora/prng.js';

/** The bulk id walks against `forEach`, for indexes with a dense run, hashed ids, or both. */

/**
 * An index of `ids` whose dense run starts at the smallest (as opening a storage reserves it);
 * `length` gives each record's length (1 MiB or more: hashed, its run position marked).
 */
function indexOf(ids: readonly bigint[], idShift: number, length: (i: number) => number = () => 24): ObjectIndex {
  const index = new ObjectIndex(idShift);
  const [low, high] = splitId(ids.reduce((a, b) => (b < a ? b : a)));
  index.reserveRun(ids.length, low, high);
  ids.forEach((id, i) => {
    const [low, high] = splitId(id);
    index.set(low, high, 0, i * 8, length(i));
  });
  index.compact();
  return index;
}

function idsOf(index: ObjectIndex): bigint[] {
  const ids: bigint[] = [];
  index.forEach((low, high) => ids.push(joinId(low, high)));
  return ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const cases: [string, (random: () => number) => bigint[], number, ((i: number) => number)?][] = [
  ['one channel of four, consecutive (a run)', () => Array.from({ length: 5000 }, (_, i) => 1_000_000_000_000_000_002n + 4n * BigInt(i)), 2],
  ['a run crossing 2^32 in the low half, plus strays', (random) => [
    ...Array.from({ length: 3000 }, (_, i) => (7n << 32n) + 0xfffff800n + BigInt(i)),
    ...Array.from({ length: 50 }, () => (7n << 32n) + 0xfff00000n + BigInt(Math.floor(random() * 2 ** 21))),
  ], 0],
  ['holes in a run, updates, sparse ids only', (random) => {
    const ids = Array.from({ length: 4000 }, (_, i) => 1_000_000_000_000_000_000n + BigInt(i)).filter(() => random() < 0.7);
    return [...ids, ...ids.slice(0, 100), 8_000_000_000_000_000_000n];
  }, 0],
  ['hashed ids alone', (random) => Array.from({ length: 300 }, () => (BigInt(Math.floor(random() * 2 ** 30)) << 20n) + 1n), 0],
  [
    'records too long for the run among it (the first and the last too)',
    () => Array.from({ length: 2000 }, (_, i) => 1_000_000_000_000_000_001n + 2n * BigInt(i)),
    1,
    (i) => (i % 7 === 0 || i === 1999 ? 2 ** 20 + i : 24),
  ],
];

describe('bulk walks over an object index', () => {
  for (const [name, make, idShift, length] of cases) {
    it(`gives the ids forEach gives: ${name}`, () => {
      const index = indexOf(make(prng(name.length)), idShift, length);
      const want = idsOf(index);
      const extent = idExtent(index)!;
      expect(extent.count).toBe(want.length);
      expect(joinId(extent.minLow, extent.minHigh)).toBe(want[0]);
      expect(joinId(extent.maxLow, extent.maxHigh)).toBe(want[want.length - 1]);
      const range = want[want.length - 1]! - want[0]! + 1n;
      if (range > 1n << 24n) return; // too wide for a bit map (the graph sorts such ids instead)
      const bits = new Uint32Array(Math.ceil(Number(range) / 32));
      markIdBits(index, bits, extent.minLow, extent.minHigh);
      const marked: bigint[] = [];
      for (let rel = 0; rel < Number(range); rel++) if ((bits[rel >>> 5]! >>> (rel & 31)) & 1) marked.push(want[0]! + BigInt(rel));
      expect(marked).toEqual(want);
    });
  }

  it('marks runs without holes a word at a time as it marks them id by id, for every channel count and offset', () => {
    const random = prng(99);
    for (const idShift of [0, 1, 2, 3, 5, 6]) {
      const stride = 2 ** idShift;
      for (let trial = 0; trial < 40; trial++) {
        // One channel's ids (a run without holes) in a bit map that starts below them, as when
        // the other channels' ids come first.
        const length = 1 + Math.floor(random() * (trial < 10 ? 12 : 600));
        const first = (5n << 32n) + BigInt(Math.floor(random() * 2 ** 20)) * BigInt(stride) + BigInt(Math.floor(random() * stride));
        const ids = Array.from({ length }, (_, i) => first + BigInt(i * stride));
        const index = indexOf(ids, idShift);
        expect(index.toParts().runFields[4], 'ids in the run').toBe(length);
        const base = first - BigInt(Math.floor(random() * 70));
        const [baseLow, baseHigh] = splitId(base);
        const span = Number(ids[ids.length - 1]! - base) + 1;
        const bits = new Uint32Array(Math.ceil(span / 32) + 1);
        markIdBits(index, bits, baseLow, baseHigh);
        const marked: bigint[] = [];
        for (let rel = 0; rel < bits.length * 32; rel++) if ((bits[rel >>> 5]! >>> (rel & 31)) & 1) marked.push(base + BigInt(rel));
        expect(marked, `stride ${stride}, ${length} ids from ${first}, base ${base}`).toEqual(idsOf(index));
      }
    }
  });

  it('marks a storage of four channels without holes as one full range', () => {
    const channels = [0, 1, 2, 3].map((c) => indexOf(Array.from({ length: 1000 }, (_, i) => 1_000_000_000_000_000_000n + BigInt(4 * i + c)), 2));
    const [baseLow, baseHigh] = splitId(1_000_000_000_000_000_000n);
    const bits = new Uint32Array(4000 / 32);
    for (const index of channels) markIdBits(index, bits, baseLow, baseHigh);
    expect([...bits].every((word) => word === 0xffffffff)).toBe(true);
  });

  it('leaves out ids whose locations, too long for the run, were removed from the hash table', () => {
    const base = 1_000_000_000_000_000_000n;
    const index = new ObjectIndex(0);
    index.reserveRun(100, ...splitId(base));
    for (let i = 0; i < 100; i++) index.set(...splitId(base + BigInt(i)), i % 9 === 0 ? 1 : 0, i * 8, i % 9 === 0 ? 2 ** 20 : 24);
    index.removeWhere((slot) => slot === 1);
    const want = idsOf(index);
    expect(want).toHaveLength(88);
    const extent = idExtent(index)!;
    expect([extent.count, joinId(extent.minLow, extent.minHigh), joinId(extent.maxLow, extent.maxHigh)]).toEqual([88, base + 1n, base + 98n]);
    const bits = new Uint32Array(4);
    markIdBits(index, bits, ...splitId(base));
    const marked: bigint[] = [];
    for (let rel = 0; rel < 128; rel++) if ((bits[rel >>> 5]! >>> (rel & 31)) & 1) marked.push(base + BigInt(rel));
    expect(marked).toEqual(want);
  });

  it('has no extent when empty', () => {
    expect(idExtent(new ObjectIndex(2))).toBeUndefined();
  });
});
