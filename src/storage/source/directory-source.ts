import { lstatSync, readdirSync, realpathSync, statSync, watch, type BigIntStats, type FSWatcher } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { StorageError } from '../../errors.js';
import { FileReader } from './file-reader.js';
import { kindOf, openRegularFile, readRegularFile } from './regular-file.js';
import type { RootListing, SourceFile, SourceFolder, SourceReader, SourceReads, SourceWatch, StorageSource } from './source.js';
import { nearbyStorageHint } from './nearby-storages.js';

/**
 * A storage kept in a directory, read through node:fs: files are opened read-only and never
 * written, locked or truncated. Paths are the directory as given joined with the names.
 *
 * Only what belongs to the storage is read: a symbolic link is followed only when its target
 * lies inside the storage directory (unless `allowExternalLinks`), and only regular files are
 * opened (a FIFO would block, a device never ends). Entries refused are listed with the reason,
 * so that a storage file refused is named in the error (storage-dir.ts); others are ignored.
 */

export interface DirectorySourceOptions {
  /** Follow symbolic links that lead outside the storage directory (e.g. channels on another disk). */
  readonly allowExternalLinks?: boolean;
}

const DEFAULT_MAX_WHOLE_FILE_BYTES = Number.MAX_SAFE_INTEGER;
/**
 * Directory entries looked at (synchronously, one after the other) before the event loop gets a
 * turn: a local `lstat` takes microseconds, and the listing of a channel of the 100M benchmark
 * storage (228 files) took 3–6 ms in synchronous calls where the same calls awaited on libuv's
 * threads, 64 at a time, took 12–20 ms (30 ms beside the starting index threads) before those
 * threads could be given their channels. Few at a time, so that a slow file system (a network
 * mount) holds up other requests for a short while only.
 */
const ENTRIES_PER_TURN = 16;

export class DirectorySource implements StorageSource, SourceReader {
  readonly kind = 'directory';
  private readonly reader = new FileReader();
  /** The storage directory with every link resolved, as of the last listing. */
  private realRoot: string | undefined;

  constructor(
    /** The directory as given by the user (statistics print file paths below it). */
    readonly location: string,
    private readonly options: DirectorySourceOptions = {},
  ) {}

  snapshot<T>(fn: (reader: SourceReader) => Promise<T>): Promise<T> {
    return fn(this);
  }

  rootFilePath(name: string): string {
    return join(this.location, name);
  }

  async listRoot(): Promise<RootListing> {
    const directory = this.location;
    let dirStat: BigIntStats;
    try {
      dirStat = statSync(directory, { bigint: true });
    } catch (cause) {
      throw new StorageError('STORAGE_NOT_A_STORAGE', `${directory}: cannot read the storage directory (${errorText(cause)}).${nearbyStorageHint(directory)}`, { cause });
    }
    if (!dirStat.isDirectory()) {
      throw new StorageError('STORAGE_NOT_A_STORAGE', `${directory} is not a directory.${nearbyStorageHint(directory)}`);
    }
    this.realRoot = realpathSync(directory);
    const files: SourceFile[] = [];
    const folders: SourceFolder[] = [];
    await this.eachEntry(directory, readdirSync(directory), (entry) => {
      if (entry.kind === 'folder') folders.push(entry.folder);
      else files.push(entry.file);
    });
    return { files, folders };
  }

  async listFolder(folder: SourceFolder): Promise<readonly SourceFile[]> {
    if (folder.refused !== undefined) throw new StorageError('STORAGE_REFUSED', `${folder.path} ${folder.refused}`);
    const files: SourceFile[] = [];
    // One after the other, the log first (see logsFirst).
    await this.eachEntry(folder.path, logsFirst(readdirSync(folder.path)), (entry) => {
      if (entry.kind === 'file') files.push(entry.file);
    });
    return files;
  }

  /** Looks at the entries `names` of `directory` in order, giving the event loop a turn now and then. */
  private async eachEntry(directory: string, names: readonly string[], found: (entry: ListedEntry) => void): Promise<void> {
    for (let at = 0; at < names.length; at++) {
      if (at > 0 && at % ENTRIES_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      const name = names[at]!;
      const entry = this.entry(name, join(directory, name));
      if (entry !== undefined) found(entry);
    }
  }

  /**
   * One directory entry as the storage may see it: links followed only into the storage
   * directory, anything but directories and regular files listed as refused; undefined when it is
   * gone since the listing.
   */
  private entry(name: string, path: string): ListedEntry | undefined {
    const own = statOrNothing(path, lstatSync);
    if (own === undefined) return undefined;
    let info: BigIntStats = own;
    let refused: string | undefined;
    if (own.isSymbolicLink()) {
      const target = realTarget(path);
      const followed = target === undefined ? undefined : statOrNothing(target, statSync);
      if (target === undefined || followed === undefined) {
        const why = linkLoops(path) ? 'is a symbolic link that loops' : 'is a symbolic link to nothing that exists';
        return { kind: 'file', file: refusedFile(name, path, why) };
      }
      info = followed;
      if (!this.options.allowExternalLinks && !inside(this.realRoot ?? this.location, target)) {
        refused = 'is a symbolic link that leads outside the storage directory; refusing to read it (--allow-external-links allows it)';
      }
    }
    if (info.isDirectory()) return { kind: 'folder', folder: refused === undefined ? { name, path } : { name, path, refused } };
    if (!info.isFile()) refused ??= `is not a regular file (it is ${kindOf(info)}); refusing to read it`;
    return { kind: 'file', file: refused === undefined ? fileOf(name, path, info) : refusedFile(name, path, refused) };
  }

  async read(path: string, position: number, length: number): Promise<Buffer> {
    try {
      return await this.reader.read(path, position, length);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new StorageError('STORAGE_FILE_GONE', `${path} was deleted while being read`, { cause: error });
      }
      throw error;
    }
  }

  chunks(path: string, from: number, to: number): AsyncIterable<Uint8Array> {
    return readFileChunks(path, from, to);
  }

  readWhole(path: string, limit?: { readonly maxBytes: number; readonly tooLarge: (size: number) => Error }): Promise<Buffer> {
    return readRegularFile(path, limit?.maxBytes ?? DEFAULT_MAX_WHOLE_FILE_BYTES, limit?.tooLarge ?? ((size) => new Error(`${path}: ${size} bytes`)));
  }

  javaFilePath(folder: string, name: string): string {
    return `${javaDirectoryText(this.location)}/${folder}/${name}`;
  }

  watch(onChange: () => void): SourceWatch {
    return new DirectoryWatch(this.location, onChange);
  }

  forget(path: string): void {
    void this.reader.forget(path);
  }

  async close(): Promise<void> {
    await this.reader.close();
  }
}

type ListedEntry = { kind: 'file'; file: SourceFile } | { kind: 'folder'; folder: SourceFolder };

/** A path's (or a link's own) status, or undefined when it cannot be looked at (gone since the listing, no permission). */
function statOrNothing(path: string, how: typeof lstatSync): BigIntStats | undefined {
  try {
    return how(path, { bigint: true });
  } catch {
    return undefined;
  }
}

/** Where a symbolic link leads, or undefined when it leads nowhere. */
function realTarget(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** A link that leads back to itself (directly or through others). */
function linkLoops(path: string): boolean {
  try {
    statSync(path);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ELOOP';
  }
}

/** Reading local files by path, without a storage around them (the writer's look at existing files). */
export const LOCAL_FILES: SourceReads = new DirectorySource('.');

function fileOf(name: string, path: string, info: { size: bigint; mtimeNs: bigint; ino: bigint }): SourceFile {
  return { name, path, size: Number(info.size), stamp: `${info.size}:${info.mtimeNs}:${info.ino}` };
}

function refusedFile(name: string, path: string, refused: string): SourceFile {
  return { name, path, size: 0, stamp: `refused:${refused}`, refused };
}

/** Whether `target` (a real path) is `root` or below it. */
function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Java's `File` drops trailing separators; the root stays `/`. */
export function javaDirectoryText(directory: string): string {
  const trimmed = directory.replace(/\/+$/, '');
  return trimmed === '' ? (directory.startsWith('/') ? '' : '.') : trimmed;
}

const CHUNK = 8 * 1024 * 1024;

/** Read buffer pairs (one is read while the other is walked), reused by passes that follow each other. */
const idleBuffers: [Buffer, Buffer][] = [];
const MAX_IDLE_PAIRS = 2;

function acquireBuffers(): [Buffer, Buffer] {
  return idleBuffers.pop() ?? [Buffer.allocUnsafeSlow(CHUNK), Buffer.allocUnsafeSlow(CHUNK)];
}

function releaseBuffers(pair: [Buffer, Buffer]): void {
  if (idleBuffers.length < MAX_IDLE_PAIRS) idleBuffers.push(pair);
}

/**
 * `[from, to)` of a file in large sequential reads: the next chunk is read ahead into the other
 * buffer of a pair while the caller walks the current one. Ends early where the file ends.
 */
async function* readFileChunks(path: string, from: number, to: number): AsyncGenerator<Uint8Array> {
  if (from >= to) return;
  const handle = await openRegularFile(path);
  const readChunk = async (buffer: Buffer, at: number): Promise<number> => {
    const want = Math.min(buffer.length, to - at);
    let fill = 0;
    while (fill < want) {
      const { bytesRead } = await handle.read(buffer, fill, want - fill, at + fill);
      if (bytesRead === 0) break;
      fill += bytesRead;
    }
    return fill;
  };
  const buffers = acquireBuffers();
  let pending: Promise<number> | undefined = readChunk(buffers[0], from);
  try {
    let which = 0;
    let position = from;
    while (pending !== undefined) {
      const fill = await pending;
      pending = undefined;
      const want = Math.min(CHUNK, to - position);
      const next = position + fill;
      if (fill === want && next < to) pending = readChunk(buffers[1 - which]!, next);
      if (fill > 0) yield buffers[which]!.subarray(0, fill);
      position = next;
      which = 1 - which;
    }
  } finally {
    // A read ahead may still be filling a buffer: let it land before closing and reusing.
    await pending?.catch(() => undefined);
    await handle.close();
    releaseBuffers(buffers);
  }
}

/** Watches the storage directory and its channel directories for changes. */
class DirectoryWatch implements SourceWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private closed = false;

  constructor(
    private readonly directory: string,
    private readonly onChange: () => void,
  ) {
    this.watchFolders([]);
  }

  watchFolders(folders: readonly string[]): void {
    if (this.closed) return;
    for (const dir of [this.directory, ...folders.map((f) => join(this.directory, f))]) {
      if (this.watchers.has(dir)) continue;
      try {
        const watcher = watch(dir, { persistent: false }, () => this.onChange());
        watcher.on('error', () => {
          watcher.close();
          this.watchers.delete(dir);
        });
        this.watchers.set(dir, watcher);
      } catch {
        // No events for this directory (e.g. inotify limits): polling still covers it.
      }
    }
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}

function errorText(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * A channel folder's transaction logs (`*.sft`) are looked at before its data files. MicroStream
 * and EclipseStore append a store's records to the data file before they log it, so data file
 * sizes taken after the log's size hold everything that log size commits. In directory order
 * (hash order on ext4) a commit landing between the two looks made a following reader see a log
 * committing bytes past the data file's end: a cut record and a 500 for the newest object.
 */
function logsFirst(names: readonly string[]): string[] {
  const isLog = (name: string): boolean => name.endsWith('.sft');
  return [...names.filter(isLog), ...names.filter((name) => !isLog(name))];
}
