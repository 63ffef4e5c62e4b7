/**
 * The plain data an `ObjectIndex` (object-index.ts) hands out: a location it answers, and its
 * tables and counters as they cross threads. In a file of their own so that the modules passing
 * them along (the index workers' messages, the graph build, the run's positions) need not import
 * the index class.
 */

export interface EntityLocation {
  /** Index into the channel's file table. */
  readonly fileSlot: number;
  readonly offset: number;
  readonly length: number;
}

/**
 * An index's tables and counters as plain data: what a worker thread builds and hands over, and
 * what a graph build's worker thread reads (`snapshot`). The tables are over shared memory, so a
 * message passes them without copying.
 */
export interface ObjectIndexParts {
  readonly idShift: number;
  readonly table: Int32Array<SharedArrayBuffer>;
  readonly capacity: number;
  readonly hashed: number;
  readonly run: Int32Array<SharedArrayBuffer>;
  /** runLength, runStart, runHigh, runLowBits, inRun, runTop. */
  readonly runFields: readonly [number, number, number, number, number, number];
}
