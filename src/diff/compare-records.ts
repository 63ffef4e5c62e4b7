import { streamRecords, type RecordBytesVisitor, type RecordRunVisitor } from '../storage/records/record-stream.js';
import type { Storage } from '../storage/storage.js';
import type { ObjectIndex } from '../storage/index/object-index.js';
import type { StorageChannel, StorageFile } from '../storage/storage-types.js';
import { RecordWindow } from './record-window.js';
import { TwinChunks } from './twin-chunks.js';
import { TwinFileScan } from './twin-scan.js';
import { TypeCounter } from '../storage/index/type-counter.js';

/**
 * The walk at the heart of a diff: every latest record of storage A, in file order, is matched by
 * object id with the latest record of the same object in storage B and compared byte for byte;
 * only records that differ are handed on (copied) to be decoded. Objects B has and A has not are
 * found from B's index and read from B's files that hold them. Nothing is kept per object: the
 * two indexes answer every lookup, and what is counted is counted per type.
 */

export interface RecordSide {
  readonly typeId: bigint;
  /** The whole record (header included): a copy, or bytes that stay unchanged while the diff runs. */
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
  const comparison = new RecordComparison(a, b, options);
  for (const channel of a.channels) {
    for (const file of channel.files) await comparison.compareFileOfA(channel, file);
  }
  await comparison.findObjectsOnlyInB();
  return comparison.finish();
}

/**
 * The state of one comparison, shared by its steps: one object for the whole walk (methods and
 * fields, not a closure per record: that and its bigints were a third of the walk's time at 1M
 * objects).
 */
class RecordComparison {
  readonly counts: RecordCounts = { unchanged: new Map(), removed: new Map(), changed: new Map(), added: new Map(), usedBefore: new Set(), usedAfter: new Set() };
  private readonly accepts: (typeId: bigint, side: 'before' | 'after') => boolean;
  private readonly window: RecordWindow;
  private readonly aMask: number;
  private readonly bMask: number;
  private total: number;
  private done = 0;
  /** Objects of A that B has too: when that is all of B, B has no object A lacks (no look at B's index needed). */
  private matched = 0;
  // Where the storages have the same channels, most objects of a copy lie at the same offset of
  // the file with the same number: asked with the halves of the id (no bigint, no location
  // object), and compared at once; anything else takes the general way.
  private readonly sameChannels: boolean;
  private readonly unfiltered: boolean;
  /** Unchanged objects per type id below 2^32, counted without a bigint (merged into `counts` at the end). */
  private readonly unchangedSmall = new TypeCounter();
  // A DataView per chunk (Buffer's own readers check their arguments on every call).
  private viewed: Buffer | undefined;
  private view: DataView = new DataView(new ArrayBuffer(0));

  // The file of A being walked, and its twin in B (same channel, same file number) if any.
  private channel!: StorageChannel;
  private file!: StorageFile;
  private twin: StorageFile | undefined;
  private twinIndex: ObjectIndex | undefined;
  /** The twin's bytes read alongside the walk, and the records of A taken beside them in one loop. */
  private scan: TwinFileScan | undefined;

  // The record of A being compared with B's record of the same object, for `compareWithA`. The
  // walk waits for a comparison that reads, so these stay put until it is done.
  private bytesA: Buffer = Buffer.alloc(0);
  private atA = 0;
  private lengthA = 0;
  private typeA = 0n;
  private idA = 0n;
  private fileA = '';
  private offsetA = 0;
  private fileB = '';
  private offsetB = 0;

  // The visitors handed to streamRecords and to the window's reads: made once.
  private readonly visitRecordOfA: RecordBytesVisitor = (bytes, at, offset, length) => this.recordOfA(bytes, at, offset, length);
  private readonly visitRunOfA: RecordRunVisitor = (bytes, at, offset, limit) => this.scan!.run(bytes, at, offset, limit);
  private readonly visitRecordOfB: RecordBytesVisitor = (bytes, at, offset, length) => this.recordOfB(bytes, at, offset, length);
  private readonly compareRead = (record: Buffer): void | Promise<void> => this.compareWithA(record);

  constructor(
    private readonly a: Storage,
    private readonly b: Storage,
    private readonly options: CompareOptions,
  ) {
    this.accepts = options.acceptsType ?? (() => true);
    this.window = new RecordWindow(b.source);
    this.aMask = a.channels.length - 1;
    this.bMask = b.channels.length - 1;
    this.total = a.channels.reduce((n, c) => n + c.files.reduce((m, f) => m + f.totalLength, 0), 0);
    this.sameChannels = a.channels.length === b.channels.length;
    this.unfiltered = options.acceptsType === undefined;
  }

  /** Every latest record of one file of A compared with B's record of the same object. */
  async compareFileOfA(channel: StorageChannel, file: StorageFile): Promise<void> {
    this.channel = channel;
    this.file = file;
    const other = this.sameChannels ? this.b.channels[channel.index]! : undefined;
    this.twin = other?.files.find((f) => f.fileNumber === file.fileNumber);
    this.twinIndex = other?.objects;
    const end = file.problem?.offset ?? file.totalLength;
    const twin = this.twin;
    this.scan =
      twin === undefined
        ? undefined
        : new TwinFileScan(channel.objects, file.slot, other!.objects, twin.slot, twin.totalLength, new TwinChunks(this.b.source, twin.path, Math.min(end, twin.totalLength)), this.unchangedSmall);
    try {
      await streamRecords(this.a.source, file.path, 0, end, this.visitRecordOfA, undefined, this.scan !== undefined && this.unfiltered ? this.visitRunOfA : undefined);
    } finally {
      await this.scan?.chunks.close();
    }
    this.matched += this.scan?.matched ?? 0;
    this.fileDone(file);
  }

  private recordOfA(bytes: Buffer, at: number, offset: number, length: number): void | Promise<void> {
    if (bytes !== this.viewed) {
      this.viewed = bytes;
      this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    const low = this.view.getInt32(at + 16, true);
    const high = this.view.getInt32(at + 20, true);
    if (!this.channel.objects.isLatest(low, high, this.file.slot, offset)) return;
    const twin = this.twin;
    const atTwin = twin !== undefined && offset + length <= twin.totalLength && this.twinIndex!.isLatest(low, high, twin.slot, offset);
    if (!atTwin) return this.compareByIndex(bytes, at, offset, length, low, false);
    this.matched++;
    const chunks = this.scan!.chunks;
    // The walk waits while the twin reads on (once per chunk); A's bytes stay valid meanwhile.
    if (chunks.behind(offset)) return chunks.advance(offset).then(() => this.recordOfAAtTwin(bytes, at, offset, length, low));
    return this.recordOfAAtTwin(bytes, at, offset, length, low);
  }

  /** A latest record of A whose twin holds B's latest record of the object at the same offset. */
  private recordOfAAtTwin(bytes: Buffer, at: number, offset: number, length: number, low: number): void | Promise<void> {
    // The header (length, type, id) is among the bytes compared: equal bytes are the same record.
    if (this.scan!.equalAtTwin(bytes, at, offset, length)) return this.countUnchangedAtTwin(bytes, at);
    return this.compareByIndex(bytes, at, offset, length, low, true);
  }

  private countUnchangedAtTwin(bytes: Buffer, at: number): void {
    if (this.unfiltered && this.view.getInt32(at + 12, true) === 0) {
      // Counted by a number: no bigint per unchanged object.
      this.unchangedSmall.add(this.view.getUint32(at + 8, true));
      return;
    }
    this.countUnchanged(bytes.readBigInt64LE(at + 8));
  }

  private countUnchanged(typeId: bigint): void {
    if (!this.accepts(typeId, 'before')) return;
    this.counts.usedBefore.add(typeId);
    this.counts.usedAfter.add(typeId);
    bump(this.counts.unchanged, typeId);
  }

  /** The general way: B's record of the object found through B's index (removed if none). */
  private compareByIndex(bytes: Buffer, at: number, offset: number, length: number, low: number, atTwin: boolean): void | Promise<void> {
    const typeId = bytes.readBigInt64LE(at + 8);
    const objectId = bytes.readBigInt64LE(at + 16);
    const other = this.b.channels[low & this.bMask]!;
    const location = other.objects.get(objectId);
    const otherFile = location === undefined ? undefined : other.fileAt(location.fileSlot);
    if (location !== undefined && !atTwin) this.matched++;
    if (location === undefined || otherFile === undefined) return this.removed(bytes, at, offset, length, typeId, objectId);
    if (this.options.sameFiles && otherFile.fileNumber === this.file.fileNumber && location.offset === offset && location.length === length) {
      return this.countUnchanged(typeId);
    }
    this.bytesA = bytes;
    this.atA = at;
    this.lengthA = length;
    this.typeA = typeId;
    this.idA = objectId;
    this.fileA = this.file.path;
    this.offsetA = offset;
    this.fileB = otherFile.path;
    this.offsetB = location.offset;
    const held = this.window.peek(otherFile.path, location.offset, location.length);
    if (held !== undefined) return this.compareWithA(held);
    return this.window.record(otherFile.path, location.offset, location.length, otherFile.totalLength).then(this.compareRead);
  }

  private removed(bytes: Buffer, at: number, offset: number, length: number, typeId: bigint, objectId: bigint): void | Promise<void> {
    if (!this.accepts(typeId, 'before')) return;
    this.counts.usedBefore.add(typeId);
    bump(this.counts.removed, typeId);
    return this.options.onDifference({ change: 'removed', objectId, before: side(bytes, at, length, typeId, this.file.path, offset) });
  }

  /** B's record of the object A's current record (the fields above) holds, compared with it. */
  private compareWithA(record: Buffer): void | Promise<void> {
    const afterType = record.readBigInt64LE(8);
    if (!this.accepts(this.typeA, 'before') && !this.accepts(afterType, 'after')) return;
    this.counts.usedBefore.add(this.typeA);
    this.counts.usedAfter.add(afterType);
    if (record.length === this.lengthA && this.bytesA.compare(record, 0, this.lengthA, this.atA, this.atA + this.lengthA) === 0) {
      bump(this.counts.unchanged, this.typeA);
      return;
    }
    bump(this.counts.changed, afterType);
    return this.options.onDifference({
      change: 'changed',
      objectId: this.idA,
      before: side(this.bytesA, this.atA, this.lengthA, this.typeA, this.fileA, this.offsetA),
      after: side(record, 0, record.length, afterType, this.fileB, this.offsetB),
    });
  }

  /** Objects B has and A has not, read from the files of B that hold them. */
  async findObjectsOnlyInB(): Promise<void> {
    const addedSlots = this.filesWithObjectsOnlyInB();
    for (const channel of this.b.channels) {
      for (const file of channel.files) {
        if (addedSlots[channel.index]![file.slot] === undefined) continue;
        this.channel = channel;
        this.file = file;
        await streamRecords(this.b.source, file.path, 0, file.problem?.offset ?? file.totalLength, this.visitRecordOfB);
        this.fileDone(file);
      }
    }
  }

  /** Per channel of B, the file slots holding objects A lacks (the index alone tells, no record read). */
  private filesWithObjectsOnlyInB(): number[][] {
    const addedSlots = this.b.channels.map(() => [] as number[]);
    if (this.matched >= this.b.channels.reduce((n, c) => n + c.objects.size, 0)) return addedSlots;
    this.b.channels.forEach((channel, index) => {
      const slots = addedSlots[index]!;
      channel.objects.forEach((low, high, fileSlot) => {
        if (this.a.channels[low & this.aMask]!.objects.has(low, high)) return;
        if (slots[fileSlot] === undefined) {
          slots[fileSlot] = 1;
          this.total += channel.fileAt(fileSlot)?.totalLength ?? 0;
        }
      });
    });
    return addedSlots;
  }

  private recordOfB(bytes: Buffer, at: number, offset: number, length: number): void | Promise<void> {
    const low = bytes.readInt32LE(at + 16);
    const high = bytes.readInt32LE(at + 20);
    if (!this.channel.objects.isLatest(low, high, this.file.slot, offset) || this.a.channels[low & this.aMask]!.objects.has(low, high)) return;
    const typeId = bytes.readBigInt64LE(at + 8);
    if (!this.accepts(typeId, 'after')) return;
    this.counts.usedAfter.add(typeId);
    bump(this.counts.added, typeId);
    return this.options.onDifference({ change: 'added', objectId: bytes.readBigInt64LE(at + 16), after: side(bytes, at, length, typeId, this.file.path, offset) });
  }

  private fileDone(file: StorageFile): void {
    this.done += file.totalLength;
    this.options.onProgress?.(this.done, this.total);
  }

  /** The counts, with the unchanged objects counted by number merged in. */
  finish(): RecordCounts {
    const counts = this.counts;
    for (const [typeLow, n] of this.unchangedSmall.entries()) {
      const typeId = BigInt(typeLow);
      counts.unchanged.set(typeId, (counts.unchanged.get(typeId) ?? 0) + n);
      counts.usedBefore.add(typeId);
      counts.usedAfter.add(typeId);
    }
    return counts;
  }
}

function bump(map: Map<bigint, number>, typeId: bigint): void {
  map.set(typeId, (map.get(typeId) ?? 0) + 1);
}

function side(bytes: Buffer, at: number, length: number, typeId: bigint, file: string, offset: number): RecordSide {
  if (length < RECORD_HEADER) throw new RangeError(`${file}: record of ${length} bytes at ${offset}`);
  return { typeId, record: Buffer.from(bytes.subarray(at, at + length)), file, offset };
}
