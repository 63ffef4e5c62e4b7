import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { SqlEngine, type SqlEngineOptions } from '../../src/sql/sql-engine.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { registeredStorage, type RegisteredStorage } from '../helpers/serving/registered-storage.js';

/**
 * SQL engines over the corpus storage `graph` with its graph index (and the limits given), made fresh per test and
 * closed after the file (the storage opened once): call at the top of a test file.
 */
export function graphEngines(): (options?: Omit<SqlEngineOptions, 'storage' | 'graph'>) => SqlEngine {
  let registered: RegisteredStorage;
  const engines: SqlEngine[] = [];
  beforeAll(async () => {
    registered = await registeredStorage(join(CONFORMANCE_DIR, 'storages', 'graph'));
    registered.registry.startAll();
  });
  afterAll(async () => {
    await Promise.all(engines.map((engine) => engine.close()));
    await registered.close();
  });
  return (options = {}) => {
    const engine = new SqlEngine({ ...options, storage: registered.storage, graph: () => registered.context.graph.ready() });
    engines.push(engine);
    return engine;
  };
}
