import { describe, expect, it } from 'vitest';
import { ForwardLists, TEMP_CHUNK_BITS } from '../../../src/graph/build/forward-lists.js';
import { histogramLength } from '../../../src/graph/model/referrer-rows.js';

/**
 * Forward lists live in chunks of 2^22 entries: a list that starts near a chunk's end goes on
 * in the next chunk, and must read back whole.
 */

const FORWARD_FLAG = 0x80000000;

describe('forward lists', () => {
  it('reads back lists that fit in a chunk and lists that cross into the next one', () => {
    const chunk = 1 << TEMP_CHUNK_BITS;
    const lists = new ForwardLists();
    // One long list fills the first chunk to 3 entries before its end; the next list (5 entries)
    // crosses into the second chunk; short lists follow.
    const long = Uint32Array.from({ length: chunk - 3 }, (_, i) => i % 1000);
    const crossing = Uint32Array.from([7, 8, 9, 10, 11]);
    const starts = [lists.append(long, long.length), lists.append(crossing, crossing.length)];
    for (let k = 0; k < 100; k++) starts.push(lists.append(Uint32Array.from([k, k + 1, k + 2]), 2, 1));
    expect(starts[1]).toBe(chunk - 3);
    expect(lists.length).toBe(chunk - 3 + 5 + 200);

    const n = 1000;
    const histogram = new Uint32Array(histogramLength(n));
    const rows = new Uint32Array(8);
    expect(lists.copyForward(starts[1]!, rows, 1, histogram, 0)).toBe(6);
    expect([...rows.subarray(1, 6)]).toEqual([7, 8, 9, 10, 11].map((u) => (u | FORWARD_FLAG) >>> 0));
    expect(lists.copyForward(starts[5]!, rows, 0, histogram, 0)).toBe(2);
    expect([...rows.subarray(0, 2)]).toEqual([4, 5].map((u) => (u | FORWARD_FLAG) >>> 0));

    const degrees = new Uint32Array(n + 1);
    lists.countTargets(degrees);
    const expected = new Uint32Array(n + 1);
    for (const u of long) expected[u]!++;
    for (const u of crossing) expected[u]!++;
    for (let k = 0; k < 100; k++) {
      expected[k + 1]!++;
      expected[k + 2]!++;
    }
    expect(degrees).toEqual(expected);
  });
});
