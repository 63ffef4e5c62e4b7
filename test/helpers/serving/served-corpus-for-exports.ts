import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { CONFORMANCE_DIR } from '../corpora/conformance.js';
import { registeredStorage, type RegisteredStorage } from './registered-storage.js';

/** A corpus storage served in-process for one test file, and a directory of its own for what the file writes. */
export interface ServedForExports {
  /** The directory the file's exports go into (removed after the file). */
  base: string;
  registered: RegisteredStorage;
}

/** What every Parquet export of the served storage into `out` is given (problems not collected). */
export function parquetExportInto(served: ServedForExports, out: string) {
  return {
    storage: served.registered.storage,
    graph: () => served.registered.context.graph.ready(),
    out,
    format: 'parquet' as const,
    onProblem: () => undefined,
  };
}

/**
 * Registers the file's hooks: before its tests, the conformance corpus storage `name` is
 * registered and started, and a temporary directory named after `prefix` made; after them,
 * both are gone. The fields are set once the hooks have run.
 */
export function servedCorpusForExports(prefix: string, name = 'graph'): ServedForExports {
  const served = {} as ServedForExports;
  beforeAll(async () => {
    served.base = mkdtempSync(join(tmpdir(), prefix));
    served.registered = await registeredStorage(join(CONFORMANCE_DIR, 'storages', name));
    served.registered.registry.startAll();
  });
  afterAll(async () => {
    await served.registered?.close();
    if (served.base !== undefined) rmSync(served.base, { recursive: true, force: true });
  });
  return served;
}
