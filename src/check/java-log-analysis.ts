import type { SourceReads } from '../storage/source/source.js';

/**
 * A channel's transaction log read the way MicroStream 4.1 reads it at startup
 * (`StorageTransactionsAnalysis.EntryAggregator`), with its exact failure messages: the length
 * byte only says how far to advance, each entry type reads its fields at fixed offsets, and an
 * entry cut short by the end of the file makes Java re-read the same position forever.
 */

const LENGTHS: Readonly<Record<number, number>> = { 0: 26, 1: 18, 2: 34, 3: 34, 4: 26 };
const CHUNK = 1024 * 1024;

export interface JavaLoggedFile {
  readonly fileNumber: bigint;
  length: bigint;
  deleted: boolean;
}

export interface JavaLogAggregate {
  readonly files: Map<bigint, JavaLoggedFile>;
  readonly currentFileNumber: bigint;
  readonly headLatestLength: bigint;
  readonly headLatestTimestamp: bigint;
  readonly headLastConsistentLength: bigint;
  readonly headLastConsistentTimestamp: bigint;
  readonly entryCount: number;
}

export interface JavaLogFailure {
  /** Offset of the entry Java fails on. */
  readonly offset: number;
  /** The message of Java's exception, or a description when Java hangs. */
  readonly message: string;
  /** Java does not fail but reads the same incomplete entry forever. */
  readonly hangs: boolean;
}

export interface JavaLogAnalysis {
  readonly path: string;
  readonly size: number;
  /** The aggregate of the entries before the failure (or of all entries). */
  readonly aggregate: JavaLogAggregate;
  readonly failure: JavaLogFailure | undefined;
}

class Aggregator {
  readonly files = new Map<bigint, JavaLoggedFile>();
  currentFileNumber = -1n;
  currentStoreLength = 0n;
  currentStoreTimestamp = 0n;
  lastConsistentStoreLength = 0n;
  lastConsistentStoreTimestamp = 0n;
  entryCount = 0;

  constructor(private readonly channel: number) {}

  /** Applies the entry at `at`; returns a failure message or undefined. */
  apply(view: DataView, at: number): string | undefined {
    const type = view.getInt8(at + 1);
    if (LENGTHS[type] === undefined) return `Unknown transactions entry type: ${type}`;
    const timestamp = view.getBigInt64(at + 2, true);
    const fileLength = view.getBigInt64(at + 10, true);
    const c = this.channel;
    switch (type) {
      case 0: {
        const number = view.getBigInt64(at + 18, true);
        if (number <= this.currentFileNumber) return `${c} Inconsistent file number order of new file: ${number} <= ${this.currentFileNumber}`;
        if (fileLength < 0n) return `${c} Inconsistent file length of new file ${number}: ${fileLength}`;
        this.registerCurrentFile();
        this.lastConsistentStoreTimestamp = this.currentStoreTimestamp;
        this.lastConsistentStoreLength = this.currentStoreLength = fileLength;
        this.currentFileNumber = number;
        break;
      }
      case 1:
        if (fileLength < this.currentStoreLength) {
          return `${c} Inconsistent file length of file ${this.currentFileNumber}: ${fileLength} < ${this.currentStoreLength}`;
        }
        if (timestamp <= this.currentStoreTimestamp) {
          return `${c} Inconsistent timestamp of file ${this.currentFileNumber}: ${timestamp} <= ${this.currentStoreTimestamp}`;
        }
        this.lastConsistentStoreTimestamp = this.currentStoreTimestamp;
        this.lastConsistentStoreLength = this.currentStoreLength;
        this.currentStoreTimestamp = timestamp;
        this.currentStoreLength = fileLength;
        break;
      case 2:
        if (fileLength < this.currentStoreLength) {
          return `${c} Inconsistent file length of file ${this.currentFileNumber}: ${fileLength} < ${this.currentStoreLength}`;
        }
        this.lastConsistentStoreLength = this.currentStoreLength = fileLength;
        break;
      case 3: {
        const number = view.getBigInt64(at + 18, true);
        if (number !== this.currentFileNumber) return `${c} Invalid truncation file number: ${number} (file ${this.currentFileNumber})`;
        if (fileLength < 0n || fileLength > this.currentStoreLength) {
          return `Inconsistent new length in trunction entry: ${fileLength} vs. ${this.currentStoreLength} (file ${this.currentFileNumber})`;
        }
        this.lastConsistentStoreLength = this.currentStoreLength = fileLength;
        break;
      }
      case 4: {
        const number = view.getBigInt64(at + 18, true);
        const file = this.files.get(number);
        if (file === undefined) return `${c} No file found in entries with number ${number}`;
        file.deleted = true;
        break;
      }
      default:
        return `Unknown transactions entry type: ${type}`;
    }
    this.entryCount++;
    return undefined;
  }

  registerCurrentFile(): void {
    if (this.currentFileNumber < 0n) return;
    const existing = this.files.get(this.currentFileNumber);
    // Java's table keeps the first entry's deletion mark object; its length is replaced.
    this.files.set(this.currentFileNumber, { fileNumber: this.currentFileNumber, length: this.currentStoreLength, deleted: existing?.deleted ?? false });
  }

  result(): JavaLogAggregate {
    this.registerCurrentFile();
    return {
      files: this.files,
      currentFileNumber: this.currentFileNumber,
      headLatestLength: this.currentStoreLength,
      headLatestTimestamp: this.currentStoreTimestamp,
      headLastConsistentLength: this.lastConsistentStoreLength,
      headLastConsistentTimestamp: this.lastConsistentStoreTimestamp,
      entryCount: this.entryCount,
    };
  }
}

/** Reads the log's `size` bytes (as listed) through the snapshot's reads, chunk by chunk. */
export async function analyzeJavaLog(reads: SourceReads, path: string, size: number, channel: number): Promise<JavaLogAnalysis> {
  const aggregator = new Aggregator(channel);
  let failure: JavaLogFailure | undefined;
  let position = 0;
  scan: while (position < size) {
    // An entry cut by a chunk's end is read again from its start with the next chunk.
    const buffer = await reads.read(path, position, Math.min(CHUNK, size - position));
    const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    const fill = buffer.length;
    if (fill === 0) break;
    let at = 0;
    while (at < fill) {
      const length = view.getInt8(at);
      if (length === 0) {
        failure = { offset: position + at, message: 'Zero length transactions entry.', hangs: false };
        break scan;
      }
      const type = at + 1 < fill ? view.getInt8(at + 1) : -1;
      const needed = LENGTHS[type];
      const available = fill - at;
      if (needed !== undefined && available < needed) {
        if (position + fill >= size) {
          failure = {
            offset: position + at,
            message: `the last entry is incomplete (${size - position - at} of ${needed} bytes): MicroStream 4.1 reads it again and again and never finishes starting`,
            hangs: true,
          };
          break scan;
        }
        break; // read the next chunk from this entry on
      }
      if (needed === undefined && at + 1 >= fill && position + fill >= size) {
        failure = { offset: position + at, message: 'the last entry is incomplete (1 byte): MicroStream 4.1 reads it again and again and never finishes starting', hangs: true };
        break scan;
      }
      if (needed === undefined && at + 1 >= fill) break;
      const message = aggregator.apply(view, at);
      if (message !== undefined) {
        failure = { offset: position + at, message, hangs: false };
        break scan;
      }
      at += Math.abs(length);
    }
    position += at;
  }
  return { path, size, aggregate: aggregator.result(), failure };
}
