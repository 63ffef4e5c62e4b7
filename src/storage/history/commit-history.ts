import type { LogEntry } from '../../format/transaction-log.js';
import { RangeTable, StoreTable } from './commit-tables.js';
import { DirectorySource } from '../source/directory-source.js';
import { forEachLogEntry } from './log-entries-stream.js';
import type { SourceReads } from '../source/source.js';
import type { ChannelLayout, StorageLayout } from '../source/storage-dir.js';

/**
 * The commits of a storage, read from its transaction logs (storage-format.md §6): every store
 * writes one store entry with a common timestamp to the log of every channel; a commit is a
 * timestamp that reached all channels. For each channel a commit appended the bytes
 * `[from, to)` of its head file; housekeeping later copies live records into newer files (transfer
 * entries) and deletes old files.
 *
 * From this the history answers two questions without any JS object per entity or per commit:
 * - which commit wrote (or, through housekeeping copies, originally wrote) the record at a
 *   position of a data file (`commitOf`);
 * - where to cut each channel's log to see the storage as it was right after a commit, and whether
 *   the files needed for that still exist (`pointInTime`).
 */

export interface CommitPart {
  readonly channel: number;
  /** Offset of the commit's store entry in the channel's transaction log. */
  readonly logOffset: number;
  /** The channel's head file when the commit was written. */
  readonly fileNumber: bigint;
  /** The commit's bytes in that file: `[from, to)` (empty when the channel got nothing). */
  readonly from: number;
  readonly to: number;
}

export interface Commit {
  /** Position in the storage's history, from 1 (as `check --commits` lists them). */
  readonly number: number;
  /** The log timestamp: epoch milliseconds × 1,000,000 plus a counter within the millisecond. */
  readonly timestamp: bigint;
  /** Epoch milliseconds of the timestamp. */
  readonly time: number;
  readonly parts: readonly CommitPart[];
}

/** The commit behind a record. */
export interface CommitRef {
  readonly commit: Commit;
  /** The record is a copy housekeeping made of the record this commit wrote (in an older file). */
  readonly copied: boolean;
}

/** A point in the history from which a storage state can be rebuilt. */
export interface PointInTime {
  readonly commit: Commit;
  /** Per channel: how many bytes of its transaction log to read. */
  readonly logLimits: readonly number[];
  /**
   * Non-empty when the state cannot be rebuilt exactly: data files that held committed bytes at
   * that point and have been deleted (or cut) since, by housekeeping or by hand.
   */
  readonly missingFiles: readonly MissingFile[];
}

export interface MissingFile {
  readonly channel: number;
  readonly fileNumber: bigint;
  /** Committed bytes the file had at that point. */
  readonly length: number;
  /** Bytes on disk now (undefined: the file is gone). */
  readonly sizeOnDisk: number | undefined;
}

/** Stores found in only some channels' logs (the last store, cut short by a crash). */
export interface IncompleteStore {
  readonly timestamp: bigint;
  readonly channels: readonly number[];
}

const RANGE_STORE = 0;
const RANGE_TRANSFER = 1;
/** Bytes a log registers at file creation (a log Java derived from existing files): origin unknown. */
const RANGE_UNLOGGED = 2;

export class CommitHistory {
  private constructor(
    private readonly channels: readonly ChannelHistory[],
    /** Commits that reached every channel. */
    readonly size: number,
    readonly incompleteStores: readonly IncompleteStore[],
  ) {}

  /**
   * Reads the whole log of every channel (channels without a log have no history), through
   * `reads` (the snapshot the layout was listed in), or from the storage directory of the layout.
   */
  static async read(layout: StorageLayout, reads?: SourceReads): Promise<CommitHistory> {
    if (reads !== undefined) return CommitHistory.readThrough(layout, reads);
    const directory = new DirectorySource(layout.directory);
    try {
      return await CommitHistory.readThrough(layout, directory);
    } finally {
      await directory.close();
    }
  }

  private static async readThrough(layout: StorageLayout, reads: SourceReads): Promise<CommitHistory> {
    const channels: ChannelHistory[] = [];
    for (const channel of layout.channels) {
      const history = new ChannelHistory(channel);
      if (channel.logPath !== undefined) {
        const { end } = await forEachLogEntry(reads, channel.logPath, channel.logSize, (entry) => history.apply(entry));
        history.finish(end);
      } else {
        history.finish(0);
      }
      channels.push(history);
    }
    const counts = channels.map((c) => c.stores.length);
    let size = Math.min(...counts);
    for (let k = 0; k < size; k++) {
      const ts = channels[0]!.stores.timestamp(k);
      if (channels.some((c) => c.stores.timestamp(k) !== ts)) {
        size = k;
        break;
      }
    }
    const incomplete = new Map<bigint, number[]>();
    channels.forEach((c, index) => {
      for (let k = size; k < c.stores.length; k++) {
        const ts = c.stores.timestamp(k);
        incomplete.set(ts, [...(incomplete.get(ts) ?? []), index]);
      }
    });
    return new CommitHistory(channels, size, [...incomplete].map(([timestamp, list]) => ({ timestamp, channels: list })));
  }

  /** Commit number `n` (from 1). */
  commit(n: number): Commit {
    if (!Number.isInteger(n) || n < 1 || n > this.size) throw new RangeError(`no commit ${n} (the storage has ${this.size})`);
    const k = n - 1;
    const timestamp = this.channels[0]!.stores.timestamp(k);
    return {
      number: n,
      timestamp,
      time: Number(timestamp / 1_000_000n),
      parts: this.channels.map((c, channel) => ({
        channel,
        logOffset: c.stores.logOffset(k),
        fileNumber: c.stores.fileNumber(k),
        from: c.stores.from(k),
        to: c.stores.to(k),
      })),
    };
  }

  *commits(): IterableIterator<Commit> {
    for (let n = 1; n <= this.size; n++) yield this.commit(n);
  }

  /** The commit with this log timestamp, if any. */
  commitByTimestamp(timestamp: bigint): Commit | undefined {
    const k = this.channels[0]?.stores.indexOfTimestamp(timestamp, this.size);
    return k === undefined ? undefined : this.commit(k + 1);
  }

  /** The last commit made at or before a time (epoch milliseconds), if any. */
  commitAtOrBefore(time: number): Commit | undefined {
    const stores = this.channels[0]?.stores;
    if (stores === undefined) return undefined;
    let lo = 0;
    let hi = this.size; // first commit after `time`
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (Number(stores.timestamp(mid) / 1_000_000n) <= time) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? undefined : this.commit(lo);
  }

  /**
   * The commit whose store wrote the record at `offset` of a data file, following housekeeping
   * copies back to the original store. Undefined for bytes no commit covers (an uncommitted tail,
   * a store that reached only some channels, bytes registered by a log Java derived from the files).
   */
  commitOf(channel: number, fileNumber: bigint, offset: number): CommitRef | undefined {
    const n = this.commitNumberOf(channel, fileNumber, offset);
    return n === 0 ? undefined : { commit: this.commit(Math.abs(n)), copied: n < 0 };
  }

  /**
   * `commitOf` without allocating a commit: its number, negative when the record is a housekeeping
   * copy, 0 when no commit covers the bytes (for walks over every record).
   */
  commitNumberOf(channel: number, fileNumber: bigint, offset: number): number {
    return this.commitNumberIn(channel, fileNumber, offset, undefined);
  }

  /**
   * `commitNumberOf`, and in `span` the bytes [span[0], span[1]) of the file around `offset` for
   * which it answers the same: the range a store wrote there itself. For a housekeeping copy (whose
   * answer follows each record back to its source) or bytes no range covers, the span is empty.
   * A walk over records in file order asks the log once per range instead of once per record.
   */
  commitNumberAndSpan(channel: number, fileNumber: bigint, offset: number, span: Float64Array): number {
    span[0] = 0;
    span[1] = 0;
    return this.commitNumberIn(channel, fileNumber, offset, span);
  }

  private commitNumberIn(channel: number, fileNumber: bigint, offset: number, span: Float64Array | undefined): number {
    const history = this.channels[channel];
    if (history === undefined) return 0;
    let file = fileNumber;
    let at = offset;
    let copied = false;
    // Each hop goes to an older file, so the loop ends; the bound guards against a corrupt log.
    for (let hops = 0; hops <= history.ranges.length; hops++) {
      const r = history.ranges.find(file, at);
      if (r < 0) return 0;
      const kind = history.ranges.kind(r);
      if (kind === RANGE_STORE) {
        const k = history.ranges.source(r);
        if (span !== undefined && !copied) {
          span[0] = history.ranges.start(r);
          span[1] = history.ranges.end(r);
        }
        return k < this.size ? (copied ? -(k + 1) : k + 1) : 0;
      }
      if (kind !== RANGE_TRANSFER) return 0;
      at = history.ranges.sourceOffset(r) + (at - history.ranges.start(r));
      file = BigInt(history.ranges.sourceFile(r));
      copied = true;
    }
    return 0;
  }

  /**
   * The byte ranges housekeeping copied live records into, per channel (one entry per transfer, not
   * per record): where the records of commits whose own files are gone still lie.
   */
  transferRanges(channel: number): { readonly fileNumber: bigint; readonly from: number; readonly to: number }[] {
    const ranges = this.channels[channel]?.ranges;
    const out: { fileNumber: bigint; from: number; to: number }[] = [];
    if (ranges === undefined) return out;
    for (let r = 0; r < ranges.length; r++) {
      if (ranges.kind(r) === RANGE_TRANSFER) out.push({ fileNumber: BigInt(ranges.file(r)), from: ranges.start(r), to: ranges.end(r) });
    }
    return out;
  }

  /** The log timestamp of commit number `n` (from 1), without allocating the commit. */
  timestampOf(n: number): bigint {
    if (!Number.isInteger(n) || n < 1 || n > this.size) throw new RangeError(`no commit ${n} (the storage has ${this.size})`);
    return this.channels[0]!.stores.timestamp(n - 1);
  }

  /**
   * Where to cut the logs to see the state right after commit `n`: just before the next store,
   * so that housekeeping which ran after the commit (it copies records, it never changes the state)
   * is included when the files it emptied are gone; else right after the commit's own entries.
   */
  pointInTime(n: number, layout: StorageLayout): PointInTime {
    const commit = this.commit(n);
    const k = n - 1;
    const afterHousekeeping = this.channels.map((c) => c.stores.missingBeforeNext(k));
    if (afterHousekeeping.every((m) => m === 0)) {
      return { commit, logLimits: this.channels.map((c) => c.limitBeforeNextStore(k)), missingFiles: [] };
    }
    const atEntry = this.channels.map((c) => c.stores.missingAfter(k));
    const limits = atEntry.every((m) => m === 0)
      ? this.channels.map((c) => c.stores.logOffset(k) + STORE_ENTRY_LENGTH)
      : this.channels.map((c) => c.limitBeforeNextStore(k));
    return { commit, logLimits: limits, missingFiles: atEntry.every((m) => m === 0) ? [] : this.missingAt(k, layout) };
  }

  private missingAt(k: number, layout: StorageLayout): MissingFile[] {
    return this.channels.flatMap((c, channel) => c.missingFilesAt(k, layout.channels[channel]!));
  }
}

const STORE_ENTRY_LENGTH = 18;

interface FileState {
  length: number;
  deleted: boolean;
}

/** One channel's log, replayed: its stores, the byte ranges of its files and the files it needs. */
class ChannelHistory {
  readonly stores = new StoreTable();
  readonly ranges = new RangeTable();
  private readonly files = new Map<bigint, FileState>();
  private readonly disk: Map<bigint, number>;
  private head = -1n;
  private headLength = 0;
  /** Logged, not deleted, non-empty files that are not (completely) on disk any more. */
  private missing = 0;
  private logEnd = 0;
  /**
   * File creations and deletions, each with the number of stores before it, to recompute the files
   * a store needed (one object per file, not per store).
   */
  private readonly fileEvents: { stores: number; file: bigint; deleted: boolean; previousHeadLength: number }[] = [];

  constructor(layout: ChannelLayout) {
    this.disk = new Map(layout.dataFiles.map((f) => [f.fileNumber, f.size]));
  }

  apply(entry: LogEntry): void {
    switch (entry.type) {
      case 'creation': {
        const n = entry.fileNumber!;
        this.fileEvents.push({ stores: this.stores.length, file: n, deleted: false, previousHeadLength: this.headLength });
        this.setFile(n, { length: entry.fileLength, deleted: false });
        this.head = n;
        this.headLength = entry.fileLength;
        if (entry.fileLength > 0) this.ranges.push(n, 0, entry.fileLength, RANGE_UNLOGGED, -1, 0, 0);
        break;
      }
      case 'store': {
        const from = this.headLength;
        if (entry.fileLength > from) this.ranges.push(this.head, from, entry.fileLength, RANGE_STORE, this.stores.length, 0, 0);
        this.headLength = entry.fileLength;
        this.setHeadLength(entry.fileLength);
        // The housekeeping that followed the previous store ends here.
        this.stores.closePrevious(this.missing);
        this.stores.push(entry.timestamp, entry.offset, this.head, from, entry.fileLength, this.missing);
        break;
      }
      case 'transfer': {
        const from = this.headLength;
        if (entry.fileLength > from) {
          this.ranges.push(this.head, from, entry.fileLength, RANGE_TRANSFER, 0, Number(entry.fileNumber!), entry.specialOffset ?? 0);
        }
        this.headLength = entry.fileLength;
        this.setHeadLength(entry.fileLength);
        break;
      }
      case 'truncation':
        this.ranges.truncate(this.head, entry.fileLength);
        this.headLength = entry.fileLength;
        this.setHeadLength(entry.fileLength);
        break;
      case 'deletion': {
        const n = entry.fileNumber!;
        const file = this.files.get(n);
        if (file !== undefined) this.setFile(n, { ...file, deleted: true });
        this.fileEvents.push({ stores: this.stores.length, file: n, deleted: true, previousHeadLength: this.headLength });
        break;
      }
    }
    this.logEnd = entry.offset + entryLength(entry);
  }

  finish(end: number): void {
    this.logEnd = Math.max(this.logEnd, end);
    this.stores.closePrevious(this.missing);
  }

  /** The log offset just before the store that follows store `k` (the log's end after the last). */
  limitBeforeNextStore(k: number): number {
    return k + 1 < this.stores.length ? this.stores.logOffset(k + 1) : this.logEnd;
  }

  /** Files needed right after store `k` (its own entry included, nothing after it) that are not available now. */
  missingFilesAt(k: number, layout: ChannelLayout): MissingFile[] {
    const state = new Map<bigint, FileState>();
    let head: bigint | undefined;
    for (const event of this.fileEvents) {
      if (event.stores > k) break;
      if (event.deleted) {
        const file = state.get(event.file);
        if (file !== undefined) file.deleted = true;
        continue;
      }
      // A new head file: the previous one keeps the length it had then.
      const previous = head === undefined ? undefined : state.get(head);
      if (previous !== undefined) previous.length = event.previousHeadLength;
      state.set(event.file, { length: 0, deleted: false });
      head = event.file;
    }
    const headState = head === undefined ? undefined : state.get(head);
    if (headState !== undefined) headState.length = this.stores.to(k);
    const out: MissingFile[] = [];
    for (const [fileNumber, file] of state) {
      if (file.deleted || file.length === 0) continue;
      const size = this.disk.get(fileNumber);
      if (size === undefined || size < file.length) out.push({ channel: layout.index, fileNumber, length: file.length, sizeOnDisk: size });
    }
    return out.sort((a, b) => (a.fileNumber < b.fileNumber ? -1 : 1));
  }

  private setHeadLength(length: number): void {
    const file = this.files.get(this.head);
    if (file !== undefined) this.setFile(this.head, { ...file, length });
  }

  private setFile(n: bigint, state: FileState): void {
    const before = this.files.get(n);
    if (before !== undefined && this.unavailable(n, before)) this.missing--;
    this.files.set(n, state);
    if (this.unavailable(n, state)) this.missing++;
  }

  private unavailable(n: bigint, state: FileState): boolean {
    if (state.deleted || state.length === 0) return false;
    const size = this.disk.get(n);
    return size === undefined || size < state.length;
  }
}

function entryLength(entry: LogEntry): number {
  return entry.type === 'store' ? 18 : entry.type === 'transfer' || entry.type === 'truncation' ? 34 : 26;
}
