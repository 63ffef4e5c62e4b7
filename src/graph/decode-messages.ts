import type { TypeEntry } from '../format/type-dictionary.js';
import type { ObjectIndexParts } from '../storage/object-index.js';
import type { NodeIdsParts } from './node-ids.js';
import type { DecodeFile } from './record-decoder.js';

/** What the building thread and the decode worker thread (decode-worker.ts) send each other. */

/** The channels the worker decodes, and what it needs to: all copies taken when the build starts. */
export interface DecodeJob {
  readonly nodes: NodeIdsParts;
  /** The dictionary's entries: the worker numbers types as the building thread does. */
  readonly entries: readonly TypeEntry[];
  readonly channels: readonly {
    readonly index: number;
    /** The channel's primary index (copied, so the worker sees the state the build started from). */
    readonly objects: ObjectIndexParts;
    /** Each with its position in the build's list of all files (for progress and problem order). */
    readonly files: readonly (DecodeFile & { readonly order: number })[];
  }[];
}

/** One file's findings, as flat arrays (transferred, not copied). */
export interface DecodedFile {
  readonly kind: 'file';
  readonly channel: number;
  readonly order: number;
  readonly bytes: number;
  readonly records: number;
  /** (node, type number, target count) per latest record; the targets follow one another in `targets`. */
  readonly latest: Int32Array;
  readonly targets: Uint32Array;
  /** (node, file slot, offset) per older record. */
  readonly superseded: Int32Array;
  /** (node, id low, id high) per reference to an id that is not stored. */
  readonly missing: Int32Array;
  readonly problems: readonly { readonly file: string; readonly offset: number; readonly message: string }[];
  readonly problemCount: number;
  /** Type ids the worker numbered beyond the dictionary's (ids of unknown types), in order, since its previous message. */
  readonly addedTypes: readonly bigint[];
}

export type DecodeReply = DecodedFile | { readonly kind: 'done' } | { readonly kind: 'failed'; readonly message: string };
