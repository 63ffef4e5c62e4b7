import { StorageError } from '../errors.js';
import type { LogAggregate } from '../format/transaction-log.js';
import type { IndexWorkerPool } from './index/index-workers.js';
import { indexInitially } from './initial-index.js';
import { DirectorySource } from './source/directory-source.js';
import { readChannelLogs, type ChannelLogReader } from './log-reader.js';
import { DEFAULT_RECORD_CACHE_BYTES } from './record-cache.js';
import { prefixThreads, startIndexWorkers } from './index-threads-for-open.js';
import { applyJob, expectRecords, removeFile, tellListeners, type RecordSink } from './record-application.js';
import type { ScanProblem } from './records/record-scan.js';
import { scanJobs } from './scan-jobs.js';
import { planRefresh } from './refresh-plan.js';
import { readDictionaryFile } from './dictionary-file.js';
import { comparePrefixes, continuedChannels, replacedRecords, sharedFiles, type BasisOpening } from './basis-open.js';
import { findRoots } from './find-roots.js';
import type { SourceReader, StorageSource } from './source/source.js';
import type { SeenProblem } from './follow-problems.js';
import { NotAStorageError, scanStorageLayout, type StorageLayout } from './source/storage-dir.js';
import { resolveValidLengths } from './valid-lengths.js';
import { ChangeCollector, findTruncations, type ChannelState, type FileState } from './channel-state.js';
import { StorageState } from './storage-state.js';
import { DEFAULT_MAX_DICTIONARY_BYTES, RECORD_WORDS, type CommittedLengths, type OpenOptions, type RefreshResult } from './storage-types.js';

export * from './storage-types.js';

export interface StorageOpenOptions extends OpenOptions {
  /**
   * An opened storage this one may be the continuation of (a copy to which more was committed):
   * where it is, it is opened as that storage's state followed by a refresh (basis-open.ts).
   */
  readonly basis?: Storage;
}

/**
 * An opened storage: the parsed type dictionary, every channel's data files with their committed
 * lengths, and a compact index from object id to the latest record. Entity bytes stay in the
 * source (a directory, database tables) and are read when asked for. Nothing in the source is ever
 * written, locked or truncated.
 *
 * `refresh()` brings the state up to the directory's last complete commit by reading only what
 * was appended (new log entries, new record bytes, new files) and dropping deleted files; opening
 * is simply the first refresh. Each refresh reads one snapshot of the source (`StorageSource.
 * snapshot`). Updates are applied through a gate, so a request that runs inside `consistent()`
 * sees one state from start to end. What is answered from the state (an object's record, the
 * warnings, a file's bytes...) is storage-state.ts's; this file opens and refreshes it.
 */

export class Storage extends StorageState {
  private logReaders: (ChannelLogReader | undefined)[] = [];
  private dictionaryStamp = '';
  private rootsCandidates = new Set<bigint>();
  /** What the refresh under way reads through (one snapshot of the source). */
  private reads: SourceReader | undefined;
  private refreshing: Promise<RefreshResult> | undefined;
  /** Collects what the refresh being applied changes, while someone listens. */
  private changes: ChangeCollector | undefined;
  private openedOnBasis: (BasisOpening & { readonly basis: Storage; readonly generation: number }) | undefined;
  /** The last complete commit the latest refresh found (taken as `lastCommitTimestamp` only when it applies a change). */
  private foundCommitTimestamp = 0n;

  private constructor(
    source: StorageSource,
    private readonly committedLengths: CommittedLengths | undefined,
    private readonly maxDictionaryBytes: number,
    recordCacheBytes: number,
  ) {
    super(source, recordCacheBytes);
  }

  /** Opens a storage directory (a path) or a storage kept elsewhere; the storage owns the source from here on. */
  static async open(location: string | StorageSource, options: StorageOpenOptions = {}): Promise<Storage> {
    const source = typeof location === 'string' ? new DirectorySource(location, { allowExternalLinks: options.allowExternalLinks === true }) : location;
    const made = (): Storage =>
      new Storage(source, options.committedLengths, options.maxDictionaryBytes ?? DEFAULT_MAX_DICTIONARY_BYTES, options.recordCacheBytes ?? DEFAULT_RECORD_CACHE_BYTES);
    try {
      const basis = options.basis;
      if (basis !== undefined) {
        const continued = made();
        if (await continued.loadOnBasis(basis, options)) return continued;
      }
      // Opened whole (also where a basis was not continued: nothing of that attempt is kept).
      const storage = made();
      await storage.load(options);
      return storage;
    } catch (error) {
      await source.close();
      throw error;
    }
  }

  /**
   * Set when this storage was opened as the continuation of another (`StorageOpenOptions.basis`,
   * basis-open.ts) and has not changed since: which of its bytes are the basis's.
   */
  get basisOpening(): (BasisOpening & { readonly basis: Storage }) | undefined {
    const opened = this.openedOnBasis;
    return opened !== undefined && this.generation === opened.generation ? opened : undefined;
  }

  /**
   * Takes over what was committed since the last refresh. Concurrent calls share one run; a call
   * made while a run is under way waits for it and then runs again (it may have missed changes).
   */
  async refresh(): Promise<RefreshResult> {
    if (this.committedLengths !== undefined) return { changed: false }; // a fixed state (see OpenOptions)
    while (this.refreshing !== undefined) await this.refreshing.catch(() => undefined);
    this.refreshing = this.updateFromSnapshot(false, {});
    try {
      return await this.refreshing;
    } finally {
      this.refreshing = undefined;
    }
  }

  private async load(options: OpenOptions): Promise<void> {
    if (options.countLatestTypes === true) this.typeCounts = new Map();
    const result = await this.updateFromSnapshot(true, options);
    if (result.deferred !== undefined) throw new StorageError('STORAGE_INCONSISTENT', result.deferred);
  }

  /**
   * Opens this storage as `basis`'s state followed by a refresh, where it continues the basis
   * (basis-open.ts); false, with nothing of it to keep, where it does not.
   */
  private async loadOnBasis(basis: Storage, options: OpenOptions): Promise<boolean> {
    if (basis.status !== 'open' || basis.committedLengths !== undefined || this.committedLengths !== undefined || basis.generation < 1) return false;
    if (basis.warnings.length > 0 || basis.truncations.length > 0 || basis.refreshing !== undefined) return false;
    try {
      return await this.continue(basis, options);
    } catch {
      return false; // opened whole instead, which meets (and reports) whatever went wrong here
    }
  }

  private async continue(basis: Storage, options: OpenOptions): Promise<boolean> {
    const generation = basis.generation;
    const found = await this.source.snapshot(async (reader) => {
      const layout = await scanStorageLayout(reader, this.directory);
      const pairs = await sharedFiles(basis.source, basis.channelStates, this.source, reader, layout);
      return typeof pairs === 'string' ? undefined : { layout, pairs };
    });
    if (found === undefined || basis.generation !== generation) return false;
    this.channelStates = continuedChannels(basis.channelStates, found.layout);
    const appendedFrom = basis.channelStates.map((c) => c.slots.map((f) => f.totalLength));
    this.dictionary = basis.dictionary;
    this.dictionaryBytes = basis.dictionaryBytes;
    this.dictionaryStamp = ''; // read and compared, never taken from the basis by its stamp
    this.family = basis.family;
    this.rootObjectId = basis.rootObjectId;
    this.rootsObjectId = basis.rootsObjectId;
    this.lastCommitTimestamp = basis.lastCommitTimestamp;
    this.rootsCandidates = new Set(basis.rootsCandidates);
    const rootsType = (s: Storage): string => String(s.dictionary.currentByName.get(s.family.rootsTypeName)?.typeId);
    const continued = this.channelStates;
    // The refresh first (what it stored names the basis's records it replaced), then the shared bytes compared.
    let stored = new Int32Array(0);
    const stop = this.onChange((change) => void (stored = change.stored.words.slice()));
    let result: RefreshResult;
    try {
      result = await this.updateFromSnapshot(false, options);
    } finally {
      stop();
    }
    // A refresh that started a channel over (needsRebuild) numbered its files anew: opened whole instead.
    if (result.deferred !== undefined || this.channelStates !== continued || rootsType(this) !== rootsType(basis)) return false;
    // Nothing to take over: the state is the basis's, but the last commit is this storage's own (a commit that stored nothing, a log written anew).
    if (!result.changed) this.lastCommitTimestamp = this.foundCommitTimestamp;
    const replaced = replacedRecords(stored, RECORD_WORDS, appendedFrom, basis.channelStates);
    // Compared in the index threads where the caller lends them (a diff's: the basis's threads, idle now).
    const threads = prefixThreads(options, found.pairs.length, found.pairs.reduce((n, p) => n + p.length, 0));
    let differs: string | undefined;
    let usable = false;
    try {
      differs = await comparePrefixes(found.pairs, replaced, options.onProgress, threads?.pool);
      usable = true;
    } finally {
      threads?.release(usable);
    }
    if (differs !== undefined) return false;
    this.generation = 1;
    this.openedOnBasis = { basis, basisGeneration: generation, appendedFrom, replaced, generation: this.generation };
    return true;
  }

  /** One refresh, reading one snapshot of the source. */
  private updateFromSnapshot(initial: boolean, options: OpenOptions): Promise<RefreshResult> {
    return this.source.snapshot(async (reader) => {
      this.reads = reader;
      try {
        return await this.update(initial, options);
      } finally {
        this.reads = undefined;
      }
    });
  }

  /** The source reader of the refresh under way. */
  private get reader(): SourceReader {
    if (this.reads === undefined) throw new Error('storage files read outside of a refresh');
    return this.reads;
  }

  private async update(initial: boolean, options: OpenOptions): Promise<RefreshResult> {
    let layout: StorageLayout;
    try {
      layout = await scanStorageLayout(this.reader, this.directory);
    } catch (error) {
      // A dictionary rewritten as "delete, then insert" (MicroStream's SQL file system) is briefly absent.
      if (!initial && error instanceof NotAStorageError && error.onlyDictionary) {
        return { changed: false, deferred: 'type dictionary is being rewritten (absent right now)' };
      }
      throw error;
    }
    for (const w of layout.warnings) this.warn(w);
    // Worker threads start loading while the logs and the dictionary are read (index-workers.ts).
    const workers = initial ? startIndexWorkers(this.reader, layout, options) : undefined;
    let done = false;
    try {
      const result = await this.updateFrom(layout, initial, options, workers?.pool);
      done = true;
      return result;
    } finally {
      workers?.release(done);
    }
  }

  private async updateFrom(layout: StorageLayout, initial: boolean, options: OpenOptions, workers: IndexWorkerPool | undefined): Promise<RefreshResult> {
    const known = initial ? undefined : { parsed: this.dictionary, bytes: this.dictionaryBytes, stamp: this.dictionaryStamp };
    const read = await readDictionaryFile(this.reader, layout, known, this.maxDictionaryBytes);
    if (read.kind === 'rewriting') return { changed: false, deferred: read.reason };
    if (read.kind === 'same') this.dictionaryStamp = read.stamp;
    const dictionary = read.kind === 'changed' ? read : undefined;

    const valid =
      this.committedLengths !== undefined
        ? await this.committedLengths(layout, this.reader)
        : resolveValidLengths(layout, await this.readLogs(layout));
    for (const w of valid.warnings) this.warn(w);
    this.told.noteShortFiles(valid);
    this.foundCommitTimestamp = valid.commitTimestamp;
    const truncations = findTruncations(valid.channels.map((c) => c.files), this.channelStates);
    // Records cut off on disk are not answered from memory either (reading them fails, as before):
    // the cache is emptied when a file is found cut (again), not on every look while it stays so.
    const said = (problems: readonly SeenProblem[]): string => problems.map((p) => p.message).join('\n');
    if (truncations.length > 0 && said(truncations) !== said(this.truncations)) this.records?.clear();
    this.truncations = truncations;

    const plan = planRefresh(layout, valid, this.channelStates, dictionary?.parsed ?? this.dictionary, dictionary !== undefined);
    if (plan === undefined) return { changed: false };
    const { rebuild, targets, jobs, removed, family, rootsTypeId } = plan;
    if (rebuild) this.rootsCandidates = new Set<bigint>();
    const apply = async (): Promise<void> => {
      this.changes = this.changeListeners.length > 0 && !rebuild ? new ChangeCollector() : undefined;
      if (dictionary !== undefined) {
        this.dictionary = dictionary.parsed;
        this.family = family;
        this.dictionaryBytes = dictionary.bytes;
        this.dictionaryStamp = dictionary.stamp;
      }
      // Records first: housekeeping copies live records to the head file before deleting a file.
      const sink: RecordSink = {
        changes: this.changes,
        rootsCandidate: (id) => this.rootsCandidates.add(id),
        noteScanProblem: (file, problem) => this.noteScanProblem(file, problem),
      };
      expectRecords(jobs);
      for (const job of jobs) applyJob(job, rootsTypeId, sink);
      for (const file of removed) this.removeFile(targets[file.channel]!, file);
      if (rebuild) {
        for (const channel of targets) channel.objects.compact();
        this.channelStates = targets;
        // Slots number the new channels' files: a kept record's place may name another one.
        this.records?.clear();
      }
      this.lastCommitTimestamp = valid.commitTimestamp;
      for (const channel of targets) channel.invalidate();
      const rootWarnings: string[] = [];
      const roots = await findRoots(this, [...this.rootsCandidates], rootWarnings);
      this.rootObjectId = roots.rootObjectId;
      this.rootsObjectId = roots.rootsObjectId;
      rootWarnings.forEach((w) => this.warn(w));
      this.generation++;
      const collected = this.changes;
      this.changes = undefined;
      if (!initial) await this.tellChange(rebuild, dictionary !== undefined, collected);
    };

    if (initial) {
      // Nobody can read yet: build every channel's table in one go (see indexInitially).
      await indexInitially(jobs, targets, rootsTypeId, options, {
        reads: this.reader,
        workers,
        noteProblem: (file, problem) => this.noteScanProblem(file, problem),
        rootsCandidate: (id) => this.rootsCandidates.add(id),
        ...(this.typeCounts === undefined ? {} : { typeCounts: this.typeCounts }),
      });
      await apply();
    } else {
      await scanJobs(this.reader, jobs, options, () => this.entityCount);
      await this.gate.write(apply);
    }
    return { changed: true };
  }

  private tellChange(rebuilt: boolean, dictionaryChanged: boolean, collected: ChangeCollector | undefined): Promise<void> {
    return tellListeners(this.changeListeners, rebuilt, dictionaryChanged, collected, (w) => this.warn(w));
  }

  private async readLogs(layout: StorageLayout): Promise<(LogAggregate | undefined)[]> {
    const { aggregates, readers } = await readChannelLogs(layout, this.reader, this.logReaders, (w) => this.warn(w));
    this.logReaders = readers;
    return aggregates;
  }

  private noteScanProblem(file: FileState, problem: ScanProblem | undefined): void {
    if (problem === undefined) return;
    file.problem = problem;
    this.warn(`${file.path}: offset ${problem.offset}: ${problem.message}; the rest of this file is not indexed`);
  }

  private removeFile(channel: ChannelState, file: FileState): void {
    const lost = removeFile(channel, file, this.changes);
    if (lost !== undefined) this.warn(`${file.path} was deleted while ${lost} objects had their latest record in it; they are gone`);
    this.source.forget(file.path);
  }
}
