/**
 * Where a storage's files are kept. MicroStream writes the same files (type dictionary, channel
 * folders with data files and transaction logs) to a directory or, through its file-system
 * connectors, to other stores such as SQL tables. Everything above this interface sees files by
 * the names MicroStream gives them; only the implementations (`directory-source.ts`,
 * `postgres-source.ts`) know how they are kept.
 *
 * Every implementation is read-only: nothing it does creates, locks, changes or deletes anything
 * in the store.
 */

/** One file of the storage root or of one of its folders. */
export interface SourceFile {
  /** The file name, e.g. `channel_0_1.dat`. */
  readonly name: string;
  /** How messages name the file; also what reads are addressed with. */
  readonly path: string;
  readonly size: number;
  /** Differs whenever the content may have changed by other means than appending. */
  readonly stamp: string;
  /** Why the file reads shorter than it is stored (damaged rows of a table), for the operator. */
  readonly problem?: string;
  /**
   * Why this file must not be read, when the source refuses it (a link leading out of the storage,
   * something that is not a regular file): listed so that a storage file refused names itself.
   */
  readonly refused?: string;
}

/** A folder below the storage root (the channel folders `channel_<i>`). */
export interface SourceFolder {
  readonly name: string;
  /** How messages name the folder (a directory path, a table name). */
  readonly path: string;
  /** Why this folder must not be read (a link leading out of the storage). */
  readonly refused?: string;
}

export interface RootListing {
  readonly files: readonly SourceFile[];
  readonly folders: readonly SourceFolder[];
}

/** Reading files by path. */
export interface SourceReads {
  /**
   * Exactly `length` bytes at `position`: a FormatError (FORMAT_TRUNCATED) when the file ends
   * before, a StorageError (STORAGE_FILE_GONE) when the file no longer exists. `committedLength`,
   * when given, says how much of the file is committed and never rewritten (what a source may cache).
   */
  read(path: string, position: number, length: number, committedLength?: number): Promise<Buffer>;
  /**
   * The bytes `[from, to)` as consecutive chunks, for one sequential pass; ends early where the
   * file ends. A chunk is only valid until the next one is asked for (buffers are reused).
   */
  chunks(path: string, from: number, to: number): AsyncIterable<Uint8Array>;
  /**
   * A whole (small) file, such as the type dictionary. With `maxBytes`, a file longer than that
   * is refused by throwing `tooLarge(size)` before more than the limit is read.
   */
  readWhole(path: string, limit?: { readonly maxBytes: number; readonly tooLarge: (size: number) => Error }): Promise<Buffer>;
}

/** What one state of the storage is read through. */
export interface SourceReader extends SourceReads {
  /**
   * Every answer belongs to one instant of the store (a database transaction), so the order of
   * the looks does not matter; a directory changes while it is looked at (see storage-dir.ts).
   */
  readonly oneInstant?: boolean;
  /** The files and folders of the storage root; a StorageError when the root cannot be read. */
  listRoot(): Promise<RootListing>;
  /** The files of a folder listed by `listRoot`. */
  listFolder(folder: SourceFolder): Promise<readonly SourceFile[]>;
}

/** File system events, where a source has them; polling covers whatever they miss. */
export interface SourceWatch {
  /** Watches the storage root and these folders as well (idempotent). */
  watchFolders(folders: readonly string[]): void;
  close(): void;
}

export interface StorageSource extends SourceReads {
  /** The storage as the user named it (a directory as given, a database URL without password). */
  readonly location: string;
  /** `directory`, `postgresql`: for messages and for what only some sources can do. */
  readonly kind: string;
  /**
   * Runs `fn` with a reader whose answers all belong to one instant of the store, where the store
   * can promise that (a database transaction); a directory is read as it is while `fn` runs.
   */
  snapshot<T>(fn: (reader: SourceReader) => Promise<T>): Promise<T>;
  /** How Java's storage prints the path of a file of a channel folder (file statistics). */
  javaFilePath(folder: string, name: string): string;
  /**
   * How messages name a file of the storage root, also one that is not there (a missing type
   * dictionary): the same path a listing gives it.
   */
  rootFilePath(name: string): string;
  /** Starts file system events (sources without events leave this out: polling only). */
  watch?(onChange: () => void): SourceWatch;
  /**
   * Sequential reads for work in the background (the graph index build) over connections of
   * their own, where the source has connections: requests do not wait behind them.
   */
  readonly background?: Pick<SourceReads, 'chunks'>;
  /** Drops whatever is kept about a file (open descriptors, cached bytes): it was deleted or replaced. */
  forget(path: string): void;
  close(): Promise<void>;
}
