import { randomUUID } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { SchemaTable } from '../tables/finish-tables.js';
import { flush } from './disk-flush.js';
import { dropObsoleteEntries } from './obsolete-layouts.js';
import { everyLinkFileThere, keepLinkFiles, keptLinkBytes, linkFileName, linkFilesSize, takeKeptLinkFile, type KeptLinkFile, type LinkFileToKeep } from './entry-link-files.js';

/**
 * Built SQL tables kept between runs: a directory of entries, each a DuckDB database file of a
 * storage's tables and what the engine needs to go on filling it (`meta.json`), filed under the
 * key of the storage's state and the product's build (table-cache-key.ts), and, when an export
 * wrote them, `_elements` and `_references` as the Parquet files it exported (entry-link-files.ts: a
 * later export copies them byte for byte, a statement reads them through a view; filled into the
 * database instead they doubled the first export's work and the entry). Private to the user:
 * the directories are made 0700, the files 0600, and a directory that others may read or that
 * belongs to someone else is refused.
 *
 * An entry is written completely or not at all: into a temporary directory beside the entries,
 * each file flushed to disk, then renamed to its key in one step. Two processes keeping the same
 * key at once both succeed: the first rename wins, the other finds the entry there and drops its
 * own. An entry is only ever read by copying its database (never opened where it lies, see
 * sql-engine.ts); one being dropped meanwhile is simply not found. Past `maxBytes` the entries
 * used longest ago are dropped; an entry larger than that alone is not kept.
 */

/** Where it is unless `--cache-dir` says otherwise: `$XDG_CACHE_HOME/storage-inspector`, else `~/.cache/storage-inspector`. */
export function defaultCacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env['XDG_CACHE_HOME'];
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.cache'), 'storage-inspector');
}

export const DEFAULT_CACHE_MAX_BYTES = 8 * 1024 ** 3;

/**
 * Entries of this layout live in a folder of their own: a later layout never reads them. v2: an
 * entry may hold the link tables' Parquet files beside its database (v1 entries are never read).
 */
export const CACHE_LAYOUT = 'tables-v2';
const DATABASE = 'tables.duckdb';
const META = 'meta.json';
const TEMP_PREFIX = '.tmp-';
/** A temporary directory left by a process that died while writing, dropped once this old. */
const STALE_TEMP_MS = 3_600_000;

/** What an entry says besides its database: enough to fill the rest of its tables later. */
export interface CachedTables {
  readonly key: string;
  /** The storage's directory (links resolved), for `cache list`. */
  readonly storage: string;
  readonly tables: readonly SchemaTable[];
  readonly decimals: readonly (readonly [string, string])[];
  /** Entity type ids (decimal) the build met: the plans are made again from the dictionary. */
  readonly entityTypeIds: readonly string[];
  /** Entity types whose tables are filled when a statement first names them. */
  readonly deferred: readonly string[];
  /**
   * Tables filled in the database: type names, `:members:<columns>:<type name>` for a type table
   * filled with some of its members (fill-ledger.ts), and `:objects`, `:commits`, `:links`
   * (`_elements` with `_references`), `:values:<type id>`.
   */
  readonly filled: readonly string[];
  readonly objects: number;
  readonly problems: number;
  /** What the build and the fills reported (unreadable records...), told again when the tables are taken. */
  readonly messages?: readonly string[];
  /** The database file's size. */
  readonly bytes: number;
  /** The link tables kept as Parquet files (they count as filled: `:links`). */
  readonly linkFiles?: readonly KeptLinkFile[];
}

/** What `take` hands over: the description, and where the link files go when taken. */
export interface TakenTables {
  readonly meta: CachedTables;
  /** Per link table kept as a file (`meta.linkFiles`): where `takeLinkFile` copies it, in `take`'s link directory. */
  readonly linkFiles: ReadonlyMap<string, string>;
  /**
   * Copies the entry's file of a link table to its place in `linkFiles` (the directory made
   * private): true when the copy is whole (size and SHA-256 as kept); false when the entry's
   * file is gone or differs (the entry is then dropped: no entry, its tables built again).
   */
  readonly takeLinkFile: (table: string) => Promise<boolean>;
}

export interface CacheEntryInfo {
  readonly key: string;
  readonly storage: string;
  readonly bytes: number;
  readonly lastUsed: Date;
  readonly filled: number;
}

export type KeepResult = 'kept' | 'replaced' | 'exists' | 'too-large';

export class TableCache {
  readonly directory: string;

  constructor(
    directory: string,
    readonly maxBytes: number = DEFAULT_CACHE_MAX_BYTES,
  ) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new Error(`the cache's size limit must be a whole number of bytes, not ${maxBytes}`);
    this.directory = resolve(directory);
  }

  private get entries(): string {
    return join(this.directory, CACHE_LAYOUT);
  }

  /** The entries' folder, made private if missing; refused when someone else could read or change it. */
  private async ready(): Promise<string> {
    for (const dir of [this.directory, this.entries]) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      refuseShared(dir, await lstat(dir));
    }
    return this.entries;
  }

  /**
   * Copies the database of `key` to `target` (a new file): its description, or undefined when
   * there is no whole entry of that key. Its link tables' Parquet files, if any, are only looked
   * at here (there, of the size kept: else the entry is dropped, undefined, nothing left at
   * `target`); `takeLinkFile` copies one into `linkDirectory` when a statement or an export first
   * needs it (at 10M objects ~100 MB copied and hashed, which a statement that never names the
   * link tables paid on every open). Marks the entry used.
   */
  async take(key: string, target: string, linkDirectory?: string): Promise<TakenTables | undefined> {
    const dir = join(await this.ready(), key);
    let meta: CachedTables;
    let metaText: string;
    try {
      metaText = await readFile(join(dir, META), 'utf8');
      meta = JSON.parse(metaText) as CachedTables;
    } catch {
      return undefined;
    }
    if (meta.key !== key) return undefined;
    const linkFiles = new Map<string, string>();
    // Dropped unless another process replaced the entry meanwhile (its files went with the old one).
    const dropIfOurs = async (): Promise<void> => {
      if ((await readFile(join(dir, META), 'utf8').catch(() => undefined)) === metaText) await this.drop(key);
    };
    try {
      const file = join(dir, DATABASE);
      if ((await stat(file)).size !== meta.bytes) return undefined;
      // A clone where the file system can (no bytes copied), else a copy.
      await copyFile(file, target, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
      await chmod(target, 0o600);
      if ((await stat(target)).size !== meta.bytes) {
        await rm(target, { force: true });
        return undefined;
      }
      if ((meta.linkFiles ?? []).length > 0) {
        // A caller that cannot take the files (none here): the entry is not whole for it.
        const whole = linkDirectory !== undefined && (await everyLinkFileThere(dir, meta.linkFiles!));
        if (!whole) {
          await rm(target, { force: true });
          if (linkDirectory !== undefined) await dropIfOurs();
          return undefined;
        }
        for (const kept of meta.linkFiles!) linkFiles.set(kept.table, join(linkDirectory, linkFileName(kept.table)));
      }
      const now = new Date();
      await utimes(join(dir, META), now, now).catch(() => undefined);
    } catch (error) {
      await rm(target, { force: true });
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const takeLinkFile = (table: string): Promise<boolean> => takeKeptLinkFile(dir, table, meta.linkFiles?.find((f) => f.table === table), linkFiles.get(table), linkDirectory, dropIfOurs);
    return { meta, linkFiles, takeLinkFile };
  }

  /**
   * Drops the entry of `key` (one found unusable: its tables are built again and kept anew).
   * Renamed out of the way first, so that a run taking it meanwhile finds it whole or not at all.
   */
  async drop(key: string): Promise<void> {
    const entries = await this.ready();
    const old = join(entries, `${TEMP_PREFIX}${randomUUID()}`);
    try {
      await rename(join(entries, key), old);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    await rm(old, { recursive: true, force: true });
  }

  /**
   * Keeps `database` (a checkpointed DuckDB file nobody writes meanwhile) under `meta.key`, with
   * `linkFiles` (Parquet files nobody writes any more) beside it: written whole to a temporary
   * name, flushed, renamed. `replace`: an entry of the key that is there already gives way (it has
   * fewer tables filled); else it stays.
   */
  async keep(database: string, meta: Omit<CachedTables, 'bytes' | 'linkFiles'>, replace: boolean, linkFiles: readonly LinkFileToKeep[] = []): Promise<KeepResult> {
    const bytes = (await stat(database)).size;
    const linkBytes = await linkFilesSize(linkFiles);
    if (bytes + linkBytes + 64 * 1024 > this.maxBytes) return 'too-large';
    const entries = await this.ready();
    const final = join(entries, meta.key);
    const there = await filledOf(join(final, META));
    if (there !== undefined && (!replace || there >= meta.filled.length)) return 'exists';
    const temp = join(entries, `${TEMP_PREFIX}${randomUUID()}`);
    await mkdir(temp, { mode: 0o700 });
    try {
      await copyFile(database, join(temp, DATABASE), constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
      await chmod(join(temp, DATABASE), 0o600);
      if ((await stat(join(temp, DATABASE))).size !== bytes) throw new Error(`the copy of the tables' database came out shorter than ${bytes} bytes`);
      await flush(join(temp, DATABASE));
      const kept = await keepLinkFiles(temp, linkFiles);
      const description: CachedTables = { ...meta, bytes, ...(kept.length > 0 ? { linkFiles: kept } : {}) };
      await writeFile(join(temp, META), JSON.stringify(description), { mode: 0o600, flag: 'wx' });
      await flush(join(temp, META));
      await flush(temp);
      let result: KeepResult = 'kept';
      if (replace && (await exists(final))) {
        const old = join(entries, `${TEMP_PREFIX}${randomUUID()}`);
        try {
          await rename(final, old);
          result = 'replaced';
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
        await rm(old, { recursive: true, force: true });
      }
      try {
        await rename(temp, final);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // Another process kept the same key first: one whole entry is there, ours goes.
        if (code === 'ENOTEMPTY' || code === 'EEXIST') {
          await rm(temp, { recursive: true, force: true });
          return 'exists';
        }
        throw error;
      }
      await flush(entries);
      await this.trim(meta.key);
      // Entries of earlier layouts are never read: a user who upgraded keeps no dead gigabytes (obsolete-layouts.ts).
      await dropObsoleteEntries(this.directory, CACHE_LAYOUT).catch(() => 0);
      return result;
    } catch (error) {
      await rm(temp, { recursive: true, force: true });
      throw error;
    }
  }

  /** Every whole entry, the one used most lately first. */
  async list(): Promise<CacheEntryInfo[]> {
    const entries = this.entries;
    let names: string[];
    try {
      refuseShared(this.directory, await lstat(this.directory));
      names = await readdir(entries);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const found: CacheEntryInfo[] = [];
    for (const name of names) {
      if (name.startsWith('.')) continue;
      try {
        const metaPath = join(entries, name, META);
        const meta = JSON.parse(await readFile(metaPath, 'utf8')) as CachedTables;
        found.push({ key: name, storage: meta.storage, bytes: entryBytes(meta), lastUsed: (await stat(metaPath)).mtime, filled: meta.filled.length });
      } catch {
        // being written or dropped by another process
      }
    }
    return found.sort((a, b) => b.lastUsed.getTime() - a.lastUsed.getTime());
  }

  /**
   * Drops every entry (and what dead processes left, and the entries of earlier layouts, which
   * no run reads); the number of entries dropped.
   */
  async clear(): Promise<number> {
    let names: string[];
    let dropped = 0;
    try {
      refuseShared(this.directory, await lstat(this.directory));
      for (const layout of await readdir(this.directory)) {
        if (!/^tables-v\d+$/.test(layout) || layout === CACHE_LAYOUT) continue;
        dropped += (await readdir(join(this.directory, layout)).catch(() => [])).filter((name) => !name.startsWith('.')).length;
        await rm(join(this.directory, layout), { recursive: true, force: true });
      }
      names = await readdir(this.entries);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return dropped;
      throw error;
    }
    for (const name of names) {
      if (!name.startsWith('.')) dropped++;
      await rm(join(this.entries, name), { recursive: true, force: true });
    }
    return dropped;
  }

  /** Drops the entries used longest ago until all fit `maxBytes` (`keepKey` last), and stale temporary directories. */
  private async trim(keepKey: string): Promise<void> {
    const entries = this.entries;
    for (const name of await readdir(entries)) {
      if (!name.startsWith(TEMP_PREFIX)) continue;
      const stats = await lstat(join(entries, name)).catch(() => undefined);
      if (stats !== undefined && Date.now() - stats.mtimeMs > STALE_TEMP_MS) await rm(join(entries, name), { recursive: true, force: true });
    }
    const all = await this.list();
    let total = all.reduce((n, e) => n + e.bytes, 0);
    const oldestFirst = [...all].reverse().sort((a, b) => Number(a.key === keepKey) - Number(b.key === keepKey));
    for (const entry of oldestFirst) {
      if (total <= this.maxBytes) break;
      await rm(join(entries, entry.key), { recursive: true, force: true });
      total -= entry.bytes;
    }
  }
}

/** What an entry takes on disk: its database and its link files. */
function entryBytes(meta: CachedTables): number {
  return meta.bytes + keptLinkBytes(meta.linkFiles);
}

function refuseShared(dir: string, stats: Stats): void {
  if (!stats.isDirectory()) throw new Error(`the SQL cache ${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) throw new Error(`the SQL cache ${dir} belongs to another user; give --cache-dir a directory of your own`);
  if ((stats.mode & 0o077) !== 0) throw new Error(`the SQL cache ${dir} may be read or changed by other users (mode ${(stats.mode & 0o777).toString(8)}); make it private (chmod 700) or give another --cache-dir`);
}

/** How many tables the entry of this description has filled; undefined when there is none. */
async function filledOf(metaPath: string): Promise<number | undefined> {
  try {
    return (JSON.parse(await readFile(metaPath, 'utf8')) as CachedTables).filled.length;
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
