import { workerListAt, type SharedNodeArrays } from './build-state.js';
import type { ForwardLists } from './forward-lists.js';
import { appendReferrers } from './referrer-rows.js';

/**
 * The steps that turn a build's forward lists into rows (adjacency.ts): counting referrers,
 * writing forward halves (in parts the building thread and the decode worker thread take at once,
 * each a range of sources) and appending referrers. Measured at 10M entities on two processors,
 * only the forward halves gain from a second thread: counting in both threads (the worker into
 * counts of its own, added in with the row starts) took 60 ms longer than counting in one, and
 * appending split by target range makes each part read every edge and guess its branch wrong half
 * the time while the reachability sweep takes the other processor. Both threads see the same
 * per-node arrays, lists and rows (shared memory).
 */

/** What both threads link over: the per-node arrays, and the forward lists of each thread. */
export interface LinkShare {
  readonly arrays: SharedNodeArrays;
  /** The building thread's lists (`listStart` 0 and up), and the decode worker's (`workerListStart`). */
  readonly lists: ForwardLists;
  readonly workerLists: ForwardLists | undefined;
}

/** Adds to `degrees[u]` one per entry u of both threads' lists (`degrees` has one entry per node, or more). */
export function countReferrers(share: LinkShare, degrees: Uint32Array, nodeCount: number): void {
  share.lists.countTargets(degrees, nodeCount);
  share.workerLists?.countTargets(degrees, nodeCount);
}

/** Copies v's forward list into `rows` at `at` with the forward flag; returns the end. */
export function copyForward(share: LinkShare, v: number, rows: Uint32Array, at: number): number {
  const start = share.arrays.listStart[v] as number;
  if (start >= 0) return share.lists.copyForward(start, rows, at);
  if (start === -1) return at;
  return share.workerLists!.copyForward(workerListAt(start), rows, at);
}

/**
 * Writes the forward halves of the rows of nodes `[from, to)` (`degrees` are the row starts by
 * now); each node's `listStart` becomes the cursor where its first referrer goes.
 */
export function writeForwardHalves(share: LinkShare, rows: Uint32Array, from: number, to: number): void {
  const { degrees: rowStart, listStart: cursor } = share.arrays;
  for (let v = from; v < to; v++) cursor[v] = copyForward(share, v, rows, rowStart[v] as number);
}

/** Appends every referrer (after every forward half is written). */
export function writeReferrerHalves(share: LinkShare, rows: Uint32Array): void {
  const { degrees: rowStart, listStart: cursor } = share.arrays;
  appendReferrers(rowStart.length - 1, rowStart, rows, cursor);
}

/** A node splitting `[0, nodeCount)` so that both sides hold about as many row entries (`rowStart` of length nodeCount + 1). */
export function splitByRows(rowStart: Uint32Array, nodeCount: number): number {
  const half = (rowStart[nodeCount] as number) / 2;
  let lo = 0;
  let hi = nodeCount;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((rowStart[mid] as number) < half) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
