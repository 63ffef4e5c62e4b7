import { streamRecords } from '../storage/records/record-stream.js';
import type { Storage } from '../storage/storage.js';
import { RecordWindow } from './record-window.js';

/**
 * The walk at the heart of a diff: every latest record of storage A, in file order, is matched by
 * object id with the latest record of the same object in storage B and compared byte for byte;
 * only records that differ are handed on (copied) to be decoded. Objects B has and A has not are
 * found from B's index and read from B's files that hold them. Nothing is kept per object: the
 * two indexes answer every lookup, and what is counted is counted per type.
 */

export interface RecordSide {
  readonly typeId: bigint;
  /** The whole record (header included), a copy. */
  readonly record: Buffer;
  readonly file: string;
  readonly offset: number;
}

export type ChangeKind = 'added' | 'removed' | 'changed';

export interface RecordDifference {
  readonly change: ChangeKind;
  readonly objectId: bigint;
  /** The record in A (removed, changed). */
  readonly before?: RecordSide;
  /** The record in B (added, changed). */
  readonly after?: RecordSide;
}

/** Objects counted per type id (of A for unchanged and removed, of B for added and changed). */
export interface RecordCounts {
  readonly unchanged: Map<bigint, number>;
  readonly removed: Map<bigint, number>;
  readonly changed: Map<bigint, number>;
  readonly added: Map<bigint, number>;
  /** Type ids of the records compared on each side (what type changes are looked for in). */
  readonly usedBefore: Set<bigint>;
  readonly usedAfter: Set<bigint>;
}

export interface CompareOptions {
  /**
   * Both storages are states of the same files (two points of one storage's history): a latest
   * record at the same place of the same data file is the same record, and is not read twice.
   */
  readonly sameFiles: boolean;
  /** Only objects whose type (on either side) this accepts; all when absent. */
  readonly acceptsType?: (typeId: bigint, side: 'before' | 'after') => boolean;
  readonly onDifference: (difference: RecordDifference) => void | Promise<void>;
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
}

const RECORD_HEADER = 24;

export async function compareRecords(a: Storage, b: Storage, options: CompareOptions): Promise<RecordCounts> {
  const counts: RecordCounts = { unchanged: new Map(), removed: new Map(), changed: new Map(), added: new Map(), usedBefore: new Set(), usedAfter: new Set() };
  const accepts = options.acceptsType ?? (() => true);
  const bump = (map: Map<bigint, number>, typeId: bigint): void => void map.set(typeId, (map.get(typeId) ?? 0) + 1);
  const window = new RecordWindow(b.source);
  const aMask = a.channels.length - 1;
  const bMask = b.channels.length - 1;
  const addedSlots = b.channels.map(() => [] as number[]);
  let addedBytes = 0;
  // Which of B's files hold objects A lacks (the index alone tells, no record read).
  b.channels.forEach((channel, index) => {
    const slots = addedSlots[index]!;
    channel.objects.forEach((low, high, fileSlot) => {
      if (a.channels[low & aMask]!.objects.has(low, high)) return;
      if (slots[fileSlot] === undefined) {
        slots[fileSlot] = 1;
        addedBytes += channel.fileAt(fileSlot)?.totalLength ?? 0;
      }
    });
  });
  const total = a.channels.reduce((n, c) => n + c.files.reduce((m, f) => m + f.totalLength, 0), 0) + addedBytes;
  let done = 0;

  // The record of A being compared, for `compare` (one function for all records, not a closure
  // per record: that and its bigints were a third of the walk's time at 1M objects). The walk
  // waits for a comparison that reads, so these stay put until it is done.
  let bytesA: Buffer = Buffer.alloc(0);
  let atA = 0;
  let lengthA = 0;
  let typeA = 0n;
  let idA = 0n;
  let fileA = '';
  let offsetA = 0;
  let fileB = '';
  let offsetB = 0;
  const compare = (record: Buffer): void | Promise<void> => {
    const afterType = record.readBigInt64LE(8);
    if (!accepts(typeA, 'before') && !accepts(afterType, 'after')) return;
    counts.usedBefore.add(typeA);
    counts.usedAfter.add(afterType);
    if (record.length === lengthA && bytesA.compare(record, 0, lengthA, atA, atA + lengthA) === 0) {
      bump(counts.unchanged, typeA);
      return;
    }
    bump(counts.changed, afterType);
    return options.onDifference({
      change: 'changed',
      objectId: idA,
      before: side(bytesA, atA, lengthA, typeA, fileA, offsetA),
      after: side(record, 0, record.length, afterType, fileB, offsetB),
    });
  };

  // Where the storages have the same channels, most objects of a copy lie at the same offset of
  // the file with the same number: asked with the halves of the id (no bigint, no location
  // object), and compared at once; anything else takes the general way.
  const sameChannels = a.channels.length === b.channels.length;
  const unfiltered = options.acceptsType === undefined;
  /** Unchanged objects per type id below 2^32, counted without a bigint (merged into `counts` at the end). */
  const unchangedSmall = new Map<number, number>();
  for (const channel of a.channels) {
    for (const file of channel.files) {
      const twin = sameChannels ? b.channels[channel.index]!.files.find((f) => f.fileNumber === file.fileNumber) : undefined;
      const twinIndex = sameChannels ? b.channels[channel.index]!.objects : undefined;
      await streamRecords(a.source, file.path, 0, file.problem?.offset ?? file.totalLength, (bytes, at, offset, length) => {
        const low = bytes.readInt32LE(at + 16);
        const high = bytes.readInt32LE(at + 20);
        if (!channel.objects.isLatest(low, high, file.slot, offset)) return;
        if (twin !== undefined && offset + length <= twin.totalLength && twinIndex!.isLatest(low, high, twin.slot, offset)) {
          // The header (length, type, id) is among the bytes compared: equal bytes are the same record.
          if (window.equals(twin.path, offset, bytes, at, length) === true) {
            const typeHigh = bytes.readInt32LE(at + 12);
            if (unfiltered && typeHigh === 0) {
              // Counted by a number: no bigint per unchanged object.
              const typeLow = bytes.readUInt32LE(at + 8);
              unchangedSmall.set(typeLow, (unchangedSmall.get(typeLow) ?? 0) + 1);
              return;
            }
            const typeId = bytes.readBigInt64LE(at + 8);
            if (!accepts(typeId, 'before')) return;
            counts.usedBefore.add(typeId);
            counts.usedAfter.add(typeId);
            bump(counts.unchanged, typeId);
            return;
          }
        }
        const typeId = bytes.readBigInt64LE(at + 8);
        const objectId = bytes.readBigInt64LE(at + 16);
        const other = b.channels[low & bMask]!;
        const location = other.objects.get(objectId);
        const otherFile = location === undefined ? undefined : other.fileAt(location.fileSlot);
        if (location === undefined || otherFile === undefined) {
          if (!accepts(typeId, 'before')) return;
          counts.usedBefore.add(typeId);
          bump(counts.removed, typeId);
          return options.onDifference({ change: 'removed', objectId, before: side(bytes, at, length, typeId, file.path, offset) });
        }
        if (options.sameFiles && otherFile.fileNumber === file.fileNumber && location.offset === offset && location.length === length) {
          if (!accepts(typeId, 'before')) return;
          counts.usedBefore.add(typeId);
          counts.usedAfter.add(typeId);
          bump(counts.unchanged, typeId);
          return;
        }
        bytesA = bytes;
        atA = at;
        lengthA = length;
        typeA = typeId;
        idA = objectId;
        fileA = file.path;
        offsetA = offset;
        fileB = otherFile.path;
        offsetB = location.offset;
        const held = window.peek(otherFile.path, location.offset, location.length);
        if (held !== undefined) return compare(held);
        return window.record(otherFile.path, location.offset, location.length, otherFile.totalLength).then(compare);
      });
      done += file.totalLength;
      options.onProgress?.(done, total);
    }
  }

  for (const channel of b.channels) {
    for (const file of channel.files) {
      if (addedSlots[channel.index]![file.slot] === undefined) continue;
      await streamRecords(b.source, file.path, 0, file.problem?.offset ?? file.totalLength, (bytes, at, offset, length) => {
        const low = bytes.readInt32LE(at + 16);
        const high = bytes.readInt32LE(at + 20);
        if (!channel.objects.isLatest(low, high, file.slot, offset) || a.channels[low & aMask]!.objects.has(low, high)) return;
        const typeId = bytes.readBigInt64LE(at + 8);
        if (!accepts(typeId, 'after')) return;
        counts.usedAfter.add(typeId);
        bump(counts.added, typeId);
        return options.onDifference({ change: 'added', objectId: bytes.readBigInt64LE(at + 16), after: side(bytes, at, length, typeId, file.path, offset) });
      });
      done += file.totalLength;
      options.onProgress?.(done, total);
    }
  }
  for (const [typeLow, n] of unchangedSmall) {
    const typeId = BigInt(typeLow);
    counts.unchanged.set(typeId, (counts.unchanged.get(typeId) ?? 0) + n);
    counts.usedBefore.add(typeId);
    counts.usedAfter.add(typeId);
  }
  return counts;
}

function side(bytes: Buffer, at: number, length: number, typeId: bigint, file: string, offset: number): RecordSide {
  if (length < RECORD_HEADER) throw new RangeError(`${file}: record of ${length} bytes at ${offset}`);
  return { typeId, record: Buffer.from(bytes.subarray(at, at + length)), file, offset };
}
