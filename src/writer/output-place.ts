import { existsSync, opendirSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { DICTIONARY_FILE } from './paths.js';

/**
 * The one rule for every command that writes a file or a directory (`export`, `sql --out`,
 * `rescue`, `generate`, `serve --log-file`): nothing is written inside a storage or onto one of
 * its files. A place is refused when, after symbolic links are followed,
 * - it is, or lies inside, a storage directory the command reads, or one of that storage's own
 *   entries (a channel directory kept on another disk through a link is still the storage's), or
 * - it, or a directory above it, looks like a storage (holds the type dictionary) or like a
 *   channel directory (holds a transaction log or data file): a storage the command was not given
 *   is protected as well.
 * Checked before any work starts, so a refused command has written nothing.
 */

/** The place as it will be once written: the real path of the deepest part that exists, and the rest. */
function realPlace(path: string): string {
  let at = resolve(path);
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  let real: string;
  try {
    real = realpathSync(at);
  } catch {
    real = at;
  }
  return join(real, relative(at, resolve(path)));
}

function within(place: string, directory: string): boolean {
  const inside = relative(directory, place);
  return inside === '' || (!inside.startsWith('..') && !isAbsolute(inside));
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Entries looked at in a directory above the place: a channel directory holds a few files. */
const MAX_ENTRIES_LOOKED_AT = 1000;

/**
 * The storage a directory is (it holds the type dictionary) or whose channel directory it is (it
 * holds a transaction log or a data file of a channel, whatever the directory's own name).
 */
function storageOf(directory: string): string | undefined {
  if (existsSync(join(directory, DICTIONARY_FILE))) return directory;
  let entries;
  try {
    entries = opendirSync(directory);
  } catch {
    return undefined;
  }
  try {
    for (let i = 0; i < MAX_ENTRIES_LOOKED_AT; i++) {
      const entry = entries.readSync();
      if (entry === null) break;
      if (entry.isFile() && /^(transactions_\d+\.sft|channel_\d+_\d+\.dat)$/.test(entry.name)) return dirname(directory);
    }
  } finally {
    entries.closeSync();
  }
  return undefined;
}

/** The real paths of a storage directory and of each of its entries (links followed). */
function storagePlaces(storage: string): string[] {
  const root = realPlace(storage);
  const places = [root];
  let names: string[] = [];
  try {
    names = readdirSync(root);
  } catch {
    return places;
  }
  for (const name of names) {
    try {
      places.push(realpathSync(join(root, name)));
    } catch {
      // a dangling link: nothing to write onto
    }
  }
  return places;
}

export interface OutputPlaceOptions {
  /** The option that names the place, for the message (`--out`, `--log-file`). */
  readonly option: string;
  /** Storage directories the command reads (PostgreSQL storages are left out by the caller). */
  readonly storages?: readonly string[];
}

/** Throws a UsageError when `out` lies inside a storage or onto one of its files; see above. */
export function refuseStoragePlace(out: string, options: OutputPlaceOptions): void {
  const place = realPlace(out);
  for (const storage of options.storages ?? []) {
    if (storagePlaces(storage).some((p) => within(place, p))) {
      throw new UsageError(`${options.option} ${out} lies inside the storage ${storage}: nothing is ever written into a storage`);
    }
  }
  for (let at = isDirectory(place) ? place : dirname(place); ; at = dirname(at)) {
    const storage = storageOf(at);
    if (storage !== undefined) throw new UsageError(`${options.option} ${out} lies inside the storage ${storage}: nothing is ever written into a storage`);
    if (dirname(at) === at) return;
  }
}
