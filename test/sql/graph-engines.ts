import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { StorageRegistry } from '../../src/registry/storage-registry.js';
import { SqlEngine, type SqlEngineOptions } from '../../src/sql/sql-engine.js';
import { Storage } from '../../src/storage/storage.js';
import { CONFORMANCE_DIR } from '../helpers/conformance.js';

/**
 * SQL engines over the corpus storage `graph` with its graph index (and the limits given), made fresh per test and
 * closed after the file (the storage opened once): call at the top of a test file.
 */
export function graphEngines(): (options?: Omit<SqlEngineOptions, 'storage' | 'graph'>) => SqlEngine {
  let storage: Storage;
  let registry: StorageRegistry;
  let graphReady: () => Promise<import('../../src/graph/model/graph-index.js').GraphIndex>;
  const engines: SqlEngine[] = [];
  beforeAll(async () => {
    storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', 'graph'));
    registry = new StorageRegistry();
    const context = registry.add('default', storage);
    registry.startAll();
    graphReady = () => context.graph.ready();
  });
  afterAll(async () => {
    for (const engine of engines) engine.close();
    await registry.close();
    await storage.close();
  });
  return (options = {}) => {
    const engine = new SqlEngine({ ...options, storage, graph: graphReady });
    engines.push(engine);
    return engine;
  };
}
