import type { LatestRecordsFindings } from '../check/record-findings.js';
import type { TypeEntry } from '../format/type-dictionary.js';
import type { ObjectIndexParts } from '../storage/index/object-index-parts.js';
import type { WorkerFailure } from '../storage/index/index-worker-messages.js';
import type { StorageFile } from '../storage/storage-types.js';
import type { ReachabilityThreadResult, ReachabilityThreadStart } from './walked-reachability.js';

/** What passes between convert's check walk threads (check-walk-worker.ts) and the thread that started them (check-walk-threads.ts). */

export interface WalkRequest {
  /** Every channel with its index's tables (shared memory); only the channels this thread walks have files. */
  readonly channels: readonly { readonly index: number; readonly parts: ObjectIndexParts; readonly files: readonly StorageFile[] }[];
  readonly entries: readonly TypeEntry[];
  readonly rootsTypeName: string;
  /** Given: the references are collected for convert's reachability. */
  readonly reach: ReachabilityThreadStart | undefined;
}

export type WalkReply =
  | { readonly kind: 'progress'; readonly bytesDone: number }
  | { readonly kind: 'done'; readonly findings: Omit<LatestRecordsFindings, 'stops'>; readonly reach: ReachabilityThreadResult | undefined }
  | { readonly kind: 'failed'; readonly failure: WorkerFailure };
