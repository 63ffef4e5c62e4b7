import { ownListAt, workerListAt, type SharedNodeArrays } from './shared-node-arrays.js';
import type { ForwardLists } from './forward-lists.js';
import { appendReferrers, BLOCK_BITS, targetRanges } from '../model/referrer-rows.js';

/**
 * The steps that turn a build's forward lists into rows (adjacency.ts): counting referrers,
 * writing forward halves (in parts the building thread and the decode worker thread take at once,
 * each a range of sources) and appending referrers. Measured at 10M entities on two processors,
 * only the forward halves gain from being split between two threads (the worker counts alone,
 * beside the building thread's sort of older versions): counting in both threads (the worker into
 * counts of its own, added in with the row starts) took 60 ms longer than counting in one, and
 * appending split by target range makes each part read every edge and guess its branch wrong half
 * the time while the reachability sweep takes the other processor. Both threads see the same
 * per-node arrays, lists and rows (shared memory).
 */

/** What both threads link over: the per-node arrays, and the forward lists of each thread. */
export interface LinkShare {
  readonly arrays: SharedNodeArrays;
  /** The building thread's lists (`ownListStart`), and the decode worker's (`workerListStart`). */
  readonly lists: ForwardLists;
  readonly workerLists: ForwardLists | undefined;
}

/** Adds to `degrees[u]` one per entry u of both threads' lists (`degrees` has one entry per node, or more). */
export function countReferrers(share: LinkShare, degrees: Uint32Array): void {
  share.lists.countTargets(degrees);
  share.workerLists?.countTargets(degrees);
}

/**
 * Writes the forward halves of the rows of nodes `[from, to)` (`degrees` are the row starts by
 * now), counting their targets in `histogram` (referrer-rows.ts: `from` and `to` must start blocks,
 * or be the node count, as two threads count into it at once); each node's `listStart` becomes
 * the cursor where its first referrer goes.
 */
export function writeForwardHalves(share: LinkShare, rows: Uint32Array, histogram: Uint32Array, from: number, to: number): void {
  const { degrees: rowStart, listStart: cursor } = share.arrays;
  const { lists, workerLists } = share;
  const ranges = targetRanges(rowStart.length - 1);
  for (let v = from; v < to; v++) {
    const start = cursor[v] as number;
    const at = rowStart[v] as number;
    const base = (v >>> BLOCK_BITS) * ranges;
    if (start > 0) cursor[v] = lists.copyForward(ownListAt(start), rows, at, histogram, base);
    else if (start === 0) cursor[v] = at;
    else cursor[v] = workerLists!.copyForward(workerListAt(start), rows, at, histogram, base);
  }
}

/**
 * Appends every referrer (after every forward half is written and counted in `histogram`); the
 * forward lists are not read again (a chunk of them holds the partitioned edges).
 */
export function writeReferrerHalves(share: LinkShare, rows: Uint32Array, histogram: Uint32Array): void {
  const { degrees: rowStart, listStart: cursor } = share.arrays;
  appendReferrers(rowStart.length - 1, rowStart, rows, cursor, histogram, share.lists.lendChunk() ?? share.workerLists?.lendChunk());
}

/**
 * A node splitting `[0, nodeCount)` so that both sides hold about as many row entries
 * (`rowStart` of length nodeCount + 1): the start of a block of the target histogram.
 */
export function splitByRows(rowStart: Uint32Array, nodeCount: number): number {
  const half = (rowStart[nodeCount] as number) / 2;
  let lo = 0;
  let hi = nodeCount;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((rowStart[mid] as number) < half) lo = mid + 1;
    else hi = mid;
  }
  return (lo >>> BLOCK_BITS) << BLOCK_BITS;
}
