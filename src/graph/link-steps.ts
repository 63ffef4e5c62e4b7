import type { SharedNodeArrays } from './build-state.js';
import type { ForwardLists } from './forward-lists.js';
import { appendReferrers } from './referrer-rows.js';

/**
 * The steps that turn a build's forward lists into rows (adjacency.ts), in parts the building
 * thread and the decode worker thread can take at once: counting referrers (each thread the
 * targets of its own lists, the worker into counts of its own that the row starts add in), and
 * writing forward halves (each thread a range of sources). Appending the referrers stays with
 * the building thread: split by target range, each part still reads every edge and guesses its
 * branch wrong half the time, and the reachability sweep takes the other processor meanwhile.
 * Both threads see the same per-node arrays, lists and rows (shared memory).
 */

/** What both threads link over: the per-node arrays, and the forward lists of each thread. */
export interface LinkShare {
  readonly arrays: SharedNodeArrays;
  /** The building thread's lists (`listStart` 0 and up), and the decode worker's (`workerListStart`). */
  readonly lists: ForwardLists;
  readonly workerLists: ForwardLists | undefined;
}

/** Adds to `counts[u]` one per entry u of `lists` (`counts` has one entry per node, or more). */
export function countReferrers(lists: ForwardLists | undefined, counts: Uint32Array, nodeCount: number): void {
  lists?.countTargets(counts, nodeCount);
}

/** Copies v's forward list into `rows` at `at` with the forward flag; returns the end. */
export function copyForward(share: LinkShare, v: number, rows: Uint32Array, at: number): number {
  const start = share.arrays.listStart[v] as number;
  if (start >= 0) return share.lists.copyForward(start, rows, at);
  if (start === -1) return at;
  return share.workerLists!.copyForward(-start - 2, rows, at);
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
