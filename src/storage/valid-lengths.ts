import { StorageError } from '../errors.js';
import { FILE_HEADER_LENGTH } from '../format/meta-record.js';
import type { LogAggregate } from '../format/transaction-log.js';
import type { ChannelLayout, DataFileRef, StorageLayout } from './source/storage-dir.js';

/**
 * Which bytes of which data files belong to committed stores, decided like Java's startup
 * (storage-format.md §6.5) but without modifying anything: uncommitted head tails and stores
 * that reached only some channels are left out instead of being truncated.
 */

export interface ValidDataFile extends DataFileRef {
  /** Bytes of the file that hold committed records. */
  readonly validLength: number;
  /** The log marks the file as deleted, yet it is still on disk (Java loads and counts it). */
  readonly loggedAsDeleted: boolean;
  /**
   * Bytes the transaction log commits for this file (undefined without a log, or when the log
   * does not name it): a file shorter than this lost committed records.
   */
  readonly committedLength?: number;
}

export interface ValidChannel {
  readonly layout: ChannelLayout;
  readonly files: readonly ValidDataFile[];
}

export interface ValidStorage {
  readonly channels: readonly ValidChannel[];
  readonly warnings: readonly string[];
  /** The store timestamp every channel has reached (epoch nanoseconds, §6.2); 0 without logs. */
  readonly commitTimestamp: bigint;
}

export interface ValidLengthOptions {
  /**
   * The logs were read only up to an earlier point in time (see commit-history.ts): files created
   * after that point are not part of the state and are left out instead of being reported.
   */
  readonly logsEndEarlier?: boolean;
  /**
   * Never refuse: where Java's rule cannot decide (mixed logs, stores that disagree between
   * channels, logged files that are missing), read what the files hold and warn. For reading what
   * is left of a damaged storage (`rescue`); channels whose log is unusable are passed without one.
   */
  readonly tolerant?: boolean;
}

/**
 * @param logs per channel: the aggregate of its log, or undefined when the channel has no log
 *   or an empty one.
 */
export function resolveValidLengths(
  layout: StorageLayout,
  logs: readonly (LogAggregate | undefined)[],
  options: ValidLengthOptions = {},
): ValidStorage {
  const warnings: string[] = [];
  const withLog = layout.channels.filter((c) => c.logPath !== undefined).length;
  if (withLog !== 0 && withLog !== layout.channels.length && options.tolerant !== true) {
    throw new StorageError(
      'STORAGE_INCONSISTENT',
      `${layout.directory}: mixed (inconsistent) transactions file existences: ${withLog} of ${layout.channels.length} channels have a log`,
    );
  }
  const consistentTimestamp = findConsistentTimestamp(logs, layout.directory, options.tolerant === true);
  const channels = layout.channels.map((channel, i) => ({
    layout: channel,
    files: validateChannelFiles(channel, logs[i], consistentTimestamp, warnings, options),
  }));
  // Tolerant and the channels disagree: the newest store any channel has.
  const newest = logs.reduce((max, a) => (a !== undefined && a.headLatestTimestamp > max ? a.headLatestTimestamp : max), 0n);
  return { channels, warnings, commitTimestamp: consistentTimestamp ?? newest };
}

/**
 * The store timestamp that every channel has reached (§6.5 step 3); 0 when there are no logs.
 * Tolerant: decided among the channels that have a log; undefined (each channel its latest store)
 * when they disagree.
 */
function findConsistentTimestamp(aggregates: readonly (LogAggregate | undefined)[], directory: string, tolerant: boolean): bigint | undefined {
  const present = tolerant ? aggregates.filter((a): a is LogAggregate => a !== undefined) : aggregates;
  const first = present[0];
  if (first === undefined || present.some((a) => a === undefined)) return 0n;
  const fits = (ts: bigint): boolean =>
    present.every((a) => a !== undefined && (a.headLatestTimestamp === ts || a.headLastConsistentTimestamp === ts));
  if (fits(first.headLatestTimestamp)) return first.headLatestTimestamp;
  if (fits(first.headLastConsistentTimestamp)) return first.headLastConsistentTimestamp;
  if (tolerant) return undefined;
  throw new StorageError('STORAGE_INCONSISTENT', `${directory}: inconsistent store timestamps between channels`);
}

function validateChannelFiles(
  channel: ChannelLayout,
  aggregate: LogAggregate | undefined,
  consistentTimestamp: bigint | undefined,
  warnings: string[],
  options: ValidLengthOptions,
): ValidDataFile[] {
  const later = (f: DataFileRef): boolean =>
    options.logsEndEarlier === true && aggregate?.headFileNumber !== undefined && f.fileNumber > aggregate.headFileNumber;
  const files = channel.dataFiles.filter((f) => !later(f));
  const head = files[files.length - 1];
  if (aggregate === undefined) {
    return files.map((f) => ({ ...f, validLength: f.size, loggedAsDeleted: false }));
  }
  for (const [number, logged] of aggregate.files) {
    if (!logged.deleted && logged.length > 0 && !files.some((f) => f.fileNumber === number)) {
      if (options.tolerant === true) {
        warnings.push(`${channel.directory}: data file ${number} of channel ${channel.index} (${logged.length} bytes logged) is missing; its records are lost`);
        continue;
      }
      throw new StorageError(
        'STORAGE_INCONSISTENT',
        `${channel.directory}: non-deleted non-empty data file not found: channel ${channel.index}, file ${number} (${logged.length} bytes logged)`,
      );
    }
  }
  return files.map((file) => {
    const logged = aggregate.files.get(file.fileNumber);
    const isHead = file === head;
    if (logged === undefined) {
      // An empty highest file that the log does not know yet is normal (Java logs it at startup);
      // a file being created right now looks the same to a follower (with EclipseStore 4.2's chunk
      // checksums a new file holds its 46-byte header record before the log names it).
      if (!(isHead && (file.size === 0 || file.size === FILE_HEADER_LENGTH))) {
        warnings.push(`${file.path}: not in the transaction log (Java refuses to start); read at its full size`);
      }
      return { ...file, validLength: isHead ? 0 : file.size, loggedAsDeleted: false };
    }
    if (file.fileNumber !== aggregate.headFileNumber) {
      if (logged.length !== file.size) {
        warnings.push(`${file.path}: ${file.size} bytes on disk but ${logged.length} logged (Java refuses to start)`);
      }
      return { ...file, validLength: Math.min(file.size, logged.length), loggedAsDeleted: logged.deleted, committedLength: logged.length };
    }
    // The log's head file: its committed length depends on the store all channels have reached.
    let validLength: number;
    if (consistentTimestamp === undefined) validLength = aggregate.headLatestLength;
    else if (aggregate.headLatestTimestamp === consistentTimestamp) validLength = aggregate.headLatestLength;
    else if (aggregate.headLastConsistentTimestamp === consistentTimestamp) validLength = aggregate.headLastConsistentLength;
    else if (options.tolerant === true) validLength = aggregate.headLatestLength;
    else {
      throw new StorageError(
        'STORAGE_INCONSISTENT',
        `${channel.directory}: inconsistent last timestamps in last file of channel ${channel.index}`,
      );
    }
    const committedLength = validLength;
    if (validLength > file.size) {
      warnings.push(`${file.path}: ${file.size} bytes on disk but the transaction log commits ${validLength}; the missing tail is lost`);
      validLength = file.size;
    }
    return { ...file, validLength, loggedAsDeleted: logged.deleted, committedLength };
  });
}
