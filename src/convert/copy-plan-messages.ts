import type { WorkerFailure } from '../storage/index/index-worker-messages.js';
import type { ObjectIndexParts } from '../storage/index/object-index-parts.js';
import type { ReachabilityCopyStart } from './walked-reachability.js';

/** What passes between a copy's planning thread (copy-plan-worker.ts) and the copy (copy-plan-thread.ts). */

export interface CopyPlanRequest {
  /** Every channel's index tables (shared memory): an id outside an index's run is looked up there. */
  readonly indexes: readonly ObjectIndexParts[];
  /** The files the thread plans, in walk order, each up to its committed end. */
  readonly files: readonly { readonly path: string; readonly end: number }[];
  /** The source as the errors of a file changed since the check name it. */
  readonly named: string;
  readonly reach: ReachabilityCopyStart;
  /** The number in the walk of the first file's first record. */
  readonly ordinal: number;
  /** The new storage's channel count - 1 (a run of records goes to one channel). */
  readonly channelMask: number;
  /**
   * KiB of runs the copying thread has taken (shared memory, one Int32): the thread plans on while
   * it has sent at most `aheadKiB` more.
   */
  readonly taken: Int32Array<SharedArrayBuffer>;
  readonly aheadKiB: number;
}

/** A type's counts of the records the thread met. */
export interface PlannedFigures {
  readonly typeId: bigint;
  readonly written: number;
  readonly writtenBytes: number;
  readonly superseded: number;
  readonly supersededBytes: number;
  readonly garbage: number;
  readonly garbageBytes: number;
}

export type CopyPlanReply =
  /**
   * One file's records to write: runs of records back to back that go to one channel, as
   * (start, end, records) triples of file offsets.
   */
  | { readonly kind: 'file'; readonly runs: Int32Array<ArrayBuffer>; readonly count: number; readonly kib: number }
  | { readonly kind: 'done'; readonly figures: readonly PlannedFigures[]; readonly newest: number; readonly records: number }
  | { readonly kind: 'failed'; readonly failure: WorkerFailure };
