import type { SqlLimits } from '../../../sql/sql-engine.js';
import type { TableCache } from '../../../sql/cache/table-cache.js';
import { SqlEngine } from '../../../sql/sql-engine.js';
import type { StorageContext } from '../../../registry/storage-registry.js';

/**
 * The SQL engine of each served storage, made when first asked for. The engine loads DuckDB
 * itself on its first statement (dynamic import), so a server nobody sends SQL to never loads it.
 */

/**
 * The limits, where the built tables are kept between runs (none: built in every run), and who
 * hears a storage's table warnings (unreadable records, a cache that could not be read or kept):
 * the server's own log, never an answer (they name files of the server).
 */
export type SqlServiceOptions = Partial<SqlLimits> & {
  readonly cache?: TableCache | undefined;
  readonly onStorageProblem?: ((storageName: string, message: string) => void) | undefined;
};

const engines = new WeakMap<StorageContext, SqlEngine>();

export function sqlEngineOf(context: StorageContext, options: SqlServiceOptions = {}): SqlEngine {
  let engine = engines.get(context);
  if (engine === undefined) {
    const { onStorageProblem, ...engineOptions } = options;
    engine = new SqlEngine({
      ...engineOptions,
      storage: context.storage,
      graph: () => context.graph.ready(),
      ...(onStorageProblem === undefined ? {} : { onProblem: (message: string) => onStorageProblem(context.name, message) }),
    });
    engines.set(context, engine);
  }
  return engine;
}

/** Waits for the engines of these storages to have kept their tables in the cache (before closing them at the end). */
export async function settleSqlEngines(contexts: readonly StorageContext[]): Promise<void> {
  for (const context of contexts) await engines.get(context)?.settle();
}

/** Closes the engines of these storages (their DuckDB databases and temporary directories). */
export function closeSqlEngines(contexts: readonly StorageContext[]): void {
  for (const context of contexts) {
    engines.get(context)?.close();
    engines.delete(context);
  }
}
