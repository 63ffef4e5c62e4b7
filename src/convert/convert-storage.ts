import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StorageError, UsageError } from '../errors.js';
import { analyzeStartup, type StartupAnalysis } from '../check/java-startup.js';
import { checkKeepingStorage, type CheckReport } from '../check/check-storage.js';
import { walkLatestRecords } from '../check/record-findings.js';
import { isSerious } from '../check/problem.js';
import { rescueStorage } from '../rescue/rescue-storage.js';
import { TemporaryTarget } from '../rescue/temporary-target.js';
import { verifyChunkFiles } from '../storage/checksums/chunk-verification.js';
import { DirectorySource } from '../storage/source/directory-source.js';
import { PinnedSource } from '../storage/source/pinned-source.js';
import type { SourceReader, StorageSource } from '../storage/source/source.js';
import { DICTIONARY_FILE_NAME, scanStorageLayout, type StorageLayout } from '../storage/source/storage-dir.js';
import { Storage } from '../storage/storage.js';
import { DEFAULT_FILE_MAXIMUM_SIZE, StorageWriter } from '../writer/storage-writer.js';
import { refuseStoragePlace } from '../writer/output-place.js';
import { dictionaryPath } from '../writer/paths.js';
import { writerFamily } from '../writer/writer-family.js';
import { compactDictionary } from './compact-dictionary.js';
import { eclipseStoreTypeName } from './eclipsestore-names.js';
import { planCurrentShapes } from './current-shapes.js';
import { WalkedReachability, type CopyOrder } from './walked-reachability.js';
import { copyRecords, wantsWriteBehind, type Figures } from './copy-records.js';
import { threadedRecordWalk } from './check-walk-threads.js';
import type { ConvertReport, CurrentTypesReport, RescuedFirst } from './convert-report.js';

/**
 * `convert`: a new storage with the current version of every object (by default only of those
 * reachable from the roots), each in the channel the library assigns it (`oid % channels`, as
 * EclipseStore's Storage Converter does), written by the storage writer (data files, a transaction
 * log per channel, the dictionary of the types in use), optionally with the dictionary's names
 * moved from MicroStream to EclipseStore. The storage is indexed once and walked twice: the
 * check's record walk (which also hands the references to the reachability search) and the copy.
 * Memory beyond the index is the reachability's typed arrays, one batch of records and a few
 * counters per type. The source is only read; the new storage is written beside `out` and renamed
 * into place when complete.
 */

export interface ConvertOptions {
  readonly out: string;
  /** Channels of the new storage (a power of two, 1..1024; default the source's). */
  readonly channels?: number | undefined;
  /** Copy the current versions of unreachable objects too. */
  readonly keepUnreachable?: boolean | undefined;
  /** The product line of the new storage (default the source's); `eclipsestore` from a MicroStream source renames the dictionary's types. */
  readonly to?: 'microstream' | 'eclipsestore' | undefined;
  /** A data file at or above this size is closed before the next batch (default the library's 8 MiB). */
  readonly fileSize?: number | undefined;
  /** Rewrite objects stored in an older definition of their type into the newest one where every member maps by name and declared type (see current-shapes.ts). */
  readonly currentTypes?: boolean | undefined;
  /** Convert a damaged storage: rescue it first (as `rescue` does, references to lost objects replaced) into a hidden directory, then convert that. */
  readonly allowDamage?: boolean | undefined;
  readonly maxDictionaryBytes?: number | undefined;
  /** Whether the copy writes each store in the thread pool while it fills the next (default: from 256 MiB of data files on; copy-records.ts). */
  readonly writeBehind?: boolean | undefined;
  /**
   * Worker threads the check's record walk of a storage in a directory is split across, by
   * channel (default: from 256 MiB of data files on, two with two processors or more, for memory;
   * below 2: the walk runs in this thread). check-walk-threads.ts.
   */
  readonly checkThreads?: number | undefined;
  readonly onProgress?: (phase: string, done: number, total: number) => void;
  /** Told what to remove on a signal (the hidden directories written into) while there is something; undefined once there is not. */
  readonly onTemporaryTarget?: (target: Discardable | undefined) => void;
}

/** Something half-written that a signal handler removes. */
export interface Discardable {
  discard(): void;
}

/** The source is damaged: `check`'s findings, to be rescued first. */
export class DamagedSourceError extends StorageError {
  constructor(readonly check: CheckReport) {
    const serious = check.problems.filter(isSerious);
    super(
      'STORAGE_INCONSISTENT',
      `${check.directory} is damaged (${serious.length} serious problem${serious.length === 1 ? '' : 's'}: ${[...new Set(serious.map((p) => p.code))].join(', ')}); ` +
        `convert copies only intact storages: run storage-inspector rescue ${check.directory} --out <new-dir> first, then convert the rescued storage (or convert with --allow-damage, which does both)`,
    );
  }
}

export const MAX_CHANNELS = 1024;
const BATCH_BYTES = 8 * 1024 * 1024;

/** Throws a UsageError unless the library accepts the channel count (a power of two, 1..1024). */
export function checkChannelCount(channels: number): void {
  if (!Number.isInteger(channels) || channels < 1 || channels > MAX_CHANNELS) {
    throw new UsageError(`--channels ${channels}: a whole number from 1 to ${MAX_CHANNELS}`);
  }
  if ((channels & (channels - 1)) !== 0) {
    throw new UsageError(`--channels ${channels}: MicroStream and EclipseStore accept only a power of two (1, 2, 4, … ${MAX_CHANNELS}) and refuse other counts when they start`);
  }
}

/**
 * Converts the storage a directory path names, or the sources `open` makes. The check and the copy
 * share one snapshot of the source and one index: the check's record walk also collects the
 * references (reachability needs no second walk), and a damaged source is refused before anything
 * is written. With `allowDamage` a damaged source is rescued into a hidden directory first (a
 * second source from `open`) and that is converted. Nothing is written to the source.
 */
export async function convertStorage(location: string | (() => StorageSource), options: ConvertOptions): Promise<ConvertReport> {
  const open = typeof location === 'string' ? () => new DirectorySource(location) : location;
  if (existsSync(options.out)) throw new UsageError(`--out ${options.out} exists: convert writes only to a new directory`);
  // The shared rule for what commands write: never inside a storage (a directory named here, or any other).
  refuseStoragePlace(options.out, { option: '--out', storages: typeof location === 'string' ? [location] : [] });
  if (options.channels !== undefined) checkChannelCount(options.channels);
  if (options.fileSize !== undefined && !(Number.isSafeInteger(options.fileSize) && options.fileSize >= 1024 && options.fileSize <= 2 ** 31 - 1)) {
    throw new UsageError(`--file-size ${options.fileSize}: from 1 KiB to 2 GiB - 1 byte`);
  }
  let staged: { target: TemporaryTarget; rescued: Discardable | undefined } | undefined;
  let target: TemporaryTarget | undefined;
  const pending: Discardable = {
    discard: () => {
      staged?.rescued?.discard();
      if (staged !== undefined) rmSync(staged.target.path, { recursive: true, force: true });
      target?.discard();
    },
  };
  options.onTemporaryTarget?.(pending);
  try {
    let reach = options.keepUnreachable === true ? undefined : new WalkedReachability();
    const source = open();
    let check: CheckReport;
    try {
      const intact = await source.snapshot(async (reader) => {
        const kept = await checkKeepingStorage(source, reader, {
          ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
          ...(options.maxDictionaryBytes === undefined ? {} : { maxDictionaryBytes: options.maxDictionaryBytes }),
          references: reach,
          // Threads read the files by path: only a directory's.
          ...(source.kind === 'directory' ? { walkRecords: threadedRecordWalk(options.checkThreads, reach) } : {}),
        });
        try {
          const report = kept.report;
          if (options.to === 'microstream' && report.generation.startsWith('EclipseStore')) refuseBackToMicroStream(report.directory);
          if (!report.problems.some(isSerious)) {
            // Intact: copied from the check's own index and snapshot.
            target = new TemporaryTarget(options.out, 'convert');
            const opened = { storage: kept.storage!, layout: kept.layout!, startup: kept.startup! };
            const converted = await convertOpened(source, reader, opened, options, target.path, report.directory, reach);
            target.commit();
            return { report, converted: { ...converted, source: report.directory } };
          }
          if (options.allowDamage !== true) throw new DamagedSourceError(report);
          return { report, converted: undefined };
        } finally {
          await kept.storage?.close();
        }
      });
      check = intact.report;
      if (intact.converted !== undefined) return { ...intact.converted, ...(check.kind === undefined ? {} : { kind: check.kind }) };
    } finally {
      await source.close();
    }
    // A damaged source is rescued into a hidden directory beside --out first; that one is converted.
    // With a reachability of its own: the damaged source's (its object index, lists and starts) is
    // garbage before the rescue builds an index of its own.
    if (reach !== undefined) reach = new WalkedReachability();
    staged = { target: new TemporaryTarget(options.out, 'convert-rescue'), rescued: undefined };
    const stage = staged;
    const rescue = await rescueStorage(open(), {
      out: stage.target.path,
      maxDictionaryBytes: options.maxDictionaryBytes,
      ...(options.onProgress === undefined ? {} : { onProgress: (phase: string, done: number, total: number) => options.onProgress!(`rescuing: ${phase}`, done, total) }),
      onTemporaryTarget: (t) => (stage.rescued = t),
    });
    const rescuedFirst: RescuedFirst = {
      problems: check.problems.filter(isSerious).map((p) => p.code),
      keptObjects: rescue.keptObjects,
      olderVersions: rescue.olderVersions.length,
      lost: rescue.lost.length,
      replacedReferences: rescue.replacedCount,
      rootEntriesLeftOut: rescue.rootEntriesLeftOut,
    };
    const rescued = new DirectorySource(stage.target.path);
    try {
      target = new TemporaryTarget(options.out, 'convert');
      const written = target.path;
      const report = await rescued.snapshot((reader) => convertRescued(rescued, reader, options, written, `the rescue of ${check.directory}`, reach));
      target.commit();
      return {
        ...report,
        // The report names the storage the user named, not the hidden rescue (its committed bytes as read).
        source: check.directory,
        sourceDataBytes: check.summary.committedBytes,
        ...(check.kind === undefined ? {} : { kind: check.kind }),
        rescuedFirst,
      };
    } finally {
      await rescued.close();
    }
  } finally {
    pending.discard();
    options.onTemporaryTarget?.(undefined);
  }
}

function refuseBackToMicroStream(location: string): never {
  throw new UsageError(`--to microstream: ${location} is an EclipseStore storage; convert does not move storages back to MicroStream (MicroStream's libraries would not know EclipseStore's types)`);
}

/** A rescued storage (written by us, so not checked again): opened, its references walked for reachability, converted. */
async function convertRescued(from: StorageSource, reader: SourceReader, options: ConvertOptions, directory: string, named: string, reach: WalkedReachability | undefined): Promise<ConvertReport> {
  const root = await reader.listRoot();
  if (!root.files.some((f) => f.name === DICTIONARY_FILE_NAME)) {
    throw new StorageError('STORAGE_NOT_A_STORAGE', `${from.location}: the type dictionary ${DICTIONARY_FILE_NAME} is missing`);
  }
  const layout = await scanStorageLayout(reader, from.location);
  const startup = await analyzeStartup(layout, reader);
  const storage = await Storage.open(new PinnedSource(from, reader), {
    committedLengths: async () => startup.readableLengths,
    onProgress: (p) => options.onProgress?.('indexing', p.bytesDone, p.bytesTotal),
    recordCacheBytes: 0, // every record is read once
    ...(options.maxDictionaryBytes === undefined ? {} : { maxDictionaryBytes: options.maxDictionaryBytes }),
  });
  try {
    if (reach !== undefined) await walkLatestRecords(storage, { references: reach, onProgress: (done, total) => options.onProgress?.('checking records', done, total) });
    return await convertOpened(from, reader, { storage, layout, startup }, options, directory, named, reach);
  } finally {
    await storage.close();
  }
}

/** An opened storage with what its opening read. */
interface Opened {
  readonly storage: Storage;
  readonly layout: StorageLayout;
  readonly startup: StartupAnalysis;
}

/**
 * The copy of an opened storage whose references `reach` has heard (all of them, in a walk over
 * its newest versions). `named`: the storage as messages name it (the user's, also when a rescue
 * of it is read).
 */
async function convertOpened(from: StorageSource, reader: SourceReader, opened: Opened, options: ConvertOptions, directory: string, named: string, reach: WalkedReachability | undefined): Promise<ConvertReport> {
  const { storage, layout, startup } = opened;
  // The check verified every chunk; the algorithm to keep is named by the files' headers: the first file of each channel.
  const chunks = await verifyChunkFiles(startup.readableLengths.channels.flatMap((c) => c.files.slice(0, 1)), reader);
  const sourceFamily = storage.family.name;
  const to = options.to ?? sourceFamily;
  if (sourceFamily === 'eclipsestore' && to === 'microstream') refuseBackToMicroStream(named);
  const renames = sourceFamily === 'microstream' && to === 'eclipsestore';
  const channelCount = options.channels ?? storage.channels.length;
  checkChannelCount(channelCount);
  const keepUnreachable = options.keepUnreachable === true;
  let order: CopyOrder | undefined;
  if (reach !== undefined) {
    options.onProgress?.('finding reachable objects', 0, 1);
    reach.search(storage, named);
    options.onProgress?.('finding reachable objects', 1, 1);
    order = reach.copyOrder();
  }
  const dictionaryText = (await reader.readWhole(layout.dictionaryPath)).toString('utf8');
  const checksums = renames ? 'none' : (chunks.algorithm ?? 'none');
  const fileSize = options.fileSize ?? DEFAULT_FILE_MAXIMUM_SIZE;
  // The records are written with the source's dictionary; the compact one replaces it at the end.
  const writer = StorageWriter.createForRecords(directory, dictionaryText, { channelCount, checksums, fileMaximumSize: fileSize });
  // --current-types: older definitions mapped into the newest one of their name (or left, with the reason).
  const shapes = options.currentTypes === true ? planCurrentShapes(storage.dictionary) : undefined;
  const sourceBytes = storage.channels.reduce((n, c) => n + c.files.reduce((m, f) => m + f.totalLength, 0), 0);
  const writeBehind = wantsWriteBehind(options.writeBehind, sourceBytes);
  const figures = await copyRecords(storage, writer, { named, shapes, order, writeBehind, batch: Math.min(BATCH_BYTES, fileSize), onProgress: options.onProgress });
  const used = typesWritten(figures, shapes);
  const dictionary = compactDictionary({
    sourceText: dictionaryText,
    source: storage.dictionary,
    used,
    sourceBaseText: writerFamily(sourceFamily).baseDictionaryText,
    rename: renames ? { typeName: eclipseStoreTypeName, targetBaseText: writerFamily('eclipsestore').baseDictionaryText } : undefined,
  });
  writeFileSync(dictionaryPath(directory), dictionary.text);
  const types = [...figures.values()]
    .map(({ typeId: _id, rewritten: _r, keptIds: _k, ...f }) => ({ ...f, ...(renames && f.written > 0 ? { writtenAs: eclipseStoreTypeName(f.typeName) } : {}) }))
    .sort((a, b) => b.writtenBytes + b.garbageBytes + b.supersededBytes - (a.writtenBytes + a.garbageBytes + a.supersededBytes) || a.typeName.localeCompare(b.typeName));
  const sum = (key: 'written' | 'writtenBytes' | 'superseded' | 'supersededBytes' | 'garbage' | 'garbageBytes'): number => types.reduce((n, t) => n + t[key], 0);
  return {
    source: from.location,
    ...(from.kind === 'directory' ? {} : { kind: from.kind }),
    out: options.out,
    from: sourceFamily,
    to,
    sourceChannels: storage.channels.length,
    channels: channelCount,
    checksums,
    keepUnreachable,
    sourceDataBytes: sourceBytes,
    dataBytes: dataFileBytes(directory, channelCount),
    written: { objects: sum('written'), bytes: sum('writtenBytes') },
    superseded: { objects: sum('superseded'), bytes: sum('supersededBytes') },
    garbage: { objects: sum('garbage'), bytes: sum('garbageBytes') },
    dictionary: { entries: dictionary.entries, leftOut: dictionary.leftOut, bytes: Buffer.byteLength(dictionary.text) },
    types,
    ...(shapes === undefined ? {} : { currentTypes: currentTypesReport(shapes, [...figures.values()]) }),
  };
}

/** The definitions written: the stored one, or for objects rewritten the newest one of its name. */
function typesWritten(figures: ReadonlyMap<bigint, Figures>, shapes: ReturnType<typeof planCurrentShapes> | undefined): Set<bigint> {
  const used = new Set<bigint>();
  for (const f of figures.values()) {
    if (f.written > f.rewritten) used.add(f.typeId);
    if (f.rewritten > 0) used.add(shapes!.mappings.get(f.typeId)!.to.typeId);
  }
  return used;
}

function currentTypesReport(shapes: ReturnType<typeof planCurrentShapes>, figures: readonly { typeId: bigint; written: number; rewritten: number; keptIds: readonly string[] }[]): CurrentTypesReport {
  const rewritten: CurrentTypesReport['rewritten'][number][] = [];
  const kept: CurrentTypesReport['kept'][number][] = [];
  for (const f of figures) {
    const mapping = shapes.mappings.get(f.typeId);
    if (mapping !== undefined && f.rewritten > 0) {
      rewritten.push({ typeName: mapping.from.typeName, fromTypeId: String(mapping.from.typeId), toTypeId: String(mapping.to.typeId), objects: f.rewritten });
    }
    const ambiguous = shapes.ambiguous.get(f.typeId);
    if (ambiguous !== undefined && f.written > 0) {
      kept.push({ typeName: ambiguous.from.typeName, typeId: String(ambiguous.from.typeId), newestTypeId: String(ambiguous.to.typeId), objects: f.written, objectIds: f.keptIds, reason: ambiguous.reason });
    }
  }
  const byName = (a: { typeName: string }, b: { typeName: string }): number => a.typeName.localeCompare(b.typeName);
  return { objects: rewritten.reduce((n, r) => n + r.objects, 0), rewritten: rewritten.sort(byName), kept: kept.sort(byName) };
}

/** Bytes of the data files written (records and, with checksums, their chunk records). */
function dataFileBytes(directory: string, channels: number): number {
  let total = 0;
  for (let c = 0; c < channels; c++) {
    const dir = join(directory, `channel_${c}`);
    for (const name of readdirSync(dir)) if (name.endsWith('.dat')) total += statSync(join(dir, name)).size;
  }
  return total;
}
