import type { GraphIndex } from '../graph/model/graph-index.js';
import type { RecordPassProgress } from '../storage/records/latest-records.js';
import type { Storage } from '../storage/storage.js';
import { loadDuck, type DuckModule } from './duck-module.js';
import type { BuiltTables } from './built-tables.js';
import { buildTablesOfState, needsGraph, openKeptTables } from './open-built-tables.js';
import type { TableCache } from './cache/table-cache.js';
import { storageStateKey, type StorageStateKey } from './cache/table-cache-key.js';

/**
 * The tables of a storage's current state for the engine (sql-engine.ts): taken from the cache
 * when it holds that state, else built, with the cache key they may be kept under.
 */

export interface StateTablesOptions {
  readonly storage: Storage;
  /** The graph index (`_objects.reachable`, the GigaMap tables): asked for when a statement first names `_objects`, and before a build only where the storage has GigaMaps; undefined: reachable is NULL. */
  readonly graph?: () => Promise<GraphIndex | undefined>;
  readonly onBuildProgress?: (progress: RecordPassProgress) => void;
  /** After the tables of a state are ready: built, or (`cached`) taken from the cache. */
  readonly onBuilt?: (figures: { objects: number; problems: number; buildMs: number; cached: boolean }) => void;
  readonly onProblem?: (message: string) => void;
  /** Our own exports only (no user statement runs there): leaves file access on for COPY. */
  readonly allowFiles?: boolean;
  /** Every value object's `_values` row made by the build (an engine that fills every table anyway: one pass fewer). */
  readonly everyValueFirst?: boolean;
  /**
   * Tables kept between runs (table-cache.ts): taken from there when the storage's state has an
   * entry, kept there after a build and after fills. Storages not kept in a directory are never cached.
   */
  readonly cache?: TableCache | undefined;
}

/**
 * The tables of the storage's current state and their cache key (undefined: not to be kept):
 * from the cache, or built. Kept by the caller once no statement runs, with what the first
 * statements filled. `firstStatement`: the statement they are asked for (a build stages the rows
 * of the types it names as it goes).
 */
export async function tablesOfCurrentState(options: StateTablesOptions, memoryLimitBytes: number, firstStatement?: string): Promise<{ built: BuiltTables; key: StorageStateKey | undefined }> {
  const duck = await loadDuck();
  const storage = options.storage;
  const cache = options.cache;
  const started = performance.now();
  // Without a cache the database is never kept: written uncompressed (sandbox.ts `neverKept`). Not
  // for our exports, which may fill every table: their private file's size at 100M was not measured.
  const neverKept = cache === undefined && options.allowFiles !== true;
  const buildOptions = { memoryLimitBytes, allowFiles: options.allowFiles === true, everyValue: options.everyValueFirst === true, onProgress: options.onBuildProgress, onProblem: options.onProblem, neverKept, firstStatement };
  const graphOf = async (): Promise<GraphIndex | undefined> => options.graph?.();
  if (cache !== undefined) {
    // The key and the copy in one gate: the state the key names is the state the tables serve.
    const hit = await storage.consistent(async () => {
      const key = await stateKeyOf(duck, options);
      if (key === undefined) return undefined;
      const built = await openKeptTables(duck, storage, graphOf, buildOptions, (file, links) => cache.take(key.key, file, links), () => cache.drop(key.key));
      return built === undefined ? undefined : { built, key };
    });
    if (hit !== undefined) {
      options.onBuilt?.({ objects: hit.built.objectCount, problems: hit.built.problemCount, buildMs: performance.now() - started, cached: true });
      return hit;
    }
  }
  // Asked for before the storage's gate is entered (its build reads through the gate too).
  const graph = needsGraph(storage) ? await graphOf() : undefined;
  const fresh = await storage.consistent(async () => {
    const before = cache === undefined ? undefined : await stateKeyOf(duck, options);
    const result = await buildTablesOfState(duck, storage, graph, graphOf, buildOptions);
    // Files changed while they were read (a same-size rewrite the storage's state does not show): not kept.
    const after = before === undefined ? undefined : await stateKeyOf(duck, options);
    return { ...result, key: before !== undefined && after?.key === before.key ? before : undefined };
  });
  options.onBuilt?.({ objects: fresh.objects, problems: fresh.problems, buildMs: performance.now() - started, cached: false });
  return { built: fresh.built, key: fresh.key };
}

/** The cache key of the storage's state now; undefined (the reason told) when it has none. */
async function stateKeyOf(duck: DuckModule, options: StateTablesOptions): Promise<StorageStateKey | undefined> {
  try {
    return await storageStateKey(options.storage, duck.version());
  } catch (error) {
    options.onProblem?.(`the SQL tables are not cached: ${(error as Error).message}`);
    return undefined;
  }
}
