import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve, isAbsolute } from 'node:path';
import { StorageError, UsageError } from '../errors.js';
import { analyzeStartup } from '../check/java-startup.js';
import { MAX_LISTED_DANGLING, walkLatestRecords, type DanglingReference } from '../check/record-findings.js';
import type { Problem } from '../check/problem.js';
import { checkRecord, isDefect } from '../check/record-defects.js';
import { layoutEntity } from '../format/entity-layout.js';
import { forEachReference } from '../format/entity-references.js';
import { isObjectIdHalves } from '../format/ids.js';
import type { Commit } from '../storage/history/commit-history.js';
import { committedLengthsAt } from '../storage/history/point-in-time.js';
import { DirectorySource } from '../storage/source/directory-source.js';
import { PinnedSource } from '../storage/source/pinned-source.js';
import type { SourceReader, StorageSource } from '../storage/source/source.js';
import { DICTIONARY_FILE_NAME, scanStorageLayout } from '../storage/source/storage-dir.js';
import { Storage, type CommittedLengths } from '../storage/storage.js';
import { StorageWriter } from '../writer/storage-writer.js';
import { findOlderVersions, findReferrerRecords, findReferrers } from './older-versions.js';
import { replaceMissingReferences, type ReferenceReplacement } from './reference-replacement.js';
import { constantsAnew, leaveOutLostRootEntries, rootEntries, type ConstantWrittenAnew, type RootEntries } from './lost-constants.js';
import { resolveAsOf, type AsOf } from './as-of.js';
import { TemporaryTarget } from './temporary-target.js';
import { verifyStorageChunks } from '../storage/chunk-verification.js';
import { chunkDamageLookup } from './chunk-damage.js';

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

export interface LostObject {
  readonly objectId: bigint;
  readonly typeId: bigint;
  readonly typeName: string | undefined;
  readonly reason: string;
  readonly file: string;
  readonly offset: number;
}

export interface OlderVersionKept {
  readonly objectId: bigint;
  readonly typeName: string | undefined;
  /** Why the newer version could not be used. */
  readonly reason: string;
}

export interface UnreadableRegion {
  readonly file: string;
  readonly from: number;
  readonly to: number;
  readonly reason: string;
}

export interface RescueReport {
  /** The storage as the user named it (a directory as given, a database URL and table). */
  readonly source: string;
  /** The chunk checksums the new storage is written with (EclipseStore 4.2's `crc32c`, `sha256`, or `none`). */
  readonly checksums: 'none' | 'crc32c' | 'sha256';
  /** Where the storage is kept, when not in a directory (`postgresql`). */
  readonly kind?: string | undefined;
  readonly out: string;
  readonly asOf: Commit | undefined;
  readonly channels: number;
  readonly keptObjects: number;
  readonly keptBytes: number;
  readonly olderVersions: readonly OlderVersionKept[];
  readonly lost: readonly LostObject[];
  readonly unreadableRegions: readonly UnreadableRegion[];
  /** Committed bytes of the source that are gone (missing data files, files cut short): what was stored there is lost. */
  readonly missingData: readonly Problem[];
  /** References to missing objects left in the new storage (with `keepDangling`, all of them). */
  readonly danglingCount: number;
  readonly dangling: readonly DanglingReference[];
  /** References to objects that are not recovered, replaced so that MicroStream starts (listed up to 100,000). */
  readonly replacedCount: number;
  readonly replaced: readonly ReferenceReplacement[];
  readonly keepDangling: boolean;
  /** The new storage has a roots entity (else MicroStream would refuse it: "No roots found"). */
  readonly hasRoots: boolean;
  /** Constants the roots list (empty collections, comparators, …) whose records were lost, written anew under their ids (see lost-constants.ts). */
  readonly constantsWrittenAnew: readonly ConstantWrittenAnew[];
  /** Identifiers of roots entries whose object is lost, left out of the roots (`ROOT`: the application's root reference). */
  readonly rootEntriesLeftOut: readonly string[];
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
      const batch = options.batchBytes ?? BATCH_BYTES;
      const builder = writer.beginStore();
      const flush = (): void => {
        writer.store(builder);
        builder.clear();
      };
      let keptObjects = 0;
      let keptBytes = 0;
      let rootsKept = 0;
      const rootsType = storage.dictionary.currentByName.get(storage.family.rootsTypeName)?.typeId;
      const keepDangling = options.keepDangling === true;
      const channelCount = storage.channels.length;
      // Objects in the index that turn out to be lost (damaged, no older version): known after the walk.
      const lostIds = new Set<bigint>();
      const inIndex = (low: number, high: number): boolean => storage.channels[low & (channelCount - 1)]!.objects.has(low, high);
      // The constants the roots list whose records are not in the index are written anew first, so
      // that their referrers keep their references; those lost in the walk are written after it.
      const rootsNow = await readRootsRecord(storage, rootsType);
      const anew = new Map<bigint, ConstantWrittenAnew & { readonly record: Buffer }>();
      const constantsLostIn = (lost: (objectId: bigint) => boolean): void => {
        if (rootsNow === undefined) return;
        for (const [objectId, constant] of constantsAnew(writer.dictionary, writer.family, rootsNow, lost)) {
          if (anew.has(objectId)) continue;
          anew.set(objectId, constant);
          builder.addRecord(constant.record);
          keptObjects++;
          keptBytes += constant.record.length;
        }
      };
      constantsLostIn((id) => !inIndex(...halves(id)));
      const writtenAnew = (low: number, high: number): boolean => anew.size > 0 && anew.has((BigInt(high) << 32n) | BigInt(low >>> 0));
      const missing = (low: number, high: number): boolean =>
        (!inIndex(low, high) && !writtenAnew(low, high)) || (lostIds.size > 0 && lostIds.has((BigInt(high) << 32n) | BigInt(low >>> 0)));
      const replaced: ReferenceReplacement[] = [];
      const rootEntriesLeftOut: string[] = [];
      let replacedCount = 0;
      let unreplaced = 0;
      /** The record with its references to missing objects replaced, or undefined when nothing is to replace (or it cannot be decoded). */
      const patch = (record: Buffer, channel: number, where: { file: string; offset: number }, only?: ReadonlySet<bigint>): Buffer | undefined => {
        const checked = checkRecord(storage.dictionary, record, channel, channelCount, where);
        if (isDefect(checked) || checked.layout === undefined) return undefined;
        const onReplace = (r: ReferenceReplacement): void => {
          if (only !== undefined && !only.has(r.lost)) return; // reported when the record was first written
          replacedCount++;
          if (replaced.length < MAX_LISTED_DANGLING) replaced.push(r);
        };
        // A null among the roots' entries is refused ("duplicate root objectId"): a lost one is left out.
        if (checked.entry.typeId === rootsType) {
          return leaveOutLostRootEntries(record, checked.layout, (id) => missing(...halves(id)), (r, identifier) => {
            if (!rootEntriesLeftOut.includes(identifier)) rootEntriesLeftOut.push(identifier);
            onReplace(r);
          });
        }
        return replaceMissingReferences(record, checked.layout, missing, onReplace);
      };
      const findings = await walkLatestRecords(storage, {
        onReadable: (original, entry, channel, danglingHere) => {
          let record = original;
          if (danglingHere > 0 && !keepDangling) {
            const before = replacedCount;
            const patched = patch(original, channel, { file: '', offset: 0 });
            if (patched !== undefined) record = patched;
            unreplaced += danglingHere - (replacedCount - before);
          }
          builder.addRecord(record);
          keptObjects++;
          keptBytes += record.length;
          if (entry.typeId === rootsType) rootsKept++;
          if (builder.byteLength >= batch) flush();
        },
        onProgress: (done, total) => options.onProgress?.('copying', done, total),
        ...(damagedAt === undefined ? {} : { damagedAt }),
        present: writtenAnew,
      });

      // Newest versions that cannot be used: look for the newest older version that can.
      const olderVersions: OlderVersionKept[] = [];
      const lost: LostObject[] = [];
      const dangling = [...findings.dangling];
      let danglingCount = findings.danglingCount;
      const damaged = new Map(findings.defects.map((d) => [d.header.objectId, d] as const));
      if (damaged.size > 0) {
        const older = await findOlderVersions(storage, new Set(damaged.keys()), (done, total) => options.onProgress?.('looking for older versions', done, total), damagedAt);
        constantsLostIn((id) => damaged.has(id) && !older.has(id));
        for (const [objectId, d] of damaged) {
          if (older.has(objectId) || anew.has(objectId)) continue;
          lostIds.add(objectId);
          lost.push({ objectId, typeId: d.header.typeId, typeName: storage.dictionary.byId.get(d.header.typeId)?.typeName, reason: d.defect.message, file: d.file, offset: d.offset });
        }
        for (const [objectId, d] of damaged) {
          const found = older.get(objectId);
          if (found === undefined) continue;
          const where = { file: found.file, offset: found.offset };
          const record = (keepDangling ? undefined : patch(found.record, found.channel, where)) ?? found.record;
          builder.addRecord(record);
          keptObjects++;
          keptBytes += record.length;
          if (found.typeId === rootsType) rootsKept++;
          olderVersions.push({ objectId, typeName: storage.dictionary.byId.get(found.typeId)?.typeName, reason: `${d.defect.message} (${d.file} at offset ${d.offset})` });
          if (!keepDangling) continue;
          // The older version may reference objects the storage no longer has.
          const checked = checkRecord(storage.dictionary, found.record, found.channel, channelCount, where);
          if (!isDefect(checked) && checked.layout !== undefined) {
            forEachReference(checked.layout, (low, high) => {
              if (!isObjectIdHalves(low, high) || !missing(low, high)) return;
              danglingCount++;
              dangling.push({ referrer: objectId, referrerType: checked.entry.typeName, missing: (BigInt(high) << 32n) | BigInt(low >>> 0), file: found.file, offset: found.offset });
            });
          }
        }
      }
      const unreadableRegions: UnreadableRegion[] = findings.stops.map((s) => ({ file: s.file.path, from: s.offset, to: s.file.totalLength, reason: s.message }));
      for (const stop of findings.stops) {
        if (stop.header === undefined || damaged.has(stop.header.objectId) || anew.has(stop.header.objectId)) continue;
        const channel = storage.channels[stop.channel]!;
        const kept = channel.objects.get(stop.header.objectId);
        const typeName = storage.dictionary.byId.get(stop.header.typeId)?.typeName;
        const reason = `its record at ${stop.file.path} offset ${stop.offset} cannot be read (${stop.message})`;
        if (kept !== undefined) olderVersions.push({ objectId: stop.header.objectId, typeName, reason });
        else if (typeName !== undefined || stop.header.objectId > 0n) lost.push({ objectId: stop.header.objectId, typeId: stop.header.typeId, typeName, reason, file: stop.file.path, offset: stop.offset });
      }
      // References to objects lost just now (they were in the index, so the first pass took them for present).
      const lostInIndex = new Set(lost.filter((l) => damaged.has(l.objectId)).map((l) => l.objectId));
      if (lostInIndex.size > 0 && keepDangling) {
        const referrers = await findReferrers(storage, lostInIndex, damagedAt);
        danglingCount += referrers.length;
        dangling.push(...referrers);
      } else if (lostInIndex.size > 0) {
        // Their referrers were copied before the loss was known: a later store holds their new version.
        if (builder.records > 0) flush();
        for (const r of await findReferrerRecords(storage, lostInIndex, damagedAt)) {
          const patched = patch(r.record, r.channel, { file: r.file, offset: r.offset }, lostInIndex);
          if (patched !== undefined) builder.addRecord(patched);
        }
      }
      if (!keepDangling) {
        danglingCount = unreplaced;
        dangling.length = 0;
      }
      if (builder.records > 0 || writer.channels.every((c) => c.headNumber === 0n)) flush();
      return {
        source,
        checksums,
        ...(from.kind === 'directory' ? {} : { kind: from.kind }),
        out: options.out,
        asOf,
        channels: storage.channels.length,
        keptObjects,
        keptBytes,
        olderVersions,
        lost,
        unreadableRegions,
        // A point in time that resolved needs no byte that is gone (else resolveAsOf refuses, naming the
        // files): bytes missing from today's state do not touch it.
        missingData: asOf === undefined ? startup.problems.filter((p) => p.missingBytes !== undefined) : [],
        danglingCount,
        dangling,
        replacedCount,
        replaced,
        keepDangling,
        hasRoots: rootsKept > 0,
        constantsWrittenAnew: [...anew.values()].map(({ identifier, objectId, typeName }) => ({ identifier, objectId, typeName })),
        rootEntriesLeftOut,
      };
    } finally {
      writer.close();
    }
  } finally {
    await storage.close();
  }
}

/** The entries of the roots entity as the index has it, or undefined when it has none that decodes. */
async function readRootsRecord(storage: Storage, rootsType: bigint | undefined): Promise<RootEntries | undefined> {
  if (rootsType === undefined || storage.rootsObjectId === 0n) return undefined;
  try {
    const stored = await storage.readEntity(storage.rootsObjectId);
    const entry = stored === undefined || stored.typeId !== rootsType ? undefined : storage.dictionary.byId.get(stored.typeId);
    return entry === undefined ? undefined : rootEntries(layoutEntity(entry, stored!.content));
  } catch {
    return undefined; // a damaged roots record: its older version is used, with lost entries left out
  }
}

/** The two signed 32-bit halves of an object id, as the index takes them. */
function halves(id: bigint): [number, number] {
  return [Number(BigInt.asIntN(32, id)), Number(BigInt.asIntN(32, id >> 32n))];
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
