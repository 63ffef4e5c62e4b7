import { describe, expect, it } from 'vitest';
import { appendReferrers, BLOCK_BITS, histogramLength, RANGE_BITS, targetRanges } from '../../../src/graph/model/referrer-rows.js';
import { prng } from '../../helpers/corpora/prng.js';

/**
 * The partitioned referrer pass (used once a graph spans more than a few node ranges) must give
 * exactly what appending every source to its targets one by one gives.
 */

const FORWARD_FLAG = 0x80000000;

/** Forward lists (ascending, distinct) of a random graph; one node refers to very many. */
function randomForward(n: number, seed: number): Uint32Array[] {
  const random = prng(seed);
  const forward: Uint32Array[] = [];
  for (let v = 0; v < n; v++) {
    const k = v === 777 ? 5000 : Math.floor(random() * 4);
    const set = new Set<number>();
    for (let i = 0; i < k; i++) set.add(Math.floor(random() * n));
    forward.push(Uint32Array.from([...set].sort((a, b) => a - b)));
  }
  return forward;
}

/** Rows with forward halves written, row starts and cursors, as the build has them. */
function forwardHalves(forward: Uint32Array[]): { rowStart: Uint32Array; rows: Uint32Array; cursor: Uint32Array } {
  const n = forward.length;
  const degrees = new Uint32Array(n + 1);
  for (let v = 0; v < n; v++) {
    degrees[v] = degrees[v]! + forward[v]!.length;
    for (const u of forward[v]!) degrees[u] = degrees[u]! + 1;
  }
  let sum = 0;
  for (let v = 0; v <= n; v++) {
    const d = degrees[v]!;
    degrees[v] = sum;
    sum += d;
  }
  const rows = new Uint32Array(sum);
  const cursor = new Uint32Array(n);
  for (let v = 0; v < n; v++) {
    let at = degrees[v]!;
    for (const u of forward[v]!) rows[at++] = (u | FORWARD_FLAG) >>> 0;
    cursor[v] = at;
  }
  return { rowStart: degrees, rows, cursor };
}

describe('referrer rows', () => {
  const n = 300_000; // more than four node ranges: the partitioned path
  const forward = randomForward(n, 7);

  it('appends every source to its targets in ascending order, in any batch size, with or without the histogram', () => {
    const expected = forwardHalves(forward);
    for (let v = 0; v < n; v++) {
      for (const u of forward[v]!) expected.rows[expected.cursor[u]!++] = v;
    }
    for (const batch of [1000, 1 << 22]) {
      const actual = forwardHalves(forward);
      appendReferrers(n, actual.rowStart, actual.rows, actual.cursor, undefined, undefined, batch);
      expect(Buffer.from(actual.rows.buffer).equals(Buffer.from(expected.rows.buffer))).toBe(true);
      expect(Buffer.from(actual.cursor.buffer).equals(Buffer.from(expected.cursor.buffer))).toBe(true);
    }
    // With the histogram the build counts while it writes the forward halves, and scratch memory
    // holding something else (too small for a batch, or large enough).
    const histogram = new Uint32Array(histogramLength(n));
    for (let v = 0; v < n; v++) {
      for (const u of forward[v]!) histogram[(v >>> BLOCK_BITS) * targetRanges(n) + (u >>> RANGE_BITS)]!++;
    }
    for (const [batch, scratch] of [
      [1000, new Uint32Array(64).fill(7)],
      [1 << 22, new Uint32Array(1 << 21).fill(0xffffffff)],
    ] as const) {
      const actual = forwardHalves(forward);
      appendReferrers(n, actual.rowStart, actual.rows, actual.cursor, histogram, scratch, batch);
      expect(Buffer.from(actual.rows.buffer).equals(Buffer.from(expected.rows.buffer))).toBe(true);
    }
    // Every row ends full: the referrers filled it exactly.
    for (let u = 0; u < n; u += 997) expect(expected.cursor[u]).toBe(expected.rowStart[u + 1]);
  });
});
