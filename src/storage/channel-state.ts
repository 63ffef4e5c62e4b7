import type { SeenProblem } from './follow-problems.js';
import { ObjectIndex } from './index/object-index.js';
import type { ScanProblem } from './records/record-scan.js';
import { RECORD_WORDS, type StorageChannel, type StorageFile } from './storage-types.js';
import type { ValidDataFile } from './valid-lengths.js';

/**
 * The mutable state a Storage keeps per channel while it follows a source: its data files (by
 * slot, as the object index refers to them) and its object index; the record ranges a refresh
 * scans before applying them; what a refresh changed.
 */

export interface FileState {
  readonly slot: number;
  readonly channel: number;
  readonly fileNumber: bigint;
  readonly name: string;
  readonly path: string;
  totalLength: number;
  liveLength: number;
  metaLength: number;
  problem: ScanProblem | undefined;
  removed: boolean;
}

export class ChannelState implements StorageChannel {
  readonly slots: FileState[] = [];
  objects: ObjectIndex;
  private sorted: StorageFile[] | undefined;
  private byNumber: Map<bigint, FileState> | undefined;
  private byNumberSlots = 0;

  constructor(
    readonly index: number,
    readonly directoryName: string,
    channelCount: number,
  ) {
    this.objects = new ObjectIndex(Math.log2(channelCount));
  }

  get files(): readonly StorageFile[] {
    this.sorted ??= this.slots
      .filter((f) => !f.removed)
      .sort((a, b) => (a.fileNumber < b.fileNumber ? -1 : a.fileNumber > b.fileNumber ? 1 : 0))
      .map((f) => ({ ...f }));
    return this.sorted;
  }

  fileAt(slot: number): StorageFile | undefined {
    const file = this.slots[slot];
    return file === undefined || file.removed ? undefined : { ...file };
  }

  /**
   * By file number, through a map (a search of the slots per file made each look at a channel of
   * 50,000 files take most of a minute); the map is rebuilt when slots were added or the file
   * found was removed since.
   */
  fileByNumber(fileNumber: bigint): FileState | undefined {
    const found = this.numbers().get(fileNumber);
    if (found === undefined || !found.removed) return found;
    this.byNumber = undefined;
    return this.numbers().get(fileNumber);
  }

  private numbers(): Map<bigint, FileState> {
    if (this.byNumber === undefined || this.byNumberSlots !== this.slots.length) {
      this.byNumber = new Map();
      for (const file of this.slots) if (!file.removed) this.byNumber.set(file.fileNumber, file);
      this.byNumberSlots = this.slots.length;
    }
    return this.byNumber;
  }

  invalidate(): void {
    this.sorted = undefined;
  }
}

/** Records found in one file range, waiting to be applied. */
export interface ScanJob {
  readonly channel: ChannelState;
  /** An existing file state, or the description of a new file. */
  readonly target: FileState | ValidDataFile;
  readonly from: number;
  readonly to: number;
  records: Uint32Array;
  count: number;
  metaBytes: number;
  problem: ScanProblem | undefined;
}

/** Grows while a refresh is applied: the records it made latest and the objects it lost. */
export class ChangeCollector {
  count = 0;
  private words = new Int32Array(RECORD_WORDS * 256);
  private lostWords: number[] = [];

  stored(idLow: number, idHigh: number, channel: number, fileSlot: number, offset: number, previousSlot: number, previousOffset: number): void {
    if ((this.count + 1) * RECORD_WORDS > this.words.length) {
      const bigger = new Int32Array(this.words.length * 2);
      bigger.set(this.words);
      this.words = bigger;
    }
    const b = this.count * RECORD_WORDS;
    this.words[b] = idLow;
    this.words[b + 1] = idHigh;
    this.words[b + 2] = channel;
    this.words[b + 3] = fileSlot;
    this.words[b + 4] = offset;
    this.words[b + 5] = previousSlot;
    this.words[b + 6] = previousSlot < 0 ? 0 : previousOffset;
    this.count++;
  }

  lost(low: number, high: number): void {
    this.lostWords.push(low | 0, high | 0);
  }

  records(): Int32Array {
    return this.words.subarray(0, this.count * RECORD_WORDS);
  }

  lostIds(): Int32Array {
    return Int32Array.from(this.lostWords);
  }
}

/** A type id as the two 32-bit halves record headers are compared with (never matches when absent). */
export interface SplitId {
  readonly low: number;
  readonly high: number;
}

export function splitTypeId(typeId: bigint | undefined): SplitId {
  if (typeId === undefined) return { low: -1, high: -1 };
  return { low: Number(typeId & 0xffffffffn) | 0, high: Number(typeId >> 32n) | 0 };
}

/**
 * Data files shorter than what is committed for them: by their log, or by what was indexed of
 * them before (a storage without logs).
 */
export function findTruncations(validFiles: readonly (readonly ValidDataFile[])[], indexed: readonly ChannelState[]): SeenProblem[] {
  const found: SeenProblem[] = [];
  validFiles.forEach((files, channel) => {
    for (const file of files) {
      const before = indexed[channel]?.fileByNumber(file.fileNumber)?.totalLength ?? 0;
      const committed = Math.max(file.committedLength ?? 0, before);
      if (file.size >= committed) continue;
      found.push({
        key: `STORAGE_TRUNCATED:${file.path}`,
        code: 'STORAGE_TRUNCATED',
        message:
          `${file.path} is ${file.size} bytes long, but ${committed} bytes of it are committed: committed records were cut off ` +
          '(objects whose latest record was there are now served from an older record, or not at all)',
      });
    }
  });
  return found;
}

/** A committed range shrank or the log was replaced, or a cut file was restored: start the channel over. */
export function needsRebuild(channel: ChannelState, files: readonly ValidDataFile[]): boolean {
  for (const file of files) {
    const existing = channel.fileByNumber(file.fileNumber);
    if (existing !== undefined && file.validLength < existing.totalLength) return true;
    // A file whose walk stopped where its bytes ended (it had been cut) has its bytes again.
    if (existing?.problem?.atEnd === true && file.validLength > existing.totalLength) return true;
  }
  return false;
}
