import { completeSwapContent } from '../format/compaction-swap.js';
import { applyTransactionLog, LogAggregator, type LogAggregate } from '../format/transaction-log.js';
import { LOCAL_FILES } from './source/directory-source.js';
import type { SourceReads } from './source/source.js';
import type { ChannelLayout, StorageLayout } from './source/storage-dir.js';

/**
 * Reads a channel's transaction log incrementally: each call parses only the bytes appended
 * since the last one and feeds the entries to an aggregator. An entry cut short by the end of
 * the file (being written, or a crash tail) is left for the next call.
 */
export class ChannelLogReader {
  private readonly aggregator: LogAggregator;
  private consumed = 0;
  private tail: number | undefined;
  /** Set when reading failed part way: entries may have been applied, so the log is read anew. */
  private broken = false;

  constructor(readonly path: string) {
    this.aggregator = new LogAggregator(path);
  }

  /** Offset of an incomplete last entry, if the log currently ends with one. */
  get incompleteTailOffset(): number | undefined {
    return this.tail;
  }

  /** Bytes of the log that have been parsed. */
  get offset(): number {
    return this.consumed;
  }

  /** The aggregate of all entries read so far; undefined while the log has no entries. */
  aggregate(): LogAggregate | undefined {
    return this.aggregator.entryCount === 0 ? undefined : this.aggregator.snapshot();
  }

  /**
   * Reads entries appended since the last call (`size`: the log's size now). Returns false if the
   * log is now shorter than what was already read (replaced or truncated), or if an earlier call
   * failed: the caller must start over with a new reader.
   */
  async readNew(size: number, files: SourceReads = LOCAL_FILES): Promise<boolean> {
    if (size < this.consumed || this.broken) return false;
    if (size === this.consumed) {
      this.tail = undefined;
      return true;
    }
    const bytes = Buffer.allocUnsafe(size - this.consumed);
    let done = 0;
    for await (const chunk of files.chunks(this.path, this.consumed, size)) {
      bytes.set(chunk, done);
      done += chunk.length;
    }
    let read: ReturnType<typeof applyTransactionLog>;
    try {
      read = applyTransactionLog(bytes.subarray(0, done), this.aggregator, this.path, this.consumed);
    } catch (error) {
      this.broken = true;
      throw error;
    }
    this.consumed = read.end;
    this.tail = read.incompleteTailOffset;
    return true;
  }
}

/** Reads every channel's whole log once (channels without a log, or with an empty one, give undefined). */
export async function readLogAggregates(layout: StorageLayout, files: SourceReads = LOCAL_FILES): Promise<(LogAggregate | undefined)[]> {
  const aggregates: (LogAggregate | undefined)[] = [];
  for (const channel of layout.channels) {
    if (channel.logPath === undefined) {
      aggregates.push(undefined);
      continue;
    }
    const swapped = await pendingCompaction(channel, files);
    if (swapped !== undefined) {
      aggregates.push(aggregateLogBytes(swapped, channel.compactionSwapPath ?? channel.logPath));
      continue;
    }
    const reader = new ChannelLogReader(channel.logPath);
    await reader.readNew(channel.logSize, files);
    aggregates.push(reader.aggregate());
  }
  return aggregates;
}

/**
 * The log content EclipseStore would restore from a compaction swap file (an interrupted or
 * running log rewrite): the swap's content when it is complete and differs from the log, else
 * undefined (no swap file, an incomplete one, or one the log already equals). Touches nothing.
 */
export async function pendingCompaction(channel: ChannelLayout, files: SourceReads = LOCAL_FILES): Promise<Uint8Array | undefined> {
  if (channel.compactionSwapPath === undefined) return undefined;
  const swap = await files.readWhole(channel.compactionSwapPath).catch(() => undefined);
  const content = swap === undefined ? undefined : completeSwapContent(swap);
  if (content === undefined) return undefined;
  const log = channel.logPath === undefined ? undefined : await files.readWhole(channel.logPath).catch(() => undefined);
  return log !== undefined && Buffer.from(content.buffer, content.byteOffset, content.byteLength).equals(log) ? undefined : content;
}

/** The aggregate of a whole log's bytes (a swap file's content); an incomplete last entry is ignored. */
export function aggregateLogBytes(bytes: Uint8Array, path: string): LogAggregate | undefined {
  const aggregator = new LogAggregator(path);
  applyTransactionLog(bytes, aggregator, path);
  return aggregator.entryCount === 0 ? undefined : aggregator.snapshot();
}

/**
 * Every channel's log entries appended since the last refresh, read by the channel's reader from
 * then (`previous`, indexed by channel) or by a new one when the log was replaced; a log being
 * compacted is read from the swap file EclipseStore would restore it from.
 */
export async function readChannelLogs(
  layout: StorageLayout,
  files: SourceReads,
  previous: readonly (ChannelLogReader | undefined)[],
  warn: (message: string) => void,
): Promise<{ aggregates: (LogAggregate | undefined)[]; readers: (ChannelLogReader | undefined)[] }> {
  const aggregates: (LogAggregate | undefined)[] = [];
  const readers: (ChannelLogReader | undefined)[] = [];
  for (const channel of layout.channels) {
    if (channel.logPath === undefined) {
      readers.push(undefined);
      aggregates.push(undefined);
      continue;
    }
    const swapped = await pendingCompaction(channel, files);
    if (swapped !== undefined) {
      // EclipseStore restores the log from this at its next start: it is the log now.
      warn(`${channel.logPath}: being compacted, or a compaction was interrupted; read from ${channel.compactionSwapPath} as EclipseStore would restore it`);
      readers.push(undefined);
      aggregates.push(aggregateLogBytes(swapped, channel.compactionSwapPath ?? channel.logPath));
      continue;
    }
    let reader = previous[channel.index];
    if (reader === undefined || reader.path !== channel.logPath || !(await reader.readNew(channel.logSize, files))) {
      reader = new ChannelLogReader(channel.logPath);
      await reader.readNew(channel.logSize, files);
    }
    if (reader.incompleteTailOffset !== undefined) {
      warn(`${channel.logPath}: incomplete entry at offset ${reader.incompleteTailOffset} ignored (being written, or a crash tail)`);
    }
    readers.push(reader);
    aggregates.push(reader.aggregate());
  }
  return { aggregates, readers };
}
