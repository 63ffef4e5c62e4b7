import { randomUUID } from 'node:crypto';
import { lstat, readdir, readFile, rename, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Entries of an earlier layout of the cache (`tables-v1/` beside today's folder), which no run
 * reads any more: at 10M objects up to ~565 MB per storage state, kept until `cache clear` before.
 * Every write of the cache drops them (table-cache.ts `keep`), and `cache list` shows them as
 * obsolete until then. Only what a cache of ours wrote is dropped: an entry directory holding
 * nothing but its `meta.json` (naming the entry's own key) and `tables.duckdb`, or a temporary
 * directory of those files left for an hour; each file by its name, then the directory if that
 * left it empty, then the layout's folder if empty. Anything else (a file of the user's, a
 * directory of other contents, a link) stays, and so does a layout the same or newer than this
 * build's (a newer storage-inspector may run beside this one). Two processes at once: an entry is
 * first renamed out of the way, and only the process whose rename succeeded drops its files.
 */

const LAYOUT = /^tables-v(\d+)$/;
const DATABASE = 'tables.duckdb';
const META = 'meta.json';
const OURS = new Set([DATABASE, META]);
const TEMP_PREFIX = '.tmp-';
/** A temporary directory of an earlier layout is a process's that died writing once it is this old (as table-cache.ts's). */
const STALE_TEMP_MS = 3_600_000;

/** An entry of an earlier layout, as `cache list` shows it. */
export interface ObsoleteEntry {
  /** Its layout's folder, `tables-v1`. */
  readonly layout: string;
  readonly key: string;
  /** The storage directory its description names (`?` when it names none). */
  readonly storage: string;
  /** Its files' bytes on disk. */
  readonly bytes: number;
  readonly lastUsed: Date;
}

/** The layouts in `directory` older than `current` (`tables-v2`): their folder names. */
async function olderLayouts(directory: string, current: string): Promise<string[]> {
  const now = Number(LAYOUT.exec(current)?.[1]);
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const older: string[] = [];
  for (const name of names) {
    const version = LAYOUT.exec(name)?.[1];
    if (version === undefined || !(Number(version) < now)) continue;
    const stats = await lstat(join(directory, name)).catch(() => undefined);
    if (stats?.isDirectory() === true) older.push(name);
  }
  return older.sort();
}

/**
 * What an entry directory of an earlier layout holds, if it is one of ours: its files (nothing but
 * `tables.duckdb` and `meta.json`, plain files), their bytes, and its description's storage and
 * time. Undefined for anything else.
 */
async function ourEntry(dir: string, key: string | undefined): Promise<{ files: string[]; bytes: number; storage: string; lastUsed: Date } | undefined> {
  const stats = await lstat(dir).catch(() => undefined);
  if (stats?.isDirectory() !== true) return undefined;
  const files = await readdir(dir).catch(() => undefined);
  if (files === undefined || files.some((name) => !OURS.has(name))) return undefined;
  let bytes = 0;
  let lastUsed = stats.mtime;
  for (const name of files) {
    const file = await lstat(join(dir, name)).catch(() => undefined);
    if (file?.isFile() !== true) return undefined;
    bytes += file.size;
    if (name === META) lastUsed = file.mtime;
  }
  let storage = '?';
  if (key !== undefined) {
    // A whole entry: its description names it (a directory that merely holds such names is not ours).
    if (!files.includes(META) || !files.includes(DATABASE)) return undefined;
    let meta: unknown;
    try {
      meta = JSON.parse(await readFile(join(dir, META), 'utf8'));
    } catch {
      return undefined;
    }
    const described = meta as { key?: unknown; storage?: unknown } | null;
    if (described === null || typeof described !== 'object' || described.key !== key) return undefined;
    if (typeof described.storage === 'string') storage = described.storage;
  }
  return { files, bytes, storage, lastUsed };
}

/** The entries of earlier layouts in the cache `directory` (this build's layout `current`), the one used most lately first. */
export async function obsoleteEntries(directory: string, current: string): Promise<ObsoleteEntry[]> {
  const found: ObsoleteEntry[] = [];
  for (const layout of await olderLayouts(directory, current)) {
    for (const name of await readdir(join(directory, layout)).catch(() => [] as string[])) {
      if (name.startsWith('.')) continue;
      const entry = await ourEntry(join(directory, layout, name), name);
      if (entry !== undefined) found.push({ layout, key: name, storage: entry.storage, bytes: entry.bytes, lastUsed: entry.lastUsed });
    }
  }
  return found.sort((a, b) => b.lastUsed.getTime() - a.lastUsed.getTime());
}

/**
 * Drops the entries of earlier layouts that a cache of ours wrote (see above), and the layout's
 * folder once nothing is left in it; the number of entries dropped. Best effort: what cannot be
 * dropped (gone meanwhile, another process's turn, a permission) stays for the next write.
 */
export async function dropObsoleteEntries(directory: string, current: string): Promise<number> {
  let dropped = 0;
  for (const layout of await olderLayouts(directory, current)) {
    const folder = join(directory, layout);
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      const dir = join(folder, name);
      if (name.startsWith(TEMP_PREFIX)) {
        // Ours, whether a process of the earlier layout died writing it or a drop (below) was cut short.
        const temp = await ourEntry(dir, undefined);
        if (temp !== undefined && Date.now() - temp.lastUsed.getTime() > STALE_TEMP_MS) await removeOurs(dir, temp.files);
        continue;
      }
      if (name.startsWith('.') || (await ourEntry(dir, name)) === undefined) continue;
      // Out of the way first: of two processes dropping it at once, one renames it, the other finds nothing.
      const away = join(folder, `${TEMP_PREFIX}${randomUUID()}`);
      try {
        await rename(dir, away);
      } catch {
        continue;
      }
      // Looked at again where no one else drops it: what it holds now is what is removed, ours only.
      const entry = await ourEntry(away, undefined);
      if (entry !== undefined && (await removeOurs(away, entry.files))) dropped++;
    }
    await rmdir(folder).catch(() => undefined);
  }
  return dropped;
}

/** Removes `files` of `dir` by name, then `dir` if that left it empty; whether it is gone. */
async function removeOurs(dir: string, files: readonly string[]): Promise<boolean> {
  try {
    for (const name of files) await unlink(join(dir, name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    await rmdir(dir);
    return true;
  } catch {
    return false;
  }
}
