import { StorageError } from '../errors.js';
import { MICROSTREAM, type StorageFamily } from '../format/storage-family.js';
import { parseTypeDictionary, type TypeDictionary } from '../format/type-dictionary.js';
import { ConsistencyGate } from './consistency-gate.js';
import { readStorageLock, type StorageLockInfo } from './source/storage-lock.js';
import { RecordCache, type RecordCacheStats } from './record-cache.js';
import { readLatestRecord } from './entity-read.js';
import { damagedFiles, StorageWarnings } from './storage-warnings.js';
import type { StorageSource } from './source/source.js';
import type { SeenProblem } from './follow-problems.js';
import type { ChannelState } from './channel-state.js';
import type { ShortFile, StorageChangeListener, StorageChannel, StoredEntity } from './storage-types.js';

/**
 * What an opened storage is and answers from its state: the type dictionary, the roots, the
 * channels with their index, the warnings and conditions, an object's latest record, a file's
 * bytes, one consistent state per request. How that state is opened and kept up to date (the
 * refreshes, a continuation of another storage) is storage.ts's `Storage`, which extends this.
 */
export abstract class StorageState {
  dictionary: TypeDictionary = parseTypeDictionary('');
  /** The dictionary file's bytes: what `/dictionary` serves. */
  dictionaryBytes: Buffer = Buffer.alloc(0);
  /** MicroStream or EclipseStore, read from the dictionary (follows it when it is rewritten). */
  family: StorageFamily = MICROSTREAM;
  rootObjectId = 0n;
  /** The roots entity (`PersistenceRoots`), 0 when there is none: where reachability starts. */
  rootsObjectId = 0n;
  protected readonly told = new StorageWarnings();
  /** Problems tolerated so far (damaged records, files Java would refuse), for the operator. */
  readonly warnings: string[] = this.told.warnings;
  /**
   * Data files found shorter than their log commits so far (each also in `warnings`): what lost
   * its tail, as data for those who tell answers the lost part may contradict.
   */
  readonly shortFiles: ShortFile[] = this.told.shortFiles;
  /** Incremented whenever the visible state changes. */
  generation = 0;
  /** Timestamp of the last complete commit (epoch nanoseconds, as in the logs); 0 when unknown. */
  lastCommitTimestamp = 0n;

  protected channelStates: ChannelState[] = [];
  protected readonly gate = new ConsistencyGate();
  protected status: 'open' | 'closed' = 'open';
  protected readonly changeListeners: StorageChangeListener[] = [];
  /** Data files shorter than their committed bytes, as of the latest refresh. */
  protected truncations: readonly SeenProblem[] = [];
  protected typeCounts: Map<bigint, number> | undefined;
  /** Records read lately (undefined when none are kept). */
  protected readonly records: RecordCache | undefined;

  /** The storage as the user named it: the directory as given, or the source's location. */
  readonly directory: string;

  protected constructor(
    /** Where the files are kept. */
    readonly source: StorageSource,
    recordCacheBytes: number,
  ) {
    this.directory = source.location;
    this.records = recordCacheBytes > 0 ? new RecordCache(recordCacheBytes) : undefined;
  }

  /**
   * Latest records per type id as of opening (`OpenOptions.countLatestTypes`), undefined when
   * not counted or once the state changed.
   */
  get latestTypeCounts(): ReadonlyMap<bigint, number> | undefined {
    return this.generation === 1 ? this.typeCounts : undefined;
  }

  get channels(): readonly StorageChannel[] {
    return this.channelStates;
  }

  /** How the cache of records read lately did (undefined when it keeps none). */
  get recordCache(): RecordCacheStats | undefined {
    return this.records?.stats();
  }

  /** Number of distinct object ids across all channels. */
  get entityCount(): number {
    return this.channelStates.reduce((n, c) => n + c.objects.size, 0);
  }

  /**
   * What is wrong with the storage as of the latest refresh, and lasts until it is repaired: data
   * files shorter than the bytes their log commits (committed records cut off), damaged records
   * where the walk of a file stopped. A follower reports these when they appear and clear.
   */
  get conditions(): readonly SeenProblem[] {
    return [...this.truncations, ...damagedFiles(this.channelStates)];
  }

  /** Runs a request against one consistent state (no update is applied while it runs). */
  consistent<T>(fn: () => Promise<T>): Promise<T> {
    return this.gate.read(fn);
  }

  /**
   * The latest record of an object, or undefined when the id is not an entity of this storage.
   * Like Java, only the channel `id & (channels - 1)` is asked.
   */
  readEntity(objectId: bigint): Promise<StoredEntity | undefined> {
    if (this.status !== 'open') throw new StorageError('STORAGE_NOT_OPEN', 'the storage is closed');
    return readLatestRecord(this.channelStates, this.records, this.source, objectId);
  }

  /**
   * Hears every later change of the visible state, inside the consistent step that applies it
   * (no request runs meanwhile). Returns a function that stops listening.
   */
  onChange(listener: StorageChangeListener): () => void {
    this.changeListeners.push(listener);
    return () => {
      const index = this.changeListeners.indexOf(listener);
      if (index >= 0) this.changeListeners.splice(index, 1);
    };
  }

  /**
   * The storage's `used.lock` as it is now: whether a process (a running Java application)
   * claims the storage, since when and until when. Read on every call; never created, changed
   * or honoured.
   */
  readLockFile(nowMillis: number = Date.now()): Promise<StorageLockInfo> {
    return readStorageLock(this.directory, nowMillis);
  }

  /** Exactly `length` bytes of a storage file (as named by `StorageFile.path`) at `position`. */
  readFileRange(path: string, position: number, length: number): Promise<Buffer> {
    return this.source.read(path, position, length);
  }

  /** How Java's storage prints the path of a data file (file statistics). */
  javaFilePath(channelDirectoryName: string, fileName: string): string {
    return this.source.javaFilePath(channelDirectoryName, fileName);
  }

  async close(): Promise<void> {
    this.status = 'closed';
    await this.source.close();
  }

  protected warn(message: string): void {
    this.told.warn(message);
  }
}
