import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StorageError } from '../errors.js';

/**
 * `mkdir -p`, one level at a time. Node's recursive mkdir never returns where a directory cannot
 * be created but the system answers ENOENT (anywhere below /proc): here each missing level is
 * created on its own, and the first that cannot be is refused with a message.
 */
export function makeDirectories(directory: string): void {
  const missing: string[] = [];
  let existing = resolve(directory);
  while (!existsSync(existing)) {
    missing.unshift(existing);
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  if (existsSync(existing) && !statSync(existing).isDirectory()) {
    throw new StorageError('STORAGE_IO', `cannot create the directory ${directory}: ${existing} is not a directory`);
  }
  for (const level of missing) {
    try {
      mkdirSync(level);
    } catch (error) {
      // Someone else created it meanwhile: fine.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && statSync(level).isDirectory()) continue;
      throw new StorageError('STORAGE_IO', `cannot create the directory ${directory}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
}
