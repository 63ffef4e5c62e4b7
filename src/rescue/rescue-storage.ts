import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve, isAbsolute } from 'node:path';
import { StorageError, UsageError } from '../errors.js';
import { analyzeStartup } from '../check/java-startup.js';
import type { Problem } from '../check/problem.js';
import type { Commit } from '../storage/history/commit-history.js';
import { committedLengthsAt } from '../storage/history/point-in-time.js';
import { DirectorySource } from '../storage/source/directory-source.js';
import { PinnedSource } from '../storage/source/pinned-source.js';
import type { SourceReader, StorageSource } from '../storage/source/source.js';
import { DICTIONARY_FILE_NAME, scanStorageLayout } from '../storage/source/storage-dir.js';
import { Storage, type CommittedLengths } from '../storage/storage.js';
import { StorageWriter } from '../writer/storage-writer.js';
import { resolveAsOf, type AsOf } from './as-of.js';
import { TemporaryTarget } from './temporary-target.js';
import { verifyStorageChunks } from '../storage/checksums/chunk-verification.js';
import { chunkDamageLookup } from './chunk-damage-lookup.js';
import { copyReadable, type CopyReport } from './rescue-copy.js';

/**
 * `rescue`: a new storage with, for every object, its newest committed version that can still be
 * read (or, with `asOf`, its version as of an earlier commit), written by the storage writer:
 * the same channel count, the whole type dictionary as it is, fresh data files and logs that
 * agree with them. The source is only read. One sequential pass over the source when nothing is
 * damaged; damaged newest versions cost one more pass to find their older versions.
 */

export interface RescueOptions {
  readonly out: string;
  readonly asOf?: AsOf | undefined;
  /** Copy references to objects that are not recovered as they are (MicroStream then refuses to start) instead of replacing them. */
  readonly keepDangling?: boolean | undefined;
  /** Bytes copied per commit of the new storage (default 8 MiB). */
  readonly batchBytes?: number;
  /** A larger type dictionary is refused (default 64 MiB). */
  readonly maxDictionaryBytes?: number | undefined;
  readonly onProgress?: (phase: string, done: number, total: number) => void;
  /** Chunk checksums of the new storage: the source's (EclipseStore 4.2's, or none) unless given. */
  readonly checksums?: 'none' | 'crc32c' | 'sha256' | undefined;
  /** Told the hidden directory the storage is written into before it is renamed to `out` (to remove it on a signal). */
  readonly onTemporaryTarget?: (target: TemporaryTarget | undefined) => void;
}

export type { LostObject, OlderVersionKept, UnreadableRegion } from './rescue-copy.js';

/** What a rescue did: where from and to, and what its copy found (`CopyReport`). */
export interface RescueReport extends CopyReport {
  /** The storage as the user named it (a directory as given, a database URL and table). */
  readonly source: string;
  /** The chunk checksums the new storage is written with (EclipseStore 4.2's `crc32c`, `sha256`, or `none`). */
  readonly checksums: 'none' | 'crc32c' | 'sha256';
  /** Where the storage is kept, when not in a directory (`postgresql`). */
  readonly kind?: string | undefined;
  readonly out: string;
  readonly asOf: Commit | undefined;
  readonly channels: number;
  /** Committed bytes of the source that are gone (missing data files, files cut short): what was stored there is lost. */
  readonly missingData: readonly Problem[];
  readonly keepDangling: boolean;
}

const BATCH_BYTES = 8 * 1024 * 1024;

/**
 * Rescues the storage a directory path or a source names into a new directory. Everything is
 * read inside one snapshot of the source (for PostgreSQL one REPEATABLE READ, READ ONLY
 * transaction); the source is closed at the end. Nothing is ever written to the source.
 */
export async function rescueStorage(location: string | StorageSource, options: RescueOptions): Promise<RescueReport> {
  const source = typeof location === 'string' ? new DirectorySource(location) : location;
  let target: TemporaryTarget | undefined;
  try {
    checkTarget(source, options.out);
    target = new TemporaryTarget(options.out);
    options.onTemporaryTarget?.(target);
    const written = target.path;
    const report = await source.snapshot((reader) => rescueSnapshot(source, reader, options, written));
    target.commit();
    return report;
  } finally {
    target?.discard();
    options.onTemporaryTarget?.(undefined);
    await source.close();
  }
}

async function rescueSnapshot(from: StorageSource, reader: SourceReader, options: RescueOptions, directory: string): Promise<RescueReport> {
  const source = from.location;
  const root = await reader.listRoot();
  if (!root.files.some((f) => f.name === DICTIONARY_FILE_NAME)) {
    throw new StorageError('STORAGE_NOT_A_STORAGE', `${source}: the type dictionary ${DICTIONARY_FILE_NAME} is missing; nothing can be decoded without it (restore it from a backup)`);
  }
  const layout = await scanStorageLayout(reader, source);
  const startup = await analyzeStartup(layout, reader);
  // Records in chunks that fail EclipseStore 4.2's checksums are treated as unreadable.
  const chunks = await verifyStorageChunks(startup.readableLengths, reader, { onProgress: (done, total) => options.onProgress?.('verifying chunk checksums', done, total) });
  const damagedAt = chunkDamageLookup(chunks);
  const checksums = options.checksums ?? chunks.algorithm ?? 'none';
  let asOf: Commit | undefined;
  let committedLengths: CommittedLengths = async () => startup.readableLengths;
  if (options.asOf !== undefined) {
    const point = await resolveAsOf(layout, options.asOf, reader);
    asOf = point.commit;
    committedLengths = committedLengthsAt(point);
  }
  const storage = await Storage.open(new PinnedSource(from, reader), {
    committedLengths,
    onProgress: (p) => options.onProgress?.('indexing', p.bytesDone, p.bytesTotal),
    recordCacheBytes: 0, // every record is read once
    ...(options.maxDictionaryBytes === undefined ? {} : { maxDictionaryBytes: options.maxDictionaryBytes }),
  });
  try {
    const dictionaryText = (await reader.readWhole(layout.dictionaryPath)).toString('utf8');
    const writer = StorageWriter.createForRecords(directory, dictionaryText, { channelCount: storage.channels.length, checksums });
    try {
      const copied = await copyReadable(storage, writer, {
        keepDangling: options.keepDangling === true,
        batchBytes: options.batchBytes ?? BATCH_BYTES,
        damagedAt,
        onProgress: options.onProgress,
      });
      return {
        source,
        checksums,
        ...(from.kind === 'directory' ? {} : { kind: from.kind }),
        out: options.out,
        asOf,
        channels: storage.channels.length,
        keptObjects: copied.keptObjects,
        keptBytes: copied.keptBytes,
        olderVersions: copied.olderVersions,
        lost: copied.lost,
        unreadableRegions: copied.unreadableRegions,
        // A point in time that resolved needs no byte that is gone (else resolveAsOf refuses, naming the
        // files): bytes missing from today's state do not touch it.
        missingData: asOf === undefined ? startup.problems.filter((p) => p.missingBytes !== undefined) : [],
        danglingCount: copied.danglingCount,
        dangling: copied.dangling,
        replacedCount: copied.replacedCount,
        replaced: copied.replaced,
        keepDangling: options.keepDangling === true,
        hasRoots: copied.hasRoots,
        constantsWrittenAnew: copied.constantsWrittenAnew,
        rootEntriesLeftOut: copied.rootEntriesLeftOut,
      };
    } finally {
      writer.close();
    }
  } finally {
    await storage.close();
  }
}

/** The output must be a new or empty directory, and not inside the storage directory being rescued. */
function checkTarget(from: StorageSource, out: string): void {
  if (from.kind !== 'directory') return; // a storage kept in a database: the new directory cannot lie inside it
  const source = from.location;
  const real = (p: string): string => {
    let at = resolve(p);
    while (!existsSync(at)) at = dirname(at);
    return join(realpathSync(at), relative(at, resolve(p)));
  };
  const inside = relative(real(source), real(out));
  if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) {
    throw new UsageError(`--out ${out} lies inside the storage ${source}: rescue never writes into the storage it reads`);
  }
}
