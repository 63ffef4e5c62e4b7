import type { StorageContext } from '../registry/storage-registry.js';
import { isPostgresSpec, openStorageSource, type SourceSpecOptions } from '../storage/open-source.js';
import type { StorageSource } from '../storage/source/source.js';

/**
 * Where `check_storage` reads a served storage from: a new source of the storage as it was given
 * on the command line (`check` reads in one snapshot of its own, and closes the source).
 */

export interface NamedStorageSpec {
  /** undefined: the one unnamed storage (served as `default`). */
  readonly name: string | undefined;
  readonly directory: string;
}

export function checkSourceOpener(
  specs: readonly NamedStorageSpec[],
  options: SourceSpecOptions,
  defaultName: string,
): (context: StorageContext) => StorageSource | undefined {
  const byName = new Map(specs.map((spec) => [spec.name ?? defaultName, spec.directory]));
  return (context) => {
    const directory = byName.get(context.name);
    if (directory === undefined) return undefined;
    return openStorageSource(directory, isPostgresSpec(directory) ? options : { allowExternalLinks: options.allowExternalLinks === true });
  };
}
