import type { ObjectIndex } from './index/object-index.js';
import type { SharedIndexWorkers } from './index/shared-index-workers.js';
import type { ScanProblem } from './records/record-scan.js';
import type { SourceReader } from './source/source.js';
import type { StorageLayout } from './source/storage-dir.js';
import type { ValidStorage } from './valid-lengths.js';

/** What an opened storage tells about itself, its records and its changes (see storage.ts). */

export interface StorageFile {
  readonly channel: number;
  /** The file's slot in its channel: what the object index stores (see `StorageChannel.fileAt`). */
  readonly slot: number;
  readonly fileNumber: bigint;
  readonly name: string;
  readonly path: string;
  /** Committed bytes (what Java counts as the file's total length). */
  readonly totalLength: number;
  /** Sum of the lengths of the latest records of the objects whose latest record is here. */
  readonly liveLength: number;
  /**
   * Bytes of EclipseStore 4.2 meta records (file header, chunk checksums): part of the total
   * length, never live; 0 for files written without chunk checksums.
   */
  readonly metaLength: number;
  /** Where and why the walk of this file stopped before its end, if it did. */
  readonly problem: ScanProblem | undefined;
}

export interface StorageChannel {
  readonly index: number;
  readonly directoryName: string;
  /** Oldest to head file. */
  readonly files: readonly StorageFile[];
  readonly objects: ObjectIndex;
  /** The file behind a file slot of the object index (undefined once deleted). */
  fileAt(slot: number): StorageFile | undefined;
}

/** A data file shorter on disk than its transaction log commits: committed records were lost with its tail. */
export interface ShortFile {
  readonly path: string;
  /** Bytes on disk, where the file now ends. */
  readonly onDisk: number;
  /** Bytes the transaction log commits. */
  readonly committed: number;
}

/** The latest stored record of one object. */
export interface StoredEntity {
  readonly objectId: bigint;
  readonly typeId: bigint;
  /** Record content after the 24-byte header. */
  readonly content: Uint8Array;
  readonly file: string;
  /** Offset of the record in its file. */
  readonly offset: number;
}

export interface OpenProgress {
  readonly filesDone: number;
  readonly filesTotal: number;
  readonly bytesDone: number;
  readonly bytesTotal: number;
  readonly entities: number;
}

export interface OpenOptions {
  /** Called after each channel (or data file) has been indexed during the first load. */
  readonly onProgress?: (progress: OpenProgress) => void;
  /**
   * Decides which bytes of which data files are committed, instead of the transaction logs as
   * they are now (Java's rule): e.g. the state as of an earlier commit (`committedLengthsAt` in
   * point-in-time.ts). The storage then shows that fixed state: `refresh()` changes nothing.
   */
  readonly committedLengths?: CommittedLengths;
  /** A directory: follow symbolic links that lead outside it (refused by default). */
  readonly allowExternalLinks?: boolean;
  /** The type dictionary is refused beyond this size (default 64 MiB); also while following. */
  readonly maxDictionaryBytes?: number;
  /**
   * Worker threads that index the channels of a directory storage during the first load (one
   * channel per thread at a time). Default: one per processor, for storages of 512 MiB and more;
   * 0 indexes in this thread.
   */
  readonly indexThreads?: number;
  /**
   * Index worker threads to borrow instead of starting a pool of its own (storages opened one
   * after another, a diff's two sides: the threads start once); the caller ends them.
   */
  readonly indexWorkers?: SharedIndexWorkers;
  /**
   * Bytes of records read lately kept in memory, to answer them again without the files
   * (record-cache.ts). Default 64 MiB, taken as records are read; 0 keeps none.
   */
  readonly recordCacheBytes?: number;
  /**
   * Counts the latest records per type while the index is built in one go (`Storage.
   * latestTypeCounts`, a diff's unchanged objects per type): 4 bytes an object while it is built.
   */
  readonly countLatestTypes?: boolean;
}

/** A type dictionary larger than this is refused unless the limit is raised (`--max-dictionary-bytes`). */
export const DEFAULT_MAX_DICTIONARY_BYTES = 64 * 1024 * 1024;

/** Which bytes of the data files of a storage form the state to show (read through `reader`). */
export type CommittedLengths = (layout: StorageLayout, reader: SourceReader) => Promise<ValidStorage>;

/**
 * What one refresh changed, for those who keep state derived from the records (the graph index):
 * told inside the same consistent step that applies the change, so requests see both or neither.
 */
export interface StorageChange {
  /** The index was built anew (a log was replaced, a committed range shrank): anything may differ. */
  readonly rebuilt: boolean;
  readonly dictionaryChanged: boolean;
  /** Records that became the latest of their object, in the order applied (none when rebuilt). */
  readonly stored: StoredRecordList;
  /** Objects whose latest record went away with a deleted file, as (id low, id high) pairs. */
  readonly lost: Int32Array;
}

/**
 * Records as `RECORD_WORDS` words each: id low, id high, channel, file slot, offset, and the
 * previous latest record's file slot (-1 for a new object) and offset.
 */
export interface StoredRecordList {
  readonly count: number;
  readonly words: Int32Array;
}

export const RECORD_WORDS = 7;

export type StorageChangeListener = (change: StorageChange) => void | Promise<void>;

/** What one refresh did. */
export interface RefreshResult {
  /** The visible state changed (new commit, new dictionary, files added or removed). */
  readonly changed: boolean;
  /** Why the directory could not be taken over yet (e.g. a dictionary being rewritten). */
  readonly deferred?: string;
}
