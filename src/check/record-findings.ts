import { int32At } from '../format/int32-at.js';
import { classifyId, isObjectIdHalves } from '../format/ids.js';
import { forEachLatestRecordBytes } from '../storage/records/latest-records.js';
import type { Storage, StorageFile } from '../storage/storage.js';
import type { TypeEntry } from '../format/type-dictionary.js';
import { RecordChecker } from './record-checker.js';
import { readHeader, type RecordDefect, type RecordHeader } from './record-defects.js';

/**
 * One pass over every data file of an opened storage, in file order with sequential reads: each
 * record that is the newest version of its object (by the storage's index) is checked and decoded,
 * and its references are looked up in the index. Memory stays constant beyond the index and the
 * findings (defective records and dangling references, normally few).
 */

export interface DefectiveRecord {
  readonly channel: number;
  readonly header: RecordHeader;
  readonly file: string;
  readonly offset: number;
  readonly defect: RecordDefect;
}

export interface DanglingReference {
  readonly referrer: bigint;
  readonly referrerType: string;
  readonly missing: bigint;
  readonly file: string;
  readonly offset: number;
}

/** A data file whose record walk stopped before its committed end. */
export interface FileStop {
  readonly channel: number;
  readonly file: StorageFile;
  readonly offset: number;
  readonly message: string;
  /** The header at the stop, if 24 bytes are there (a record cut off or with a broken length). */
  readonly header: RecordHeader | undefined;
}

export interface LatestRecordsFindings {
  /** Records met, older versions included (the walk's ordinals run from 0 to this). */
  readonly records: number;
  /** Newest versions found (objects). */
  readonly objects: number;
  readonly readableObjects: number;
  readonly readableBytes: number;
  readonly defects: readonly DefectiveRecord[];
  readonly danglingCount: number;
  /** The dangling references, up to `MAX_LISTED_DANGLING`. */
  readonly dangling: readonly DanglingReference[];
  readonly stops: readonly FileStop[];
  readonly rootsEntities: number;
  /** Types whose records are stored in another layout than declared (copied as they are, not decoded). */
  readonly opaqueTypes: readonly OpaqueType[];
}

export interface OpaqueType {
  readonly typeId: bigint;
  readonly typeName: string;
  readonly reason: string;
  count: number;
  readonly file: string;
  readonly offset: number;
}

export interface LatestRecordsOptions {
  /**
   * Every readable newest version, with its bytes (valid during the call only) and how many of its
   * references point to objects the index does not have.
   */
  readonly onReadable?: (record: Buffer, entry: TypeEntry, channel: number, dangling: number) => void;
  readonly onProgress?: (bytesDone: number, bytesTotal: number) => void;
  /** Records that count as unreadable where they lie (rescue: in chunks that fail their checksums). */
  readonly damagedAt?: (file: string, offset: number) => RecordDefect | undefined;
  /** Objects the index lacks that count as there all the same (rescue writes lost constants anew). */
  readonly present?: (low: number, high: number) => boolean;
  /**
   * Told the id of every readable newest version (as 32-bit halves), then each of its references
   * to an object id (dangling ones too): convert's reachability from this walk, without a second.
   */
  readonly references?: ReferenceListener | undefined;
}

export interface ReferenceListener {
  /** Called once before the walk, with the storage walked. */
  begin(storage: Storage): void;
  /**
   * Every newest version the walk meets, readable or not, in walk order: its number among all
   * records walked (`forEachLatestRecordBytes`' ordinal) and its id's halves. The references of a
   * readable one follow.
   */
  latest(ordinal: number, low: number, high: number): void;
  /** Returns whether the storage's index has the target (as `ObjectIndex.has` would). */
  reference(low: number, high: number): boolean;
}

export const MAX_LISTED_DANGLING = 100_000;

export async function walkLatestRecords(storage: Storage, options: LatestRecordsOptions = {}): Promise<LatestRecordsFindings> {
  const channelCount = storage.channels.length;
  const mask = channelCount - 1;
  const rootsType = storage.dictionary.currentByName.get(storage.family.rootsTypeName)?.typeId;
  const defects: DefectiveRecord[] = [];
  const dangling: DanglingReference[] = [];
  const stops: FileStop[] = [];
  const opaque = new Map<bigint, OpaqueType>();
  let danglingCount = 0;
  let objects = 0;
  let readableObjects = 0;
  let readableBytes = 0;
  let rootsEntities = 0;
  const bytesTotal = storage.channels.reduce((n, c) => n + c.files.reduce((m, f) => m + f.totalLength, 0), 0);
  let bytesDone = 0;

  const present = options.present;
  const listener = options.references;
  listener?.begin(storage);
  const checker = new RecordChecker(storage.dictionary, channelCount);
  // What the reference sink needs to know about the record being walked (one closure for all).
  let currentBytes: Buffer = Buffer.alloc(0);
  let currentAt = 0;
  let currentOffset = 0;
  let currentFile = '';
  let currentType = '';
  const onReference = (refLow: number, refHigh: number): void => {
    if (!isObjectIdHalves(refLow, refHigh)) return; // null, constants (JDK value caches), type ids
    // The listener looks the target up anyway: its answer saves a second lookup.
    if (listener !== undefined ? listener.reference(refLow, refHigh) : storage.channels[refLow & mask]!.objects.has(refLow, refHigh)) return;
    if (present !== undefined && present(refLow, refHigh)) return;
    danglingCount++;
    if (dangling.length < MAX_LISTED_DANGLING) {
      const referrer = currentBytes.readBigInt64LE(currentAt + 16);
      dangling.push({ referrer, referrerType: currentType, missing: joinHalves(refLow, refHigh), file: currentFile, offset: currentOffset });
    }
  };

  const records = await forEachLatestRecordBytes(
    storage,
    (bytes, at, offset, length, channel, file, ordinal) => {
      objects++;
      if (listener !== undefined) listener.latest(ordinal, int32At(bytes, at + 16), int32At(bytes, at + 20));
      const defect = options.damagedAt?.(file.path, offset) ?? checker.check(bytes, at, length, channel.index, { file: file.path, offset });
      if (defect !== undefined) {
        defects.push({ channel: channel.index, header: readHeader(bytes.subarray(at, at + 24)), file: file.path, offset, defect });
        return;
      }
      const entry = checker.entry!;
      readableObjects++;
      readableBytes += length;
      if (entry.typeId === rootsType) rootsEntities++;
      if (checker.opaque !== undefined) {
        const seen = opaque.get(entry.typeId);
        if (seen === undefined) opaque.set(entry.typeId, { typeId: entry.typeId, typeName: entry.typeName, reason: checker.opaque, count: 1, file: file.path, offset });
        else seen.count++;
      }
      currentBytes = bytes;
      currentAt = at;
      currentOffset = offset;
      currentFile = file.path;
      currentType = entry.typeName;
      const danglingBefore = danglingCount;
      checker.forEachReference(bytes, at, onReference);
      options.onReadable?.(bytes.subarray(at, at + length), entry, channel.index, danglingCount - danglingBefore);
    },
    async (channel, file) => {
      if (file.problem !== undefined) {
        stops.push({ channel: channel.index, file, offset: file.problem.offset, message: file.problem.message, header: await headerAt(storage, file, file.problem.offset) });
      }
      bytesDone += file.totalLength;
      options.onProgress?.(bytesDone, bytesTotal);
    },
  );
  return { records, objects, readableObjects, readableBytes, defects, danglingCount, dangling, stops, rootsEntities, opaqueTypes: [...opaque.values()] };
}

function joinHalves(low: number, high: number): bigint {
  return (BigInt(high) << 32n) | BigInt(low >>> 0);
}

/**
 * Where the walk stops before a data file's committed end (its scan found a problem there): what
 * `walkLatestRecords` reports as `stops`, in the same order, for walks made elsewhere (in threads).
 */
export async function fileStops(storage: Storage): Promise<FileStop[]> {
  const stops: FileStop[] = [];
  for (const channel of storage.channels) {
    for (const file of channel.files) {
      if (file.problem !== undefined) stops.push({ channel: channel.index, file, offset: file.problem.offset, message: file.problem.message, header: await headerAt(storage, file, file.problem.offset) });
    }
  }
  return stops;
}

async function headerAt(storage: Storage, file: StorageFile, offset: number): Promise<RecordHeader | undefined> {
  try {
    const header = readHeader(await storage.source.read(file.path, offset, 24));
    // Only a plausible header names an object (zeroed or overwritten bytes do not).
    return header.length > 0 && classifyId(header.objectId) === 'object' ? header : undefined;
  } catch {
    return undefined; // fewer than 24 bytes there
  }
}
