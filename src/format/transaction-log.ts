import { FormatError } from '../errors.js';

/**
 * The per-channel transaction log (`transactions_N.sft`, storage-format.md §6): entries of a
 * 1-byte length, a 1-byte type, a timestamp, a file length and (by type) a file number and an
 * offset. Java derives from it which files exist and how many bytes of the head file are committed.
 */

export type LogEntryType = 'creation' | 'store' | 'transfer' | 'truncation' | 'deletion';

export interface LogEntry {
  readonly type: LogEntryType;
  /** Offset of the entry in the log file. */
  readonly offset: number;
  readonly timestamp: bigint;
  readonly fileLength: number;
  /** Present for creation, transfer, truncation and deletion entries. */
  readonly fileNumber?: bigint;
  /** Present for transfer (source offset) and truncation (old length) entries. */
  readonly specialOffset?: number;
}

export interface ParsedLog {
  readonly entries: readonly LogEntry[];
  /** Offset of an entry cut short by the end of the file (a crash tail); Java 4.1 would hang on it. */
  readonly incompleteTailOffset: number | undefined;
}

const ENTRY_TYPES: ReadonlyArray<readonly [LogEntryType, number]> = [
  ['creation', 26],
  ['store', 18],
  ['transfer', 34],
  ['truncation', 34],
  ['deletion', 26],
];

/**
 * Splits log bytes into entries; a truncated last entry is reported, not an error. `baseOffset`
 * is the file offset of `bytes[0]` when only the tail of a log is parsed.
 */
export function parseTransactionLog(bytes: Uint8Array, file?: string, baseOffset = 0): ParsedLog {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: LogEntry[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    if (pos + 2 > bytes.length) return { entries, incompleteTailOffset: baseOffset + pos };
    const length = view.getInt8(pos);
    const typeCode = view.getUint8(pos + 1);
    if (length <= 0) {
      throw new FormatError('FORMAT_BAD_LOG', length === 0 ? 'zero length transactions entry' : `gap entry of ${-length} bytes (4.1 never writes gaps)`, { file, offset: baseOffset + pos });
    }
    const known = ENTRY_TYPES[typeCode];
    if (known === undefined) {
      throw new FormatError('FORMAT_BAD_LOG', `unknown transactions entry type ${typeCode}`, { file, offset: baseOffset + pos });
    }
    const [type, expected] = known;
    if (length !== expected) {
      throw new FormatError('FORMAT_BAD_LOG', `${type} entry has length ${length}, expected ${expected}`, { file, offset: baseOffset + pos });
    }
    if (pos + length > bytes.length) return { entries, incompleteTailOffset: baseOffset + pos };
    const timestamp = view.getBigInt64(pos + 2, true);
    const fileLength = toSafeLength(view.getBigInt64(pos + 10, true), file, baseOffset + pos + 10);
    const entry: LogEntry =
      length === 18
        ? { type, offset: baseOffset + pos, timestamp, fileLength }
        : length === 26
          ? { type, offset: baseOffset + pos, timestamp, fileLength, fileNumber: view.getBigInt64(pos + 18, true) }
          : {
              type,
              offset: baseOffset + pos,
              timestamp,
              fileLength,
              fileNumber: view.getBigInt64(pos + 18, true),
              specialOffset: toSafeLength(view.getBigInt64(pos + 26, true), file, baseOffset + pos + 26),
            };
    entries.push(entry);
    pos += length;
  }
  return { entries, incompleteTailOffset: undefined };
}

function toSafeLength(value: bigint, file: string | undefined, offset: number): number {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new FormatError('FORMAT_BAD_LOG', `invalid file length ${value}`, { file, offset });
  }
  return Number(value);
}

export interface LoggedFile {
  readonly fileNumber: bigint;
  /** Length of the file when the next file was created; for the head file its latest length. */
  readonly length: number;
  readonly deleted: boolean;
}

export interface LogAggregate {
  readonly files: ReadonlyMap<bigint, LoggedFile>;
  readonly headFileNumber: bigint | undefined;
  readonly headLatestLength: number;
  readonly headLatestTimestamp: bigint;
  readonly headLastConsistentLength: number;
  readonly headLastConsistentTimestamp: bigint;
}

/** Java's aggregation of a channel log (storage-format.md §6.4), with its consistency checks. */
export function aggregateTransactionLog(entries: readonly LogEntry[], file?: string): LogAggregate {
  const aggregator = new LogAggregator(file);
  for (const entry of entries) aggregator.apply(entry);
  return aggregator.snapshot();
}

/**
 * The same aggregation, fed entry by entry, so that a follower can read only a log's new
 * entries and keep the state of the ones it has seen.
 */
export class LogAggregator {
  private readonly files = new Map<bigint, LoggedFile>();
  private current = -1n;
  private curLen = 0;
  private curTs = 0n;
  private lastLen = 0;
  private lastTs = 0n;
  private count = 0;

  constructor(private readonly file?: string) {}

  /** Number of entries applied. */
  get entryCount(): number {
    return this.count;
  }

  apply(entry: LogEntry): void {
    const n = entry.fileNumber ?? -1n;
    switch (entry.type) {
      case 'creation':
        if (n <= this.current) this.fail(entry, `inconsistent file number order of new file ${n} after ${this.current}`);
        if (this.current >= 0n) this.files.set(this.current, { fileNumber: this.current, length: this.curLen, deleted: false });
        this.lastTs = this.curTs;
        this.lastLen = this.curLen = entry.fileLength;
        this.current = n;
        break;
      case 'store':
        if (entry.fileLength < this.curLen) {
          this.fail(entry, `inconsistent file length ${entry.fileLength} of file ${this.current} (was ${this.curLen})`);
        }
        if (entry.timestamp <= this.curTs) {
          // EclipseStore 1.4 to 4.1 compact a log to one creation and one store entry per file; a
          // file without stores (an empty head) gets a store entry with the latest timestamp of
          // the whole log again, and Java's own check then refuses the log. Such an entry adds
          // nothing (same timestamp, same length): it is read as the no-op it is.
          if (entry.timestamp === this.curTs && entry.fileLength === this.curLen) break;
          this.fail(entry, `inconsistent timestamp of file ${this.current}`);
        }
        this.lastTs = this.curTs;
        this.lastLen = this.curLen;
        this.curTs = entry.timestamp;
        this.curLen = entry.fileLength;
        break;
      case 'transfer':
        if (entry.fileLength < this.curLen) {
          this.fail(entry, `inconsistent file length ${entry.fileLength} of file ${this.current} (was ${this.curLen})`);
        }
        this.lastLen = this.curLen = entry.fileLength;
        break;
      case 'truncation':
        if (n !== this.current) this.fail(entry, `truncation of file ${n}, which is not the head file ${this.current}`);
        if (entry.fileLength > this.curLen) {
          this.fail(entry, `truncation of file ${n} to ${entry.fileLength} bytes beyond its length ${this.curLen}`);
        }
        this.lastLen = this.curLen = entry.fileLength;
        break;
      case 'deletion': {
        const logged = this.files.get(n);
        if (logged === undefined) this.fail(entry, `no file found in entries with number ${n}`);
        else this.files.set(n, { ...logged, deleted: true });
        break;
      }
    }
    this.count++;
  }

  snapshot(): LogAggregate {
    const files = new Map(this.files);
    if (this.current >= 0n) files.set(this.current, { fileNumber: this.current, length: this.curLen, deleted: false });
    return {
      files,
      headFileNumber: this.current >= 0n ? this.current : undefined,
      headLatestLength: this.curLen,
      headLatestTimestamp: this.curTs,
      headLastConsistentLength: this.lastLen,
      headLastConsistentTimestamp: this.lastTs,
    };
  }

  private fail(entry: LogEntry, message: string): never {
    throw new FormatError('FORMAT_BAD_LOG', message, { file: this.file, offset: entry.offset });
  }
}
