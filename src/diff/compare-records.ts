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
  let total = a.channels.reduce((n, c) => n + c.files.reduce((m, f) => m + f.totalLength, 0), 0);
  let done = 0;
  /** Objects of A that B has too: when that is all of B, B has no object A lacks (no look at B's index needed). */
  let matched = 0;

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
  const unchangedSmall = new TypeCounter();
  let viewed: Buffer | undefined;
  let view: DataView = new DataView(new ArrayBuffer(0));
  for (const channel of a.channels) {
    for (const file of channel.files) {
      const twin = sameChannels ? b.channels[channel.index]!.files.find((f) => f.fileNumber === file.fileNumber) : undefined;
      const twinIndex = sameChannels ? b.channels[channel.index]!.objects : undefined;
      // A range of the twin file known to hold exactly A's bytes (compared a block at a time: one
      // comparison per BLOCK bytes instead of one per record), and one known to differ somewhere.
      let equalFrom = 0;
      let equalTo = 0;
      let differsTo = 0;
      await streamRecords(a.source, file.path, 0, file.problem?.offset ?? file.totalLength, (bytes, at, offset, length) => {
        // A DataView per chunk (Buffer's own readers check their arguments on every call).
        if (bytes !== viewed) {
          viewed = bytes;
          view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        }
        const low = view.getInt32(at + 16, true);
        const high = view.getInt32(at + 20, true);
        if (!channel.objects.isLatest(low, high, file.slot, offset)) return;
        const atTwin = twin !== undefined && offset + length <= twin.totalLength && twinIndex!.isLatest(low, high, twin.slot, offset);
        if (atTwin) {
          matched++;
          let same = offset >= equalFrom && offset + length <= equalTo;
          if (!same && offset >= differsTo) {
            const span = Math.min(BLOCK, bytes.length - at, twin.totalLength - offset, window.heldFrom(twin.path, offset));
            if (span > length) {
              if (window.equals(twin.path, offset, bytes, at, span) === true) {
                equalFrom = offset;
                equalTo = offset + span;
                same = true;
              } else differsTo = offset + span;
            }
          }
          // The header (length, type, id) is among the bytes compared: equal bytes are the same record.
          if (same || window.equals(twin.path, offset, bytes, at, length) === true) {
            const typeHigh = view.getInt32(at + 12, true);
            if (unfiltered && typeHigh === 0) {
              // Counted by a number: no bigint per unchanged object.
              unchangedSmall.add(view.getUint32(at + 8, true));
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
        if (location !== undefined && !atTwin) matched++;
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

  // Which of B's files hold objects A lacks (the index alone tells, no record read).
  const addedSlots = b.channels.map(() => [] as number[]);
  if (matched < b.channels.reduce((n, c) => n + c.objects.size, 0)) {
    b.channels.forEach((channel, index) => {
      const slots = addedSlots[index]!;
      channel.objects.forEach((low, high, fileSlot) => {
        if (a.channels[low & aMask]!.objects.has(low, high)) return;
        if (slots[fileSlot] === undefined) {
          slots[fileSlot] = 1;
          total += channel.fileAt(fileSlot)?.totalLength ?? 0;
        }
      });
    });
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
  for (const [typeLow, n] of unchangedSmall.entries()) {
    const typeId = BigInt(typeLow);
    counts.unchanged.set(typeId, (counts.unchanged.get(typeId) ?? 0) + n);
    counts.usedBefore.add(typeId);
    counts.usedAfter.add(typeId);
  }
  return counts;
}

/** Bytes of A compared with the twin file at once where records lie at the same places. */
const BLOCK = 64 * 1024;
/** Slots of the counter's direct-mapped table (type ids cluster: few collisions). */
const TYPE_SLOTS = 4096;

/** Counts per type id below 2^32 without a bigint or a Map lookup per object: a direct-mapped table in front of a Map. */
class TypeCounter {
  private readonly keys = new Int32Array(TYPE_SLOTS).fill(-1);
  private readonly counts = new Float64Array(TYPE_SLOTS);
  private readonly spilled = new Map<number, number>();

  add(typeLow: number): void {
    const slot = typeLow & (TYPE_SLOTS - 1);
    const key = this.keys[slot]!;
    if (key === (typeLow | 0)) {
      this.counts[slot]!++;
      return;
    }
    if ((typeLow | 0) === -1) return this.spill(typeLow >>> 0, 1); // the empty slot's mark
    if (key !== -1) this.spill(key >>> 0, this.counts[slot]!);
    this.keys[slot] = typeLow;
    this.counts[slot] = 1;
  }

  private spill(typeLow: number, n: number): void {
    this.spilled.set(typeLow, (this.spilled.get(typeLow) ?? 0) + n);
  }

  entries(): [number, number][] {
    for (let slot = 0; slot < TYPE_SLOTS; slot++) {
      if (this.keys[slot] !== -1) this.spill(this.keys[slot]! >>> 0, this.counts[slot]!);
      this.keys[slot] = -1;
    }
    return [...this.spilled];
  }
}

function side(bytes: Buffer, at: number, length: number, typeId: bigint, file: string, offset: number): RecordSide {
  if (length < RECORD_HEADER) throw new RangeError(`${file}: record of ${length} bytes at ${offset}`);
  return { typeId, record: Buffer.from(bytes.subarray(at, at + length)), file, offset };
}
