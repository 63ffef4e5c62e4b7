import type { TypeEntry } from '../../format/type-dictionary.js';
import type { ObjectIndexParts } from '../../storage/index/object-index.js';
import type { SharedNodeArrays } from './shared-node-arrays.js';
import type { ForwardListsParts } from './forward-lists.js';
import type { NodeIdsParts } from '../model/node-ids.js';
import type { SweepInput } from '../model/reachability.js';
import type { DecodeFile } from './record-decoder.js';

/** What the building thread and the decode worker thread (decode-worker.ts) send each other. */

/**
 * The channels the worker decodes, and what it needs to: all as they were when the build started.
 * Sent as soon as the thread is started, so that it takes them over while the building thread
 * numbers the nodes; decoding waits for `DecodeStart`.
 */
export interface DecodeJob {
  readonly kind: 'channels';
  /** The storage's number of channels. */
  readonly channelCount: number;
  /** The dictionary's entries: the worker numbers types as the building thread does. */
  readonly entries: readonly TypeEntry[];
  readonly channels: readonly {
    readonly index: number;
    /** The channel's primary index (a snapshot: the worker sees the state the build started from). */
    readonly objects: ObjectIndexParts;
    /** Each with its position in the build's list of all files (for progress and problem order). */
    readonly files: readonly (DecodeFile & { readonly order: number })[];
  }[];
  /**
   * One entry per file above (channel by channel), shared memory: the worker claims each file
   * before it decodes it and stops at the first the building thread has claimed, which takes
   * them from the last one back once its own files are done (`FileClaim`).
   */
  readonly claims: Int32Array;
}

/** Who decodes a file of the worker's channels (an entry of `DecodeJob.claims`, set with `Atomics.compareExchange`). */
export const FileClaim = { unclaimed: 0, worker: 1, buildingThread: 2 } as const;

/** The node numbering and the build's per-node arrays (shared memory): the worker writes its nodes' type, forward count and list start. */
export interface DecodeStart {
  readonly kind: 'start';
  readonly nodes: NodeIdsParts;
  readonly arrays: SharedNodeArrays;
}

/**
 * What one file's latest records did not say in the shared arrays, as flat arrays (copied, not
 * transferred: decode-worker.ts says why).
 */
export interface DecodedFile {
  readonly kind: 'file';
  readonly channel: number;
  readonly order: number;
  readonly bytes: number;
  readonly records: number;
  /** Of them, latest records of their objects. */
  readonly latestRecords: number;
  /** (node, type number) per latest record whose type the worker numbered beyond the dictionary's. */
  readonly retyped: Int32Array;
  /** (node, file slot, offset) per older record. */
  readonly superseded: Int32Array;
  /** (node, id low, id high) per reference to an id that is not stored. */
  readonly missing: Int32Array;
  readonly problems: readonly { readonly file: string; readonly offset: number; readonly message: string }[];
  readonly problemCount: number;
  /** Type ids the worker numbered beyond the dictionary's (ids of unknown types), in order, since its previous message. */
  readonly addedTypes: readonly bigint[];
}

/** Every file is decoded: the worker's forward lists (over shared memory). */
export interface DecodeDone {
  readonly kind: 'done';
  readonly lists: ForwardListsParts;
}

/**
 * The parts of linking the rows the worker takes once it is done decoding (link-steps.ts), each
 * answered with `linked`: counting the referrers of every node from both threads' lists into the
 * shared `degrees` (while the building thread sorts the older versions), then the forward halves
 * of nodes `[from, to)`, then the reachability sweep over the rows' forward entries (while the
 * building thread appends the referrers; reachability.ts).
 */
export type LinkTask =
  | { readonly kind: 'count'; readonly lists: ForwardListsParts }
  | { readonly kind: 'sweep'; readonly input: SweepInput }
  | {
      readonly kind: 'forward';
      readonly lists: ForwardListsParts;
      readonly rows: Uint32Array;
      /** The target histogram both threads count into (referrer-rows.ts; `from` starts a block of it). */
      readonly histogram: Uint32Array;
      readonly from: number;
      readonly to: number;
    };

export interface LinkReply {
  readonly kind: 'linked';
}

export type DecodeReply = DecodedFile | DecodeDone | LinkReply | { readonly kind: 'failed'; readonly message: string };
