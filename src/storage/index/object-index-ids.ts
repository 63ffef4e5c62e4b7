import { IN_HASH, RUN_WORDS, WORDS, type ObjectIndex } from './object-index.js';

/**
 * The ids an object index holds, looked at in bulk: the graph index numbers every id of a storage
 * before it reads a record, and a callback per id (`ObjectIndex.forEach`) cost a quarter of a
 * second at 10M entities. These walk the dense run in a loop of their own (no call per id, and
 * none at all between its first and last used position for the extent).
 */

/** Smallest and largest id (unsigned low halves, signed high halves) and how many there are. */
export interface IdExtent {
  readonly count: number;
  readonly minLow: number;
  readonly minHigh: number;
  readonly maxLow: number;
  readonly maxHigh: number;
}

/** The extent of the index's ids, or undefined when it is empty. */
export function idExtent(index: ObjectIndex): IdExtent | undefined {
  const { idShift, table, run, runFields } = index.toParts();
  const [, runStart, runHigh, runLowBits, inRun, runTop] = runFields;
  let minHigh = 0x7fffffff;
  let minLow = 0xffffffff;
  let maxHigh = -1;
  let maxLow = 0;
  let count = 0;
  const consider = (low: number, high: number): void => {
    count++;
    if (high < minHigh || (high === minHigh && low < minLow)) {
      minHigh = high;
      minLow = low;
    }
    if (high > maxHigh || (high === maxHigh && low > maxLow)) {
      maxHigh = high;
      maxLow = low;
    }
  };
  // Positions without an entry: empty, or marked IN_HASH (their ids are among the hashed ones).
  const none = (position: number): boolean => run[position * RUN_WORDS] === 0 || run[position * RUN_WORDS] === IN_HASH;
  if (inRun > 0) {
    let first = 0;
    while (none(first)) first++;
    let last = runTop - 1;
    while (none(last)) last--;
    consider((((runStart + first) << idShift) | runLowBits) >>> 0, runHigh);
    consider((((runStart + last) << idShift) | runLowBits) >>> 0, runHigh);
    count += inRun - 2;
  }
  for (let base = 0; base < table.length; base += WORDS) {
    const highPlusOne = table[base + 1] as number;
    if (highPlusOne !== 0) consider((table[base] as number) >>> 0, (highPlusOne - 1) | 0);
  }
  return count === 0 ? undefined : { count, minLow, minHigh, maxLow, maxHigh };
}

/**
 * Sets bit `id - base` in `bits` for every id of the index; every id must lie in
 * `[base, base + bits.length * 32)` (as `idExtent` bounds them).
 */
export function markIdBits(index: ObjectIndex, bits: Uint32Array, baseLow: number, baseHigh: number): void {
  const { idShift, table, run, runFields } = index.toParts();
  const [, runStart, runHigh, runLowBits, inRun, runTop] = runFields;
  // Run positions are ids `stride` apart.
  const stride = 2 ** idShift;
  const firstRel = (runHigh - baseHigh) * 2 ** 32 - (baseLow >>> 0) + (((runStart << idShift) | runLowBits) >>> 0);
  if (inRun === runTop && stride <= 32) markEvery(bits, firstRel, runTop, stride);
  else {
    for (let position = 0; position < runTop; position++) {
      // IN_HASH: the id is marked below if the hash table still holds it.
      const tag = run[position * RUN_WORDS] as number;
      if (tag === 0 || tag === IN_HASH) continue;
      const rel = firstRel + position * stride;
      bits[rel >>> 5] = (bits[rel >>> 5] as number) | (1 << (rel & 31));
    }
  }
  for (let base = 0; base < table.length; base += WORDS) {
    const highPlusOne = table[base + 1] as number;
    if (highPlusOne === 0) continue;
    const rel = (((highPlusOne - 1) | 0) - baseHigh) * 2 ** 32 + ((table[base] as number) >>> 0) - (baseLow >>> 0);
    bits[rel >>> 5] = (bits[rel >>> 5] as number) | (1 << (rel & 31));
  }
}

/**
 * Sets the bits `first + k * stride` for k in `[0, count)` (`stride` a power of two up to 32): a
 * run without holes (every position used, as in a storage nothing was deleted from) is marked a
 * word at a time, without reading its entries.
 */
function markEvery(bits: Uint32Array, first: number, count: number, stride: number): void {
  if (count === 0) return;
  const last = first + (count - 1) * stride;
  const firstWord = first >>> 5;
  const lastWord = last >>> 5;
  // Word starts are multiples of the stride: every word has the same bit offsets set.
  let pattern = 0;
  for (let bit = first % stride; bit < 32; bit += stride) pattern |= 1 << bit;
  if (firstWord === lastWord) {
    bits[firstWord] = (bits[firstWord] as number) | (pattern & (0xffffffff << (first & 31)) & (0xffffffff >>> (31 - (last & 31))));
    return;
  }
  bits[firstWord] = (bits[firstWord] as number) | (pattern & (0xffffffff << (first & 31)));
  for (let word = firstWord + 1; word < lastWord; word++) bits[word] = (bits[word] as number) | pattern;
  bits[lastWord] = (bits[lastWord] as number) | (pattern & (0xffffffff >>> (31 - (last & 31))));
}
