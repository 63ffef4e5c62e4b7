import { join } from 'node:path';
import { isAppError } from '../errors.js';
import { CommitHistory, type Commit } from '../storage/history/commit-history.js';
import { DictionaryTooLargeError } from '../storage/dictionary-file.js';
import { DirectorySource } from '../storage/source/directory-source.js';
import { PinnedSource } from '../storage/source/pinned-source.js';
import type { SourceReader, SourceReads, StorageSource } from '../storage/source/source.js';
import { DICTIONARY_FILE_NAME, scanStorageLayout, type StorageLayout } from '../storage/source/storage-dir.js';
import { Storage } from '../storage/storage.js';
import { GigaMapCollector, gigaMapProblems } from './gigamap-problems.js';
import { analyzeStartup, type StartupAnalysis } from './java-startup.js';
import { walkLatestRecords, type LatestRecordsFindings, type LatestRecordsOptions, type ReferenceListener } from './record-findings.js';
import { checkLockFile, LOCK_FILE_NAME } from './lock-file-problems.js';
import { classifyMissingReferences } from './missing-reachability.js';
import { generationOf, inGeneration } from './generation-messages.js';
import { familyByName } from '../format/storage-family.js';
import { isSerious, SEVERITIES, STORAGE_EXCEPTION, type Problem } from './problem.js';
import { recordProblems } from './record-problems.js';
import { chunkProblems } from './chunk-problems.js';
import { verifyStorageChunks, verifyStorageChunksBeside, type ChunkVerification } from '../storage/checksums/chunk-verification.js';
import { isEclipseStore42 } from './generation-messages.js';

/**
 * `check`: the checks MicroStream 4.1 makes when it starts (logs against data files, the files the
 * logs name, record headers, type ids, channels, the lock file) and our own (records that cannot be
 * decoded, references to missing objects, records past the committed length). Only reads.
 */

export interface CheckSummary {
  readonly channels: number;
  readonly dataFiles: number;
  /** Bytes of the data files that hold committed records (as read). */
  readonly committedBytes: number;
  /** Objects found (newest versions), and how many of them can be read. */
  readonly objects: number;
  readonly readableObjects: number;
  readonly commits: number | undefined;
}

export interface CheckReport {
  /** The storage as the user named it (a directory as given, a database URL and table). */
  readonly directory: string;
  /** Where the storage is kept, when not in a directory (`postgresql`). */
  readonly kind?: string | undefined;
  /** Checks that do not apply to where the storage is kept, and why (the lock file of a directory). */
  readonly notChecked?: readonly string[] | undefined;
  /** The library whose start is judged: `MicroStream 4.1`, `EclipseStore 4.1`, or `EclipseStore 4.2` for a storage 4.2 wrote. */
  readonly generation: string;
  /** That library would start on the directory as it is. */
  readonly javaStarts: boolean;
  readonly exitCode: 0 | 1;
  readonly summary: CheckSummary;
  /** Most severe first, then by file and offset. */
  readonly problems: readonly Problem[];
  /** With `commits`: every commit, oldest first (undefined when the logs cannot be read). */
  readonly commits?: readonly CommitListing[] | undefined;
  /** Why the commit list is incomplete or missing, if it is. */
  readonly commitsNote?: string | undefined;
}

export interface CommitListing extends Commit {
  /** The files this state needs are all still there: `rescue --as-of` can rebuild it. */
  readonly recoverable: boolean;
  /** When not: the files that held this commit's state and are gone (or cut) since. */
  readonly missingFiles: readonly { readonly file: string; readonly length: number; readonly sizeOnDisk: number | undefined }[];
}

export interface CheckOptions {
  readonly commits?: boolean;
  /** A larger type dictionary is not read (default 64 MiB): the check then ends with that error. */
  readonly maxDictionaryBytes?: number | undefined;
  readonly onProgress?: (phase: string, done: number, total: number) => void;
  /**
   * Verify the chunk checksums of an EclipseStore 4.2 storage written with them (default true);
   * false skips the verification (what the bench compares against).
   */
  readonly verifyChunks?: boolean;
  /** The time lock files are judged against (default now). */
  readonly now?: number;
  /** Told every readable newest version's references during the record walk (record-findings.ts). */
  readonly references?: ReferenceListener | undefined;
  /**
   * The record walk, when the caller has one that finds the same (convert's in worker threads);
   * default `walkLatestRecords`.
   */
  readonly walkRecords?: ((storage: Storage, options: LatestRecordsOptions) => Promise<LatestRecordsFindings>) | undefined;
}

/** A check whose opened storage (index, dictionary) the caller goes on using, and closes. */
export interface KeptCheck {
  readonly report: CheckReport;
  /** Undefined when the storage could not be opened (its problems say why). */
  readonly storage: Storage | undefined;
  readonly startup: StartupAnalysis | undefined;
  readonly layout: StorageLayout | undefined;
}

/**
 * `checkStorage` inside a snapshot the caller holds, leaving the storage it opened open for the
 * caller (convert copies from the same index instead of building a second one).
 */
export async function checkKeepingStorage(source: StorageSource, reader: SourceReader, options: CheckOptions = {}): Promise<KeptCheck> {
  const kept: { storage?: Storage; startup?: StartupAnalysis; layout?: StorageLayout } = {};
  try {
    const report = await checkSnapshot(source, reader, options, kept);
    return { report, storage: kept.storage, startup: kept.startup, layout: kept.layout };
  } catch (error) {
    await kept.storage?.close();
    throw error;
  }
}

/**
 * Checks the storage a directory path or a source names. Everything is read inside one snapshot
 * of the source (for PostgreSQL one REPEATABLE READ, READ ONLY transaction): the listing, the
 * logs, the index, the record walk and the commits all see the same instant. The source is
 * closed at the end.
 */
export async function checkStorage(location: string | StorageSource, options: CheckOptions = {}): Promise<CheckReport> {
  const source = typeof location === 'string' ? new DirectorySource(location) : location;
  try {
    return await source.snapshot((reader) => checkSnapshot(source, reader, options));
  } finally {
    await source.close();
  }
}

/** `keep`: given, the opened storage is handed over in it instead of closed (with the layout and start-up analysis). */
async function checkSnapshot(source: StorageSource, reader: SourceReader, options: CheckOptions, keep?: { storage?: Storage; startup?: StartupAnalysis; layout?: StorageLayout }): Promise<CheckReport> {
  const directory = source.location;
  // The lock file is a file next to the channel directories; sources of other kinds are not checked for one.
  const where = source.kind === 'directory' ? {} : { kind: source.kind, notChecked: [`the lock file (${LOCK_FILE_NAME}): not applicable, checked only in storage directories`] };
  const root = await reader.listRoot();
  const has = (name: string): boolean => root.files.some((f) => f.name === name) || root.folders.some((f) => f.name === name);
  if (!has(DICTIONARY_FILE_NAME) && has('channel_0')) {
    return finish(directory, where, emptySummary(), [
      {
        code: 'DICTIONARY_MISSING',
        severity: 'refuses-start',
        file: source.rootFilePath(DICTIONARY_FILE_NAME),
        java: { exception: STORAGE_EXCEPTION, message: 'TypeId not resolvable via type dictionary: <the type id of the first object loaded>' },
        meaning: 'the type dictionary is missing: without it no record can be decoded (MicroStream starts a new, empty dictionary and then fails on the first stored type id)',
        rescue: 'cannot rescue without the dictionary: restore PersistenceTypeDictionary.ptd from a backup (any later version of it works)',
      },
    ]);
  }
  const layout = await scanStorageLayout(reader, directory);
  const startup = await analyzeStartup(layout, reader);
  if (keep !== undefined) {
    keep.layout = layout;
    keep.startup = startup;
  }
  const problems: Problem[] = [...startup.problems];
  if (source.kind === 'directory') {
    const lock = await checkLockFile(directory, options.now);
    if (lock !== undefined) problems.push(lock);
  }

  // EclipseStore 4.2's chunk checksums: in a directory, verified in a thread of their own while the
  // records are walked; elsewhere (one database transaction) after the walk, through the same reader.
  const verifyChunks = options.verifyChunks !== false;
  const beside: Promise<ChunkVerification | Error> | undefined =
    verifyChunks && source.kind === 'directory'
      ? verifyStorageChunksBeside(startup.readableLengths).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))
      : undefined;
  let findings: LatestRecordsFindings | undefined;
  let storage: Storage | undefined;
  try {
    storage = await Storage.open(new PinnedSource(source, reader), {
      committedLengths: async () => startup.readableLengths,
      onProgress: (p) => options.onProgress?.('indexing', p.bytesDone, p.bytesTotal),
      recordCacheBytes: 0, // every record is read once
      ...(options.maxDictionaryBytes === undefined ? {} : { maxDictionaryBytes: options.maxDictionaryBytes }),
    });
  } catch (error) {
    // Over the limit says nothing about the dictionary, nor about Java: nothing can be checked.
    if (!isAppError(error) || error instanceof DictionaryTooLargeError) throw error;
    problems.push({
      code: 'DICTIONARY_INVALID',
      severity: 'refuses-start',
      file: layout.dictionaryPath,
      meaning: `the storage cannot be read: ${error.message}`,
      rescue: 'cannot rescue without a readable dictionary: restore it from a backup',
    });
  }
  if (storage !== undefined) {
    try {
      const gigaMaps = new GigaMapCollector();
      findings = await (options.walkRecords ?? walkLatestRecords)(storage, {
        onProgress: (done, total) => options.onProgress?.('checking records', done, total),
        // Without a GigaMap type in the dictionary no record is one: no record handed over for it.
        ...(gigaMaps.wanted(storage.dictionary) ? { onReadable: gigaMaps.onReadable } : {}),
        references: options.references,
      });
      const reach = findings.dangling.length > 0 ? await classifyMissingReferences(storage, findings.dangling) : undefined;
      problems.push(...recordProblems(findings, storage.family.rootsTypeName, reach));
      problems.push(...(await gigaMapProblems(storage, gigaMaps.ids)));
    } finally {
      if (keep === undefined) await storage.close();
      else keep.storage = storage;
    }
  }
  const family = storage?.family ?? familyByName('microstream');
  let chunks: ChunkVerification | undefined;
  if (verifyChunks) {
    const verified = beside === undefined ? await verifyStorageChunks(startup.readableLengths, reader, { onProgress: (done, total) => options.onProgress?.('verifying chunk checksums', done, total) }) : await beside;
    if (verified instanceof Error) throw verified;
    chunks = verified;
    if (storage !== undefined) problems.push(...chunkProblems(chunks, storage.dictionary));
  }
  const es42 = family.name === 'eclipsestore' && isEclipseStore42(storage?.dictionary, chunks, layout);
  const summary = summarize(layout, startup, findings);
  let commits: CommitListing[] | undefined;
  let commitsNote: string | undefined;
  if (options.commits === true) ({ commits, note: commitsNote } = await listCommits(layout, reader));
  return finish(directory, where, { ...summary, commits: commits?.length }, problems.map((p) => inGeneration(p, family, es42)), commits, commitsNote, generationOf(family, es42));
}

export async function listCommits(layout: StorageLayout, reads?: SourceReads): Promise<{ commits: CommitListing[] | undefined; note: string | undefined }> {
  let history: CommitHistory;
  try {
    history = await CommitHistory.read(layout, reads);
  } catch (error) {
    if (!isAppError(error)) throw error;
    return { commits: undefined, note: `the commits cannot be listed: ${error.message}` };
  }
  const commits: CommitListing[] = [];
  for (const commit of history.commits()) {
    const point = history.pointInTime(commit.number, layout);
    commits.push({
      ...commit,
      recoverable: point.missingFiles.length === 0,
      missingFiles: point.missingFiles.map((m) => ({
        file: join(layout.channels[m.channel]!.directory, `channel_${m.channel}_${m.fileNumber}.dat`),
        length: m.length,
        sizeOnDisk: m.sizeOnDisk,
      })),
    });
  }
  const partial = history.incompleteStores.map((s) => `a store of ${new Date(Number(s.timestamp / 1_000_000n)).toISOString()} reached only channel${s.channels.length > 1 ? 's' : ''} ${s.channels.join(', ')} and is not a commit`);
  return { commits, note: partial.length > 0 ? partial.join('; ') : undefined };
}

function summarize(layout: StorageLayout, startup: StartupAnalysis, findings: LatestRecordsFindings | undefined): Omit<CheckSummary, 'commits'> {
  return {
    channels: layout.channels.length,
    dataFiles: layout.channels.reduce((n, c) => n + c.dataFiles.length, 0),
    committedBytes: startup.readableLengths.channels.reduce((n, c) => n + c.files.reduce((m, f) => m + f.validLength, 0), 0),
    objects: findings?.objects ?? 0,
    readableObjects: findings?.readableObjects ?? 0,
  };
}

function emptySummary(): CheckSummary {
  return { channels: 0, dataFiles: 0, committedBytes: 0, objects: 0, readableObjects: 0, commits: undefined };
}

function finish(
  directory: string,
  where: Pick<CheckReport, 'kind' | 'notChecked'>,
  summary: CheckSummary,
  problems: Problem[],
  commits?: CommitListing[],
  commitsNote?: string,
  generation = 'MicroStream 4.1',
): CheckReport {
  const order = (p: Problem): number => SEVERITIES.indexOf(p.severity);
  const sorted = [...problems].sort(
    (a, b) => order(a) - order(b) || (a.file ?? '').localeCompare(b.file ?? '') || (a.offset ?? -1) - (b.offset ?? -1),
  );
  const javaStarts = !sorted.some((p) => p.severity === 'refuses-start');
  return {
    directory,
    ...where,
    generation,
    javaStarts,
    exitCode: sorted.some(isSerious) ? 1 : 0,
    summary,
    problems: sorted,
    ...(commits === undefined && commitsNote === undefined ? {} : { commits, commitsNote }),
  };
}
