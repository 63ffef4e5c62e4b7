import { parseTransactionLog, type LogEntry } from '../../format/transaction-log.js';
import type { SourceReads, StorageSource } from '../source/source.js';
import { scanStorageLayout } from '../source/storage-dir.js';

/**
 * When each byte of a data file became valid (storage-format.md §6): the transaction log's store,
 * transfer and creation entries give the head file's committed length over time, so a record at
 * an offset belongs to the first entry that grew its file past that offset. Kept per channel in
 * typed arrays (one row per log entry), read incrementally: `update()` parses only what was
 * appended since the last call. Nothing is written.
 */

export type CommitKind = 'store' | 'transfer' | 'creation';

export interface Commit {
  readonly kind: CommitKind;
  /** The log entry's timestamp: epoch nanoseconds (store timestamps are shared by all channels). */
  readonly timestamp: bigint;
  /** Offset of the entry in the channel's log. */
  readonly logOffset: number;
}

const KIND_CODES: Readonly<Record<CommitKind, number>> = { store: 0, transfer: 1, creation: 2 };
const KINDS: readonly CommitKind[] = ['store', 'transfer', 'creation'];

class ChannelTimeline {
  private consumed = 0;
  private head = -1;
  private headLength = 0;
  count = 0;
  fileNumbers = new Float64Array(64);
  endLengths = new Float64Array(64);
  timestamps = new BigInt64Array(64);
  logOffsets = new Float64Array(64);
  kinds = new Uint8Array(64);
  lastStore = 0n;

  constructor(readonly path: string) {}

  async update(size: number, files: SourceReads): Promise<void> {
    if (size < this.consumed) this.reset();
    if (size === this.consumed) return;
    const bytes = Buffer.allocUnsafe(size - this.consumed);
    let done = 0;
    for await (const chunk of files.chunks(this.path, this.consumed, size)) {
      bytes.set(chunk, done);
      done += chunk.length;
    }
    const parsed = parseTransactionLog(bytes.subarray(0, done), this.path, this.consumed);
    for (const entry of parsed.entries) this.apply(entry);
    const last = parsed.entries[parsed.entries.length - 1];
    if (last !== undefined) this.consumed = last.offset + entryLength(last);
  }

  private reset(): void {
    this.consumed = 0;
    this.head = -1;
    this.headLength = 0;
    this.count = 0;
    this.lastStore = 0n;
  }

  private apply(entry: LogEntry): void {
    switch (entry.type) {
      case 'creation':
        this.head = Number(entry.fileNumber ?? -1n);
        this.headLength = entry.fileLength;
        // A log derived at startup creates files with their whole length at once (§6.5 step 8).
        if (entry.fileLength > 0) this.push('creation', entry);
        break;
      case 'store':
        if (entry.timestamp > this.lastStore) this.lastStore = entry.timestamp;
        if (entry.fileLength > this.headLength) this.push('store', entry);
        this.headLength = entry.fileLength;
        break;
      case 'transfer':
        if (entry.fileLength > this.headLength) this.push('transfer', entry);
        this.headLength = entry.fileLength;
        break;
      case 'truncation':
        this.headLength = entry.fileLength;
        this.dropBeyond(this.head, entry.fileLength);
        break;
      case 'deletion':
        break;
    }
  }

  /** A truncation took back bytes: entries that committed them no longer cover anything. */
  private dropBeyond(fileNumber: number, length: number): void {
    while (this.count > 0 && this.fileNumbers[this.count - 1] === fileNumber && (this.endLengths[this.count - 1] as number) > length) {
      const previousEnd = this.count > 1 && this.fileNumbers[this.count - 2] === fileNumber ? (this.endLengths[this.count - 2] as number) : 0;
      if (previousEnd >= length) this.count--;
      else {
        this.endLengths[this.count - 1] = length;
        break;
      }
    }
  }

  private push(kind: CommitKind, entry: LogEntry): void {
    if (this.count === this.kinds.length) this.grow();
    const i = this.count++;
    this.fileNumbers[i] = this.head;
    this.endLengths[i] = entry.fileLength;
    this.timestamps[i] = entry.timestamp;
    this.logOffsets[i] = entry.offset;
    this.kinds[i] = KIND_CODES[kind];
  }

  private grow(): void {
    const n = this.kinds.length * 2;
    const f = new Float64Array(n);
    f.set(this.fileNumbers);
    this.fileNumbers = f;
    const e = new Float64Array(n);
    e.set(this.endLengths);
    this.endLengths = e;
    const t = new BigInt64Array(n);
    t.set(this.timestamps);
    this.timestamps = t;
    const o = new Float64Array(n);
    o.set(this.logOffsets);
    this.logOffsets = o;
    const k = new Uint8Array(n);
    k.set(this.kinds);
    this.kinds = k;
  }

  /** The first entry that made `offset` of the file valid. */
  find(fileNumber: number, offset: number): Commit | undefined {
    // Entries of one file are contiguous (only the head file grows) and grow in length.
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const f = this.fileNumbers[mid] as number;
      if (f < fileNumber || (f === fileNumber && (this.endLengths[mid] as number) <= offset)) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= this.count || this.fileNumbers[lo] !== fileNumber) return undefined;
    return { kind: KINDS[this.kinds[lo] as number]!, timestamp: this.timestamps[lo] as bigint, logOffset: this.logOffsets[lo] as number };
  }
}

function entryLength(entry: LogEntry): number {
  return { creation: 26, store: 18, transfer: 34, truncation: 34, deletion: 26 }[entry.type];
}

export class CommitTimeline {
  private readonly channels = new Map<number, ChannelTimeline>();

  constructor(private readonly source: StorageSource) {}

  /** Reads the log entries appended since the last call (a replaced log is read anew). */
  async update(): Promise<void> {
    await this.source.snapshot(async (reader) => {
      const layout = await scanStorageLayout(reader, this.source.location);
      await this.take(layout.channels, reader);
    });
  }

  private async take(channels: Awaited<ReturnType<typeof scanStorageLayout>>['channels'], reader: SourceReads): Promise<void> {
    for (const channel of channels) {
      if (channel.logPath === undefined) {
        this.channels.delete(channel.index);
        continue;
      }
      let timeline = this.channels.get(channel.index);
      if (timeline === undefined || timeline.path !== channel.logPath) {
        timeline = new ChannelTimeline(channel.logPath);
        this.channels.set(channel.index, timeline);
      }
      await timeline.update(channel.logSize, reader);
    }
  }

  /** The log entry that made the record at `offset` of a channel's data file valid. */
  commitOf(channel: number, fileNumber: bigint, offset: number): Commit | undefined {
    return this.channels.get(channel)?.find(Number(fileNumber), offset);
  }

  /** Timestamp of the latest store in any channel (epoch nanoseconds), 0 when none. */
  get lastStoreTimestamp(): bigint {
    let last = 0n;
    for (const c of this.channels.values()) if (c.lastStore > last) last = c.lastStore;
    return last;
  }

  get byteSize(): number {
    let n = 0;
    for (const c of this.channels.values()) n += c.kinds.length * 33;
    return n;
  }
}
