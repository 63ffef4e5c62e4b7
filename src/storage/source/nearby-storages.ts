import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * Where the storage probably is when a directory given as one is not: one level up (a channel
 * directory or another folder inside the storage was given), one level down (the application's
 * folder was given), or in the usual `storage/` or `data/` folders below that. Only looks, never
 * opens a file; a directory with many entries is looked at in part (the first MAX_ENTRIES).
 */

const DICTIONARY_FILE_NAME = 'PersistenceTypeDictionary.ptd';
/** Folders applications usually keep their storage in, looked into one level deeper. */
const USUAL_FOLDERS = new Set(['storage', 'data', 'db', 'database']);
const MAX_ENTRIES = 500;
const MAX_SUGGESTIONS = 3;

/** Whether a directory holds what every storage has: the type dictionary and channel_0/. */
function looksLikeStorage(directory: string): boolean {
  try {
    return existsSync(join(directory, DICTIONARY_FILE_NAME)) && statSync(join(directory, 'channel_0')).isDirectory();
  } catch {
    return false;
  }
}

function subdirectories(directory: string): string[] {
  try {
    return readdirSync(directory, { withFileTypes: true })
      .slice(0, MAX_ENTRIES)
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** Storages near `directory`, spelled from it as given (`myapp/storage`, not an absolute path). */
export function nearbyStorages(directory: string): string[] {
  const found: string[] = [];
  const parent = dirname(directory) === directory ? dirname(resolve(directory)) : dirname(directory);
  if (resolve(parent) !== resolve(directory) && looksLikeStorage(parent)) found.push(parent);
  for (const name of subdirectories(directory)) {
    const child = join(directory, name);
    if (looksLikeStorage(child)) found.push(child);
    else if (USUAL_FOLDERS.has(name.toLowerCase())) {
      for (const inner of subdirectories(child)) if (looksLikeStorage(join(child, inner))) found.push(join(child, inner));
    }
    if (found.length >= MAX_SUGGESTIONS) break;
  }
  return found.slice(0, MAX_SUGGESTIONS);
}

/** ` Did you mean myapp/storage?` (or several), or '' when nothing near looks like a storage. */
export function nearbyStorageHint(directory: string): string {
  let isDirectory = false;
  try {
    isDirectory = statSync(directory).isDirectory();
  } catch {
    // Not there at all: the parent may still be the storage (a channel directory mistyped).
  }
  // A file or a mistyped name inside the storage: its folder, or the folder above (a channel's file).
  const found = isDirectory ? nearbyStorages(directory) : [dirname(directory), dirname(dirname(directory))].filter(looksLikeStorage).slice(0, 1);
  if (found.length === 0) return '';
  return found.length === 1
    ? ` Did you mean ${found[0]}? (it holds ${DICTIONARY_FILE_NAME} and channel_0/)`
    : ` Did you mean one of ${found.join(', ')}? (each holds ${DICTIONARY_FILE_NAME} and channel_0/)`;
}

