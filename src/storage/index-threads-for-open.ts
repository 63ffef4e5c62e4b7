import { IndexWorkerPool, indexWorkerCount } from './index/index-workers.js';
import { DirectorySource } from './source/directory-source.js';
import type { SourceReader } from './source/source.js';
import type { StorageLayout } from './source/storage-dir.js';
import type { OpenOptions } from './storage-types.js';

/** Index threads an open uses, and how it gives them back (usable: the load ended without failing). */
export interface OpenIndexThreads {
  readonly pool: IndexWorkerPool;
  release(usable: boolean): void;
}

/**
 * Worker threads for the first load of a directory storage (they read files by path, so only
 * for a directory read as it is), when it is large enough or the caller asks for them: borrowed
 * (`OpenOptions.indexWorkers`) when they can be, else a pool of its own, ended after the load.
 */
export function startIndexWorkers(reader: SourceReader, layout: StorageLayout, options: OpenOptions): OpenIndexThreads | undefined {
  if (!(reader instanceof DirectorySource)) return undefined;
  const filled = layout.channels.filter((c) => c.dataFiles.length > 0);
  const bytes = filled.reduce((n, c) => c.dataFiles.reduce((m, f) => m + f.size, n), 0);
  const threads = indexWorkerCount(options.indexThreads, filled.length, bytes);
  if (threads <= 0) return undefined;
  const lent = options.indexWorkers?.lend(threads);
  if (lent !== undefined) return lent;
  const pool = new IndexWorkerPool(threads);
  // Not awaited: tearing the threads down (their heaps freed) took 5–10 ms at 10M entities,
  // and nothing here waits for it. `close` never rejects (index-workers.ts).
  return { pool, release: () => void pool.close() };
}

/**
 * The index threads a storage opened as another's continuation compares the shared files in
 * (basis-open.ts), where the caller lends threads (`OpenOptions.indexWorkers`: a diff's, idle
 * once the basis is indexed) and the files are as large as an index build that would use them;
 * undefined: compared in the opening thread. No threads of its own are started for it.
 */
export function prefixThreads(options: OpenOptions, files: number, bytes: number): OpenIndexThreads | undefined {
  if (options.indexWorkers === undefined) return undefined;
  const threads = indexWorkerCount(options.indexThreads, files, bytes);
  return threads > 1 ? options.indexWorkers.lend(threads) : undefined;
}
