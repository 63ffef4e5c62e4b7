import { FormatError, StorageError, type AppErrorCode } from '../../errors.js';
import type { ChannelIndexJob, ChannelIndexResult } from './channel-indexer.js';
import type { ObjectIndexParts } from './object-index.js';
import type { PrefixFiles, TakenRecordsData } from '../source/prefix-compare.js';

/** What passes between the index workers and the thread that opens the storage. */

export type WorkerRequest = IndexRequest | PrefixRequest;

export interface IndexRequest {
  readonly kind: 'index';
  /** Which of the caller's jobs this is. */
  readonly channel: number;
  readonly job: Omit<ChannelIndexJob, 'reads' | 'readAhead'>;
}

/**
 * A storage opened as another's continuation: whether one of its files begins with the other's
 * bytes, with the other's records at `offsets` taken on the way (at most `budget` bytes of them).
 */
export interface PrefixRequest {
  readonly kind: 'prefix';
  readonly files: PrefixFiles;
  readonly offsets: Float64Array;
  readonly budget: number;
}

export type WorkerReply =
  | ({ readonly kind: 'index'; readonly ok: true; readonly channel: number; readonly parts: ObjectIndexParts } & Omit<ChannelIndexResult, 'objects'>)
  | { readonly kind: 'prefix'; readonly ok: true; readonly same: boolean; readonly taken: TakenRecordsData }
  | { readonly ok: false; readonly failure: WorkerFailure };

/**
 * An error thrown in a worker, as data: a structured clone of an Error keeps only its name and
 * message, and callers tell errors apart by their codes (a file refused, a file gone).
 */
export interface WorkerFailure {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly errno?: number;
  readonly syscall?: string;
  readonly path?: string;
}

export function failureOf(error: unknown): WorkerFailure {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const { code, errno, syscall, path } = error as NodeJS.ErrnoException;
  return {
    name: error.name,
    message: error.message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof errno === 'number' ? { errno } : {}),
    ...(typeof syscall === 'string' ? { syscall } : {}),
    ...(typeof path === 'string' ? { path } : {}),
  };
}

/** The error a worker reported, as the same kind of error thrown in this thread would be. */
export function errorOf(failure: WorkerFailure): Error {
  const code = failure.code as AppErrorCode;
  if (failure.name === 'StorageError') return new StorageError(code, failure.message);
  if (failure.name === 'FormatError') return new FormatError(code, failure.message);
  const error: Error & Partial<NodeJS.ErrnoException> = new Error(failure.message);
  if (failure.code !== undefined) error.code = failure.code;
  if (failure.errno !== undefined) error.errno = failure.errno;
  if (failure.syscall !== undefined) error.syscall = failure.syscall;
  if (failure.path !== undefined) error.path = failure.path;
  return error;
}
