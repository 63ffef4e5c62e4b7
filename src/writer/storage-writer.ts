import type { ChunkAlgorithm } from '../format/chunk-checksums.js';
import { StorageError } from '../errors.js';
import { detectFamily, type FamilyName } from '../format/storage-family.js';
import { createTypeDictionary, type TypeEntry } from '../format/type-dictionary.js';
import { builtinObjects, FIRST_OBJECT_ID } from './builtins.js';
import type { FieldValue } from './entity-encoder.js';
import { readExistingStorage, type ReadExistingOptions } from './existing-storage.js';
import { prepareNewDirectory } from './new-storage-directory.js';
import { planStoreWrites } from './plan-store-writes.js';
import {
  enumRootIdentifier,
  OBJECT_ARRAY_TYPE_NAME,
  ROOT_IDENTIFIER,
  ROOT_REFERENCE_TYPE_NAME,
  ROOTS_TYPE_NAME,
  type RootsRegistry,
} from './roots-registry.js';
import { StoreBuilder } from './store-builder.js';
import { StoreClock } from './store-clock.js';
import { StoreFiles } from './store-files.js';
import type { ChannelHead, PlannedWrite, StoreCut, StorePlan } from './store-plan.js';
import { WriterDictionary } from './writer-dictionary.js';
import { writerFamily, type WriterFamily } from './writer-family.js';
import { freshChannels, type WriterState } from './writer-state.js';

/**
 * Writes MicroStream 4.1 (or EclipseStore 4.1, `family`) storages the way Java does
 * (storage-format.md §11): every store is one
 * transaction appended to each channel's head file, with one store log entry per channel carrying
 * the same timestamp and the new head length; full head files are rolled over to number + 1 with
 * a creation entry first; the dictionary is rewritten canonically whenever types are added; the
 * roots entity and the root reference are kept consistent.
 *
 * Not thread-safe, one writer per directory, and nothing else may write the directory meanwhile.
 */

export const DEFAULT_FILE_MAXIMUM_SIZE = 8 * 1024 * 1024;

export interface StorageWriterOptions {
  /** The product line of a new storage (`microstream`: MicroStream 4.1, the default; `eclipsestore`: EclipseStore 4.1); an existing one keeps its own. */
  readonly family?: FamilyName;
  /** Channels of a new storage (a power of two, 1..1024); for an existing one it must match if given. */
  readonly channelCount?: number;
  /** A head file at or above this size is rolled over before the next store (Java default 8 MiB). */
  readonly fileMaximumSize?: number;
  /** Epoch milliseconds for log timestamps (default `Date.now`). */
  readonly now?: () => number;
  /**
   * Chunk checksums as EclipseStore 4.2 writes them (a file header opening each data file, a
   * checksum record after each store's bytes of a channel): `crc32c`, `sha256` (chained), or
   * `none` (the default: the 4.1 format). Only for a new storage.
   */
  readonly checksums?: ChunkAlgorithm | 'none';
}

export interface StoreResult {
  readonly timestamp: bigint;
  readonly records: number;
  readonly dataBytes: number;
  readonly createdFiles: number;
  /** False when the store was cut short (see `StoreCut`); the writer is then unusable. */
  readonly complete: boolean;
}

export class StorageWriter {
  private readonly clock: StoreClock;
  private readonly fileMaximumSize: number;
  private readonly checksums: ChunkAlgorithm | undefined;
  private readonly files: StoreFiles;
  private rootReferenceDirty = false;
  private rootsDirty = false;
  private broken: string | undefined;
  private closed = false;
  /** A `storeInBackground` is under way. */
  private writing = false;
  private repairList: readonly string[] = [];

  private constructor(
    readonly directory: string,
    readonly channelCount: number,
    private readonly state: WriterState,
    options: StorageWriterOptions,
    latestTimestamp: bigint,
  ) {
    this.fileMaximumSize = options.fileMaximumSize ?? DEFAULT_FILE_MAXIMUM_SIZE;
    if (!(this.fileMaximumSize > 0)) throw new RangeError(`invalid file maximum size ${this.fileMaximumSize}`);
    const checksums = options.checksums ?? 'none';
    if (checksums !== 'none' && checksums !== 'crc32c' && checksums !== 'sha256') throw new RangeError(`unknown chunk checksum algorithm ${String(checksums)}`);
    this.checksums = checksums === 'none' ? undefined : checksums;
    this.clock = new StoreClock(options.now, latestTimestamp);
    this.files = new StoreFiles(directory);
  }

  /**
   * Creates a new storage in a missing or empty directory and writes what Java's first start
   * writes: the dictionary, data file 1 and the log of every channel, and one store with the 27
   * built-in objects.
   */
  static create(directory: string, options: StorageWriterOptions = {}): StorageWriter {
    const channelCount = prepareNewDirectory(directory, options.channelCount ?? 1);
    const family = writerFamily(options.family ?? 'microstream');
    const dictionary = WriterDictionary.base(family);
    const builtins = builtinObjects(dictionary, family);
    const state: WriterState = {
      family,
      dictionary,
      writtenDictionaryRevision: -1,
      channels: freshChannels(channelCount),
      nextObjectId: builtins.nextObjectId,
      roots: builtins.roots,
      rootReferenceId: builtins.rootReferenceId,
      rootObjectId: 0n,
      enumConstants: new Map(builtins.enumConstants),
    };
    const writer = new StorageWriter(directory, channelCount, state, options, 0n);
    const store = writer.beginStore();
    for (const entity of builtins.entities) store.add(entity.entry, entity.objectId, entity.values);
    writer.store(store);
    return writer;
  }

  /**
   * Creates a new storage in a missing or empty directory that receives complete records copied
   * from another storage (`StoreBuilder.addRecord`), e.g. to rescue a damaged one: the dictionary
   * is the given text (written as it is with the first store), no built-in objects are stored,
   * and the roots are whatever records are copied (`setRoot` and `storeEnum` are not available).
   */
  static createForRecords(directory: string, dictionaryText: string, options: StorageWriterOptions = {}): StorageWriter {
    const channelCount = prepareNewDirectory(directory, options.channelCount ?? 1);
    const dictionary = WriterDictionary.parse(dictionaryText);
    const state: WriterState = {
      // The parsed entries once more, not the text (a dictionary of 64 MiB took a parse of its own).
      family: writerFamily(detectFamily(createTypeDictionary(dictionary.entries)).name),
      dictionary,
      writtenDictionaryRevision: -1,
      channels: freshChannels(channelCount),
      nextObjectId: FIRST_OBJECT_ID,
      roots: undefined,
      rootReferenceId: 0n,
      rootObjectId: 0n,
      enumConstants: new Map(),
    };
    return new StorageWriter(directory, channelCount, state, options, 0n);
  }

  /**
   * Opens an existing storage (written by this writer or by Java) to append stores: continues
   * file numbers, object ids, type ids, timestamps and the roots. With `repairTails`, crash tails
   * are cut first (see `readExistingStorage`); otherwise a storage with uncommitted bytes is refused.
   */
  static async open(directory: string, options: StorageWriterOptions & ReadExistingOptions = {}): Promise<StorageWriter> {
    if ((options.checksums ?? 'none') !== 'none') throw new RangeError('chunk checksums are written only into a new storage');
    const existing = await readExistingStorage(directory, options);
    if (options.channelCount !== undefined && options.channelCount !== existing.channelCount) {
      throw new StorageError('STORAGE_INCONSISTENT', `${directory} has ${existing.channelCount} channels, not ${options.channelCount}`);
    }
    if (existing.roots === undefined || existing.rootReferenceId === undefined) {
      throw new StorageError('STORAGE_INCONSISTENT', `${directory}: no roots entity with a ${ROOT_IDENTIFIER} entry (legacy or empty storage)`);
    }
    const state: WriterState = {
      family: existing.family,
      dictionary: existing.dictionary,
      writtenDictionaryRevision: existing.dictionary.revision,
      channels: existing.channels.map((c) => ({ ...c })),
      nextObjectId: existing.nextObjectId,
      roots: existing.roots,
      rootReferenceId: existing.rootReferenceId,
      rootObjectId: existing.rootObjectId,
      enumConstants: new Map(existing.enumConstants),
    };
    const writer = new StorageWriter(directory, existing.channelCount, state, options, existing.latestTimestamp);
    writer.repairList = existing.repairs;
    return writer;
  }

  /** What `open` with `repairTails` (or Java-like startup fixes) changed on disk. */
  get repairs(): readonly string[] {
    return this.repairList;
  }

  get dictionary(): WriterDictionary {
    return this.state.dictionary;
  }

  /** The product line written: its fresh dictionary and the names of its own types. */
  get family(): WriterFamily {
    return this.state.family;
  }

  /** The application root as it will be after the next store. */
  get rootObjectId(): bigint {
    return this.state.rootObjectId;
  }

  /** The next object id `newObjectId` hands out. */
  get nextObjectId(): bigint {
    return this.state.nextObjectId;
  }

  /** Channel states (head file number and length, log length) after the last store. */
  get channels(): readonly ChannelHead[] {
    return this.state.channels;
  }

  newObjectId(): bigint {
    return this.state.nextObjectId++;
  }

  /** A type entry for this layout: an existing one, or a new type id (dictionary rewritten at the next store). */
  defineType(...args: Parameters<WriterDictionary['define']>): TypeEntry {
    return this.state.dictionary.define(...args);
  }

  /** The entry of an application interface or abstract class used as a field type (see WriterDictionary). */
  defineAbstractType(typeName: string): TypeEntry {
    return this.state.dictionary.defineAbstract(typeName);
  }

  /**
   * A builder for the next store. `partGrowsTo`: the size a channel's part grows to at once once it
   * outgrows its first 256 KiB (a caller that fills stores of a known size: StoreBuilder).
   */
  beginStore(partGrowsTo = 0): StoreBuilder {
    return new StoreBuilder(this.channelCount, undefined, partGrowsTo);
  }

  /** Sets the application root; the root reference entity is stored again with the next store. */
  setRoot(objectId: bigint): void {
    this.requireRoots();
    if (objectId !== this.state.rootObjectId) {
      this.state.rootObjectId = objectId;
      this.rootReferenceDirty = true;
    }
  }

  /** Object ids of the constants of an enum type already registered in the roots, in ordinal order. */
  enumConstants(entry: TypeEntry): readonly bigint[] | undefined {
    return this.state.enumConstants.get(entry.typeId);
  }

  /**
   * Stores the constants of an enum type with this store (a name String and the constant per
   * ordinal, then the `Object[]` of all constants) and registers it as `enum <tid>` in the roots
   * (storage-format.md §8.2, §9.1). Returns the constants' object ids; an enum type registered
   * before is not stored again. `values` gives a constant's field values when the enum has more
   * fields than `name` and `ordinal`.
   */
  storeEnum(
    store: StoreBuilder,
    entry: TypeEntry,
    values?: (ordinal: number, nameId: bigint) => readonly FieldValue[],
  ): readonly bigint[] {
    const roots = this.requireRoots();
    const known = this.state.enumConstants.get(entry.typeId);
    if (known !== undefined) return known;
    if (values === undefined && entry.fields.length !== 2) {
      throw new RangeError(`enum ${entry.typeName} has own fields; pass their values`);
    }
    const string = this.state.dictionary.require('java.lang.String');
    const constants: bigint[] = [];
    entry.enumConstants.forEach((name, ordinal) => {
      const nameId = this.newObjectId();
      const constantId = this.newObjectId();
      store.add(string, nameId, [name]);
      store.add(entry, constantId, values === undefined ? [nameId, ordinal] : values(ordinal, nameId));
      constants.push(constantId);
    });
    const arrayId = this.newObjectId();
    store.add(this.state.dictionary.require(OBJECT_ARRAY_TYPE_NAME), arrayId, [BigInt64Array.from(constants)]);
    roots.add(enumRootIdentifier(entry.typeId), arrayId);
    this.state.enumConstants.set(entry.typeId, constants);
    this.rootsDirty = true;
    return constants;
  }

  /**
   * Plans and writes a store. `fault` may look at the plan and return where to stop (see
   * `cutAfterBytes`, `cutInside`) to leave a crash tail instead of a complete store.
   */
  store(builder: StoreBuilder, fault?: (plan: StorePlan) => StoreCut | undefined): StoreResult {
    const plan = this.planStore(builder);
    return this.applyStore(plan, fault?.(plan));
  }

  /**
   * The writes of a store, without doing them (see store-plan.ts for their order). Adds the root
   * reference and roots entity records if they changed. Plan one store at a time and apply it
   * before planning the next; the builder must not change until the plan is applied.
   */
  planStore(builder: StoreBuilder): StorePlan {
    this.checkUsable();
    if (builder.channelCount !== this.channelCount) throw new RangeError('the store was built for another channel count');
    if (builder.sealed) throw new Error('this store has been planned already');
    const dictionary = this.state.dictionary;
    // Only entries this writer defined are checked: a dictionary copied as it is stays as it is.
    if (dictionary.revision !== this.state.writtenDictionaryRevision && dictionary.revision > 0) {
      const missing = dictionary.unregisteredFieldTypes();
      if (missing.length > 0) {
        throw new RangeError(`field types without a dictionary entry (Java would register them on opening): ${missing.join(', ')}`);
      }
    }
    if (this.rootReferenceDirty) {
      builder.add(dictionary.require(this.state.family.typeName(ROOT_REFERENCE_TYPE_NAME)), this.state.rootReferenceId, [this.state.rootObjectId]);
    }
    const roots = this.state.roots;
    if (this.rootsDirty && roots !== undefined) {
      builder.add(dictionary.require(this.state.family.typeName(ROOTS_TYPE_NAME)), roots.rootsObjectId, roots.values());
    }
    builder.sealed = true;

    return planStoreWrites(
      {
        directory: this.directory,
        fileMaximumSize: this.fileMaximumSize,
        checksums: this.checksums,
        clock: this.clock,
        dictionary,
        writtenDictionaryRevision: this.state.writtenDictionaryRevision,
        channels: this.state.channels,
      },
      builder,
    );
  }

  /**
   * Does the writes of a plan, all of them or up to a cut. After a cut the files hold exactly
   * what a crash at that byte leaves, and the writer refuses further stores (reopen the directory
   * with `StorageWriter.open` and `repairTails` to continue).
   */
  applyStore(plan: StorePlan, cut?: StoreCut): StoreResult {
    this.checkUsable();
    const last = cut === undefined ? plan.writes.length : cut.write;
    for (let i = 0; i < plan.writes.length && i <= last; i++) {
      const write = plan.writes[i]!;
      const length = i === last && cut !== undefined ? Math.min(cut.bytes, write.bytes.length) : write.bytes.length;
      this.perform(write, length);
    }
    if (cut !== undefined && cut.write < plan.writes.length) {
      this.broken = `a store was cut at write ${cut.write} after ${cut.bytes} bytes`;
      this.releaseHandles();
      return { timestamp: plan.timestamp, records: plan.records, dataBytes: plan.dataBytes, createdFiles: plan.createdFiles, complete: false };
    }
    this.state.channels = plan.channelsAfter.map((c) => ({ ...c }));
    this.state.writtenDictionaryRevision = plan.dictionaryRevision;
    this.rootReferenceDirty = false;
    this.rootsDirty = false;
    return { timestamp: plan.timestamp, records: plan.records, dataBytes: plan.dataBytes, createdFiles: plan.createdFiles, complete: true };
  }

  /**
   * `store` whose data writes run in Node's thread pool, so that the caller can fill another
   * builder meanwhile (convert's copy at 10M entities: 700 MB written, its walk's thread spent
   * 1.1-1.3 s less CPU). The store is planned (the builder sealed) before this returns; the writes are done,
   * in the plan's order, when the promise settles. Nothing else may use the writer until then: not
   * this builder, not another store, not `close`.
   */
  async storeInBackground(builder: StoreBuilder): Promise<StoreResult> {
    const plan = this.planStore(builder);
    this.writing = true;
    try {
      for (const planned of plan.writes) {
        if (planned.kind === 'data') {
          await this.files.performInBackground(planned);
        } else {
          this.perform(planned, planned.bytes.length);
        }
      }
    } finally {
      this.writing = false;
    }
    return this.applyStore({ ...plan, writes: [] });
  }

  /** Closes the files. The storage on disk is complete after every store; closing writes nothing. */
  close(): void {
    if (this.writing) throw new Error('a store is being written: wait for storeInBackground to settle');
    this.releaseHandles();
    this.closed = true;
  }

  private perform(write: PlannedWrite, length: number): void {
    this.files.perform(write, length, (channel) => this.state.channels[channel]!.headNumber);
  }

  private releaseHandles(): void {
    this.files.releaseAll();
  }

  private requireRoots(): RootsRegistry {
    if (this.state.roots === undefined) throw new Error('this writer copies records; its roots are the copied roots entity');
    return this.state.roots;
  }

  private checkUsable(): void {
    if (this.closed) throw new Error('the storage writer is closed');
    if (this.writing) throw new Error('a store is being written: wait for storeInBackground to settle');
    if (this.broken !== undefined) throw new Error(`the storage writer is unusable: ${this.broken}`);
  }
}

export { FIRST_OBJECT_ID };
