import { availableParallelism } from 'node:os';
import type { ObjectIndexParts } from '../../storage/index/object-index.js';
import { startWorker } from '../../threads/worker-thread.js';
import type { ParquetColumn } from '../tables/parquet-rows.js';
import type { LinkType } from './link-types.js';

/**
 * A worker thread taking part of an export's link pass (link-worker.ts): it claims the data files
 * from the first on while the exporting thread claims them from the last back, until they meet,
 * each writing its rows into Parquet files of its own (the same columns) that DuckDB's COPY reads
 * together. The exporting thread is the one that also builds `_objects` and the retained sizes
 * meanwhile; the pass's rows are the same whichever thread writes them (member codes fixed before).
 */

/** The Parquet files' columns (the link pass's sinks), in both threads. */
export const ELEMENT_COLUMNS: readonly ParquetColumn[] = [
  { name: 'owner', type: 'int64', nullable: false },
  { name: 'position', type: 'int64', nullable: false },
  { name: 'key_text', type: 'text', nullable: true },
  { name: 'key_oid', type: 'int64', nullable: true },
  { name: 'value_text', type: 'text', nullable: true },
  { name: 'value_oid', type: 'int64', nullable: true },
  // The same name for every element of a list: runs of dictionary indices, not a text per row.
  { name: 'member', type: 'text', nullable: false, dictionary: true },
];

/** Staged elements: the member as a code, named in the members' file. */
export const STAGED_COLUMNS: readonly ParquetColumn[] = [...ELEMENT_COLUMNS.slice(0, 6), { name: 'member', type: 'int32', nullable: false }];

export const REFERENCE_COLUMNS: readonly ParquetColumn[] = [
  { name: 'from_oid', type: 'int64', nullable: false },
  { name: 'to_oid', type: 'int64', nullable: false },
  { name: 'member', type: 'text', nullable: false, dictionary: true },
];

/** Who reads a data file (an entry of `LinkThreadJob.claims`, set with `Atomics.compareExchange`). */
export const LINK_FILE_CLAIM = { unclaimed: 0, worker: 1, exporter: 2 } as const;

/**
 * From this many bytes of data files on. Below, starting the thread (its modules, its heap)
 * costs about what it saves.
 */
export const LINK_THREAD_FROM_BYTES = 64 * 1024 * 1024;

export function wantsLinkThread(asked: boolean | undefined, bytes: number): boolean {
  return asked ?? (bytes >= LINK_THREAD_FROM_BYTES && availableParallelism() > 1);
}

export interface LinkThreadFile {
  readonly path: string;
  readonly slot: number;
  readonly totalLength: number;
  /** Its channel: an index into `LinkThreadJob.indexes`. */
  readonly channel: number;
}

export interface LinkThreadJob {
  readonly types: readonly (readonly [bigint, LinkType])[];
  readonly members: readonly (readonly [string, number])[];
  /** Every data file, in the pass's order; the worker claims from the first on. */
  readonly files: readonly LinkThreadFile[];
  /** Each channel's primary index (a snapshot over shared memory). */
  readonly indexes: readonly ObjectIndexParts[];
  /** One entry per file (shared memory), `LINK_FILE_CLAIM`. */
  readonly claims: Int32Array;
  /** The worker's own files (created by it; they must not exist). */
  readonly paths: { readonly direct: string; readonly staged: string; readonly references: string };
}

export type LinkThreadReply =
  /** The first file is claimed (the exporting thread then starts from the last). */
  | { readonly kind: 'started' }
  | { readonly kind: 'done'; readonly files: number; readonly rows: number }
  | { readonly kind: 'failed'; readonly message: string };

/** What the worker thread did: files read, rows written. */
export interface LinkThreadWork {
  readonly files: number;
  readonly rows: number;
}

/**
 * The worker thread's part of the pass: `started` resolves once it has claimed the first file
 * (or ended), `done` once its files are written and closed (rejects with what went wrong);
 * `stop` ends it.
 */
export function startLinkThread(job: LinkThreadJob): { readonly started: Promise<void>; readonly done: Promise<LinkThreadWork>; stop(): Promise<void> } {
  const worker = startWorker(import.meta.url, 'link-worker');
  let onStart: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (onStart = resolve));
  const done = new Promise<LinkThreadWork>((resolve, reject) => {
    let settled = false;
    const end = (result: LinkThreadWork | Error): void => {
      onStart();
      if (settled) return;
      settled = true;
      void worker.terminate();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    worker.on('message', (reply: LinkThreadReply) => {
      if (reply.kind === 'started') onStart();
      else end(reply.kind === 'done' ? { files: reply.files, rows: reply.rows } : new Error(`the link pass's worker thread: ${reply.message}`));
    });
    worker.on('error', (error: Error) => end(new Error(`the link pass's worker thread failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code: number) => end(new Error(`the link pass's worker thread stopped (exit code ${code})`)));
    worker.postMessage(job);
  });
  // Observed by the caller; a pass that fails first must not leave it unhandled.
  done.catch(() => undefined);
  return {
    started,
    done,
    stop: async () => {
      await worker.terminate();
    },
  };
}
