import type { TypeNumbers } from '../model/type-table.js';

/**
 * How the per-node arrays of a graph build are shared between the building thread and the decode
 * worker thread: which thread's forward lists a node's list lives in, encoded in one signed word.
 * Its own module so that the build's state, its messages and its link steps all read it without
 * importing each other.
 */

/** The per-node arrays the decode worker thread writes too (over shared memory). */
export interface SharedNodeArrays {
  readonly typeOfNode: TypeNumbers;
  readonly degrees: Uint32Array;
  readonly listStart: Int32Array;
}

/**
 * `listStart` of a node whose list is at `at` in this thread's lists: 0 means none, so that the
 * array needs no filling before the threads write it (fresh memory is zero; filling it took the
 * building thread 30–40 ms at 10M entities before the decode thread could start).
 */
export function ownListStart(at: number): number {
  return at + 1;
}

/** Where in this thread's lists a `listStart` above 0 points (the inverse of `ownListStart`). */
export function ownListAt(listStart: number): number {
  return listStart - 1;
}

/** `listStart` of a node whose list is at `at` in the decode worker's lists (below 0). */
export function workerListStart(at: number): number {
  return -at - 1;
}

/** Where in the decode worker's lists a `listStart` below 0 points (the inverse of `workerListStart`). */
export function workerListAt(listStart: number): number {
  return -listStart - 1;
}
