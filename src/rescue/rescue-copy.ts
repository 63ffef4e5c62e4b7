import { MAX_LISTED_DANGLING, walkLatestRecords, type DanglingReference, type DefectiveRecord, type LatestRecordsFindings } from '../check/record-findings.js';
import { checkRecord, isDefect, type RecordDefect } from '../check/record-defects.js';
import { layoutEntity } from '../format/entity-layout.js';
import { forEachReference } from '../format/entity-references.js';
import { isObjectIdHalves } from '../format/ids.js';
import type { Storage } from '../storage/storage.js';
import type { StorageWriter } from '../writer/storage-writer.js';
import { findOlderVersions, findReferrerRecords, findReferrers } from './older-versions.js';
import { replaceMissingReferences, type ReferenceReplacement } from './reference-replacement.js';
import { constantsAnew, leaveOutLostRootEntries, rootEntries, type ConstantWrittenAnew, type RootEntries } from './lost-constants.js';

/**
 * The copy of one rescue (rescue-storage.ts opens the source and the new storage around it): the
 * newest readable version of every object written to the new storage in one pass, then for newest
 * versions that cannot be read their newest readable older version, lost constants of the roots
 * written anew, and references to lost objects replaced (unless dangling references are kept).
 */

/** What a rescue's copy needs beside the opened source storage and the writer of the new one. */
export interface RescueCopyOptions {
  readonly keepDangling: boolean;
  /** Bytes copied per commit of the new storage. */
  readonly batchBytes: number;
  readonly damagedAt: ((file: string, offset: number) => RecordDefect | undefined) | undefined;
  readonly onProgress: ((phase: string, done: number, total: number) => void) | undefined;
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

/** What the copy found: the part of the rescue report (rescue-storage.ts) it makes. */
export interface CopyReport {
  readonly keptObjects: number;
  readonly keptBytes: number;
  readonly olderVersions: readonly OlderVersionKept[];
  readonly lost: readonly LostObject[];
  readonly unreadableRegions: readonly UnreadableRegion[];
  /** References to missing objects left in the new storage (with `keepDangling`, all of them). */
  readonly danglingCount: number;
  readonly dangling: readonly DanglingReference[];
  /** References to objects that are not recovered, replaced so that MicroStream starts (listed up to 100,000). */
  readonly replacedCount: number;
  readonly replaced: readonly ReferenceReplacement[];
  /** The new storage has a roots entity (else MicroStream would refuse it: "No roots found"). */
  readonly hasRoots: boolean;
  /** Constants the roots list (empty collections, comparators, …) whose records were lost, written anew under their ids (see lost-constants.ts). */
  readonly constantsWrittenAnew: readonly ConstantWrittenAnew[];
  /** Identifiers of roots entries whose object is lost, left out of the roots (`ROOT`: the application's root reference). */
  readonly rootEntriesLeftOut: readonly string[];
}

export async function copyReadable(storage: Storage, writer: StorageWriter, options: RescueCopyOptions): Promise<CopyReport> {
  const copy = new RescueCopy(storage, writer, options);
  await copy.start();
  copy.writeConstantsLost((id) => !copy.inIndex(...halves(id)));
  const findings = await copy.copyLatest();
  const damaged = new Map(findings.defects.map((d) => [d.header.objectId, d] as const));
  if (damaged.size > 0) await copy.keepOlderVersions(damaged);
  copy.noteStops(findings, damaged);
  await copy.replaceLostNow(damaged);
  return copy.finish();
}

class RescueCopy {
  private readonly builder: ReturnType<StorageWriter['beginStore']>;
  private keptObjects = 0;
  private keptBytes = 0;
  private rootsKept = 0;
  private readonly rootsType: bigint | undefined;
  private readonly channelCount: number;
  /** Objects in the index that turn out to be lost (damaged, no older version): known after the walk. */
  private readonly lostIds = new Set<bigint>();
  /** The roots entity's entries, when it decodes: which constants to write anew. */
  private rootsNow: RootEntries | undefined;
  private readonly anew = new Map<bigint, ConstantWrittenAnew & { readonly record: Buffer }>();
  private readonly replaced: ReferenceReplacement[] = [];
  private readonly rootEntriesLeftOut: string[] = [];
  private replacedCount = 0;
  /** References to missing objects that could not be replaced (their record does not decode). */
  private unreplaced = 0;
  private readonly olderVersions: OlderVersionKept[] = [];
  private readonly lost: LostObject[] = [];
  private dangling: DanglingReference[] = [];
  private danglingCount = 0;
  private unreadableRegions: UnreadableRegion[] = [];

  constructor(
    private readonly storage: Storage,
    private readonly writer: StorageWriter,
    private readonly options: RescueCopyOptions,
  ) {
    this.builder = writer.beginStore();
    this.rootsType = storage.dictionary.currentByName.get(storage.family.rootsTypeName)?.typeId;
    this.channelCount = storage.channels.length;
  }

  /** Reads the roots entity first: the constants it lists are written before everything else. */
  async start(): Promise<void> {
    this.rootsNow = await readRootsRecord(this.storage, this.rootsType);
  }

  readonly inIndex = (low: number, high: number): boolean => this.storage.channels[low & (this.channelCount - 1)]!.objects.has(low, high);

  private readonly writtenAnew = (low: number, high: number): boolean => this.anew.size > 0 && this.anew.has((BigInt(high) << 32n) | BigInt(low >>> 0));

  private readonly missing = (low: number, high: number): boolean =>
    (!this.inIndex(low, high) && !this.writtenAnew(low, high)) || (this.lostIds.size > 0 && this.lostIds.has((BigInt(high) << 32n) | BigInt(low >>> 0)));

  private flush(): void {
    this.writer.store(this.builder);
    this.builder.clear();
  }

  private keep(record: Buffer, typeId: bigint): void {
    this.builder.addRecord(record);
    this.keptObjects++;
    this.keptBytes += record.length;
    if (typeId === this.rootsType) this.rootsKept++;
  }

  /**
   * The constants the roots list whose records are `lost` are written anew, so that their
   * referrers keep their references: before the walk those not in the index, after it those lost in it.
   */
  writeConstantsLost(lost: (objectId: bigint) => boolean): void {
    if (this.rootsNow === undefined) return;
    for (const [objectId, constant] of constantsAnew(this.writer.dictionary, this.writer.family, this.rootsNow, lost)) {
      if (this.anew.has(objectId)) continue;
      this.anew.set(objectId, constant);
      this.builder.addRecord(constant.record);
      this.keptObjects++;
      this.keptBytes += constant.record.length;
    }
  }

  /** The record with its references to missing objects replaced, or undefined when nothing is to replace (or it cannot be decoded). */
  private patch(record: Buffer, channel: number, where: { file: string; offset: number }, only?: ReadonlySet<bigint>): Buffer | undefined {
    const checked = checkRecord(this.storage.dictionary, record, channel, this.channelCount, where);
    if (isDefect(checked) || checked.layout === undefined) return undefined;
    const onReplace = (r: ReferenceReplacement): void => {
      if (only !== undefined && !only.has(r.lost)) return; // reported when the record was first written
      this.replacedCount++;
      if (this.replaced.length < MAX_LISTED_DANGLING) this.replaced.push(r);
    };
    // A null among the roots' entries is refused ("duplicate root objectId"): a lost one is left out.
    if (checked.entry.typeId === this.rootsType) {
      return leaveOutLostRootEntries(record, checked.layout, (id) => this.missing(...halves(id)), (r, identifier) => {
        if (!this.rootEntriesLeftOut.includes(identifier)) this.rootEntriesLeftOut.push(identifier);
        onReplace(r);
      });
    }
    return replaceMissingReferences(record, checked.layout, this.missing, onReplace);
  }

  /** The newest readable version of every object, its references to missing objects replaced. */
  async copyLatest(): Promise<LatestRecordsFindings> {
    const keepDangling = this.options.keepDangling;
    const batch = this.options.batchBytes;
    const findings = await walkLatestRecords(this.storage, {
      onReadable: (original, entry, channel, danglingHere) => {
        let record = original;
        if (danglingHere > 0 && !keepDangling) {
          const before = this.replacedCount;
          const patched = this.patch(original, channel, { file: '', offset: 0 });
          if (patched !== undefined) record = patched;
          this.unreplaced += danglingHere - (this.replacedCount - before);
        }
        this.keep(record, entry.typeId);
        if (this.builder.byteLength >= batch) this.flush();
      },
      onProgress: (done, total) => this.options.onProgress?.('copying', done, total),
      ...(this.options.damagedAt === undefined ? {} : { damagedAt: this.options.damagedAt }),
      present: this.writtenAnew,
    });
    this.dangling = [...findings.dangling];
    this.danglingCount = findings.danglingCount;
    return findings;
  }

  /** Newest versions that cannot be used: the newest older version that can, else the object is lost. */
  async keepOlderVersions(damaged: ReadonlyMap<bigint, DefectiveRecord>): Promise<void> {
    const { storage, options } = this;
    const older = await findOlderVersions(storage, new Set(damaged.keys()), (done, total) => options.onProgress?.('looking for older versions', done, total), options.damagedAt);
    this.writeConstantsLost((id) => damaged.has(id) && !older.has(id));
    for (const [objectId, d] of damaged) {
      if (older.has(objectId) || this.anew.has(objectId)) continue;
      this.lostIds.add(objectId);
      this.lost.push({ objectId, typeId: d.header.typeId, typeName: storage.dictionary.byId.get(d.header.typeId)?.typeName, reason: d.defect.message, file: d.file, offset: d.offset });
    }
    for (const [objectId, d] of damaged) {
      const found = older.get(objectId);
      if (found === undefined) continue;
      const where = { file: found.file, offset: found.offset };
      const record = (options.keepDangling ? undefined : this.patch(found.record, found.channel, where)) ?? found.record;
      this.keep(record, found.typeId);
      this.olderVersions.push({ objectId, typeName: storage.dictionary.byId.get(found.typeId)?.typeName, reason: `${d.defect.message} (${d.file} at offset ${d.offset})` });
      if (!options.keepDangling) continue;
      // The older version may reference objects the storage no longer has.
      const checked = checkRecord(storage.dictionary, found.record, found.channel, this.channelCount, where);
      if (!isDefect(checked) && checked.layout !== undefined) {
        forEachReference(checked.layout, (low, high) => {
          if (!isObjectIdHalves(low, high) || !this.missing(low, high)) return;
          this.danglingCount++;
          this.dangling.push({ referrer: objectId, referrerType: checked.entry.typeName, missing: (BigInt(high) << 32n) | BigInt(low >>> 0), file: found.file, offset: found.offset });
        });
      }
    }
  }

  /** Where files could not be walked to their end, and the object whose record lies cut there. */
  noteStops(findings: LatestRecordsFindings, damaged: ReadonlyMap<bigint, DefectiveRecord>): void {
    const storage = this.storage;
    this.unreadableRegions = findings.stops.map((s) => ({ file: s.file.path, from: s.offset, to: s.file.totalLength, reason: s.message }));
    for (const stop of findings.stops) {
      if (stop.header === undefined || damaged.has(stop.header.objectId) || this.anew.has(stop.header.objectId)) continue;
      const channel = storage.channels[stop.channel]!;
      const kept = channel.objects.get(stop.header.objectId);
      const typeName = storage.dictionary.byId.get(stop.header.typeId)?.typeName;
      const reason = `its record at ${stop.file.path} offset ${stop.offset} cannot be read (${stop.message})`;
      if (kept !== undefined) this.olderVersions.push({ objectId: stop.header.objectId, typeName, reason });
      else if (typeName !== undefined || stop.header.objectId > 0n) this.lost.push({ objectId: stop.header.objectId, typeId: stop.header.typeId, typeName, reason, file: stop.file.path, offset: stop.offset });
    }
  }

  /** References to objects lost just now (they were in the index, so the first pass took them for present). */
  async replaceLostNow(damaged: ReadonlyMap<bigint, DefectiveRecord>): Promise<void> {
    const lostInIndex = new Set(this.lost.filter((l) => damaged.has(l.objectId)).map((l) => l.objectId));
    if (lostInIndex.size > 0 && this.options.keepDangling) {
      const referrers = await findReferrers(this.storage, lostInIndex, this.options.damagedAt);
      this.danglingCount += referrers.length;
      this.dangling.push(...referrers);
    } else if (lostInIndex.size > 0) {
      // Their referrers were copied before the loss was known: a later store holds their new version.
      if (this.builder.records > 0) this.flush();
      for (const r of await findReferrerRecords(this.storage, lostInIndex, this.options.damagedAt)) {
        const patched = this.patch(r.record, r.channel, { file: r.file, offset: r.offset }, lostInIndex);
        if (patched !== undefined) this.builder.addRecord(patched);
      }
    }
  }

  /** The last store written (an empty storage gets one too), and what the copy found. */
  finish(): CopyReport {
    if (!this.options.keepDangling) {
      this.danglingCount = this.unreplaced;
      this.dangling.length = 0;
    }
    if (this.builder.records > 0 || this.writer.channels.every((c) => c.headNumber === 0n)) this.flush();
    return {
      keptObjects: this.keptObjects,
      keptBytes: this.keptBytes,
      olderVersions: this.olderVersions,
      lost: this.lost,
      unreadableRegions: this.unreadableRegions,
      danglingCount: this.danglingCount,
      dangling: this.dangling,
      replacedCount: this.replacedCount,
      replaced: this.replaced,
      hasRoots: this.rootsKept > 0,
      constantsWrittenAnew: [...this.anew.values()].map(({ identifier, objectId, typeName }) => ({ identifier, objectId, typeName })),
      rootEntriesLeftOut: this.rootEntriesLeftOut,
    };
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
