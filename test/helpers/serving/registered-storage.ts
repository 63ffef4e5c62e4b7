import { StorageRegistry, type ServedStorage, type StorageContext } from '../../../src/registry/storage-registry.js';
import { Storage } from '../../../src/storage/storage.js';

/**
 * Storages opened in this process and registered by name, as `serve` and `mcp` do before their
 * first request. Nothing is started: a test starts the graph builds when it means to (often at
 * once, with graphsBuilt; a test of answers while the index builds, later). close() closes the
 * registry before the storages, so each graph service stops listening before its storage closes.
 */
export interface RegisteredStorage {
  readonly registry: StorageRegistry;
  readonly storage: Storage;
  /** Its registry entry (graph, timeline, versions). */
  readonly context: StorageContext;
  close(): Promise<void>;
}

export interface RegisteredStorages {
  readonly registry: StorageRegistry;
  /** In the order given; the first is the registry's default. */
  readonly storages: readonly Storage[];
  close(): Promise<void>;
}

/** One storage, registered as `name` (so the default); `served` as for registeredStorages. */
export async function registeredStorage(directory: string, name = 'default', served?: ServedStorage): Promise<RegisteredStorage> {
  const { registry, storages, close } = await registeredStorages({ [name]: directory }, served === undefined ? undefined : () => served);
  return { registry, storage: storages[0]!, context: registry.get(name)!, close };
}

/**
 * Several storages, each opened once and registered under its key in order (the first is the
 * default; keys that read as array indices, '0' or '12', would come first in a JS object, so
 * names are words); `served` says how the Java-compatible routes serve each (none: only /api/v1 does).
 */
export async function registeredStorages(
  directories: Readonly<Record<string, string>>,
  served?: (storage: Storage) => ServedStorage,
): Promise<RegisteredStorages> {
  const registry = new StorageRegistry();
  const storages: Storage[] = [];
  const close = async () => {
    await registry.close();
    for (const storage of storages) await storage.close();
  };
  try {
    for (const [name, directory] of Object.entries(directories)) {
      const storage = await Storage.open(directory);
      storages.push(storage);
      registry.add(name, storage, {}, served?.(storage));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { registry, storages, close };
}

/** Starts every registered storage's graph build and waits until each index is ready (a failed build rejects). */
export async function graphsBuilt(registry: StorageRegistry): Promise<void> {
  registry.startAll();
  for (const context of registry.all()) await context.graph.ready();
}
