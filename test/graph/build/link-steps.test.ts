import { describe, expect, it } from 'vitest';
import { ownListStart, workerListStart } from '../../../src/graph/build/shared-node-arrays.js';
import { ForwardLists } from '../../../src/graph/build/forward-lists.js';
import { countReferrers, splitByRows, writeForwardHalves, writeReferrerHalves, type LinkShare } from '../../../src/graph/build/link-steps.js';
import { rowStartsFromDegrees } from '../../../src/graph/model/adjacency.js';
import { BLOCK_BITS, histogramLength, RANGE_BITS, targetRanges } from '../../../src/graph/model/referrer-rows.js';
import { prng } from '../../helpers/corpora/prng.js';

/**
 * The link steps as a threaded build takes them: forward lists in two threads' lists, the forward
 * halves written in two parts split at a block of sources (each counting its targets into the one
 * histogram), then the referrers appended. Checked against rows laid out naively.
 */

const FORWARD_FLAG = 0x80000000;

describe('link steps', () => {
  // More than four target ranges and two blocks of sources.
  const n = 3 << BLOCK_BITS;
  const random = prng(11);
  const forward: number[][] = [];
  for (let v = 0; v < n; v++) {
    const k = Math.floor(random() * 4);
    forward.push([...new Set(Array.from({ length: k }, () => Math.floor(random() * n)))].sort((a, b) => a - b));
  }

  it('writes the rows and counts the histogram of targets per block of sources, in two parts', () => {
    // Nodes of even channels in this thread's lists, of odd ones in the worker's (as the build
    // decodes channels), each list in an order of its own.
    const lists = new ForwardLists();
    const workerLists = new ForwardLists();
    const listStart = new Int32Array(n);
    const degrees = new Uint32Array(n + 1);
    for (const v of [...forward.keys()].reverse()) {
      const targets = Uint32Array.from(forward[v]!);
      if (targets.length === 0) continue;
      degrees[v] = targets.length;
      listStart[v] = v % 2 === 0 ? ownListStart(lists.append(targets, targets.length)) : workerListStart(workerLists.append(targets, targets.length));
    }
    const share: LinkShare = { arrays: { typeOfNode: new Uint16Array(n), degrees, listStart }, lists, workerLists };
    countReferrers(share, degrees);
    const rows = new Uint32Array(rowStartsFromDegrees(degrees, n));
    const histogram = new Uint32Array(histogramLength(n));
    const split = splitByRows(degrees, n);
    expect(split % (1 << BLOCK_BITS)).toBe(0);
    expect(split).toBeGreaterThan(0);
    writeForwardHalves(share, rows, histogram, split, n);
    writeForwardHalves(share, rows, histogram, 0, split);

    const expectedHistogram = new Uint32Array(histogramLength(n));
    for (let v = 0; v < n; v++) for (const u of forward[v]!) expectedHistogram[(v >>> BLOCK_BITS) * targetRanges(n) + (u >>> RANGE_BITS)]!++;
    expect(histogram).toEqual(expectedHistogram);

    writeReferrerHalves(share, rows, histogram);
    const referrers: number[][] = forward.map(() => []);
    for (let v = 0; v < n; v++) for (const u of forward[v]!) referrers[u]!.push(v);
    const expected = Uint32Array.from(forward.flatMap((targets, v) => [...targets.map((u) => (u | FORWARD_FLAG) >>> 0), ...referrers[v]!]));
    expect(Buffer.from(rows.buffer).equals(Buffer.from(expected.buffer))).toBe(true);
  });
});
