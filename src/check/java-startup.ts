import { basename, join } from 'node:path';
import type { LogAggregate, LoggedFile } from '../format/transaction-log.js';
import { DirectorySource } from '../storage/source/directory-source.js';
import type { SourceFile, SourceReads } from '../storage/source/source.js';
import type { ChannelLayout, DataFileRef, StorageLayout } from '../storage/source/storage-dir.js';
import { resolveValidLengths, type ValidStorage } from '../storage/valid-lengths.js';
import { completeSwapContent } from '../format/compaction-swap.js';
import { pendingCompaction } from '../storage/log-reader.js';
import { analyzeJavaLog, type JavaLogAggregate, type JavaLogAnalysis, type JavaLoggedFile } from './java-log-analysis.js';
import { STORAGE_EXCEPTION, type Problem } from './problem.js';

/**
 * What MicroStream 4.1 decides about a directory's files before it reads a single record
 * (`StorageChannelTaskInitialize`, `StorageFileManager.validateStorageDataFilesLength`,
 * `determineLastFileLength`, `ensureTransactionsFile`): the logs, the files they name, their
 * lengths, and the store every channel has reached. Every finding becomes a problem with Java's
 * message; nothing stops at the first one.
 */

export interface StartupAnalysis {
  readonly logs: readonly (JavaLogAnalysis | undefined)[];
  readonly problems: readonly Problem[];
  /** The committed bytes Java would load, when it gets that far. */
  readonly javaLengths: ValidStorage | undefined;
  /**
   * What can be read: Java's lengths where they can be decided; a channel whose log is unusable
   * is read to the end of its files, like Java reads a storage without logs.
   */
  readonly readableLengths: ValidStorage;
}

/**
 * Reads the logs through `reads` (the snapshot the layout was listed in), or from the storage
 * directory of the layout.
 */
export async function analyzeStartup(layout: StorageLayout, reads?: SourceReads): Promise<StartupAnalysis> {
  if (reads !== undefined) return analyzeThrough(layout, reads);
  const directory = new DirectorySource(layout.directory);
  try {
    return await analyzeThrough(layout, directory);
  } finally {
    await directory.close();
  }
}

async function analyzeThrough(layout: StorageLayout, reads: SourceReads): Promise<StartupAnalysis> {
  const findings = new Findings();
  const logs = await readLogs(layout, reads, findings);
  layoutFindings(layout, findings);
  logFailures(logs, findings);
  const withLog = layout.channels.filter((c) => c.logPath !== undefined).length;
  if (withLog !== 0 && withLog !== layout.channels.length) mixedLogs(layout, findings);

  const usable = logs.map((l) => (l === undefined || l.failure !== undefined ? undefined : l.aggregate));
  let consistent: bigint | undefined;
  if (!findings.refused && withLog === layout.channels.length && withLog > 0) {
    consistent = consistentTimestamp(usable as JavaLogAggregate[]);
    if (consistent === undefined) {
      findings.refuse({
        code: 'STORES_INCONSISTENT',
        file: layout.channels[0]!.logPath,
        java: { exception: STORAGE_EXCEPTION, message: 'Inconsistent store timestamps between channels' },
        meaning: 'the channels disagree about the last store by more than one store: no common state can be found',
        rescue: "reads each channel up to its own last store",
      });
    }
  } else if (withLog === 0) {
    consistent = 0n;
  }

  layout.channels.forEach((channel, c) => channelFindings(channel, c, usable[c], consistent, withLog, findings));

  const aggregates = usable.map((a) => (a === undefined || a.entryCount === 0 ? undefined : toLogAggregate(a)));
  const javaLengths = findings.refused ? undefined : tryJavaLengths(layout, aggregates);
  const readableLengths = resolveValidLengths(layout, aggregates, { tolerant: true });
  return { logs, problems: findings.problems, javaLengths, readableLengths };
}

/** The problems found so far, in the order found, and whether one of them refuses the start. */
class Findings {
  readonly problems: Problem[] = [];
  refused = false;

  refuse(problem: Omit<Problem, 'severity'>): void {
    this.refused = true;
    this.problems.push({ severity: 'refuses-start', ...problem });
  }
}

/**
 * Every channel's log (undefined without one), read as Java reads it; a log that EclipseStore 4.2
 * restores from a complete compaction swap file is read from there. What the swap files mean is
 * told once all logs are read.
 */
async function readLogs(layout: StorageLayout, reads: SourceReads, findings: Findings): Promise<(JavaLogAnalysis | undefined)[]> {
  const logs: (JavaLogAnalysis | undefined)[] = [];
  const restored: Problem[] = [];
  for (const channel of layout.channels) {
    // EclipseStore 4.2 restores a log from a complete compaction swap file before it reads it
    // (an interrupted log rewrite, even one that left the log empty): the swap's content is the log.
    const swapped = channel.logPath === undefined ? undefined : await pendingCompaction(channel, reads);
    if (swapped === undefined && channel.compactionSwapPath !== undefined) {
      const swap = await reads.readWhole(channel.compactionSwapPath).catch(() => undefined);
      if (swap !== undefined && completeSwapContent(swap) === undefined) {
        restored.push({
          code: 'LOG_SWAP_DISCARDED',
          severity: 'harmless',
          file: channel.compactionSwapPath,
          meaning: 'an incomplete log compaction swap file (its length or CRC-32 does not match its header): the log was never touched; EclipseStore 4.2 discards it when it starts (WARN "discarding incomplete compaction swap file …")',
          rescue: 'leaves it out',
        });
      }
    }
    if (swapped !== undefined && channel.logPath !== undefined) {
      logs.push(await analyzeJavaLog(swapReads(reads, channel.logPath, swapped), channel.logPath, swapped.length, channel.index));
      restored.push({
        code: 'LOG_RESTORED_FROM_SWAP',
        severity: 'harmless',
        file: channel.compactionSwapPath,
        meaning: `a log compaction was interrupted: EclipseStore 4.2 restores the log ${basename(channel.logPath)} from this complete swap file when it starts (WARN "restoring transaction file … from interrupted compaction swap file …") and loses nothing`,
        rescue: 'reads the log from the swap file and writes a new log',
      });
      continue;
    }
    logs.push(channel.logPath === undefined ? undefined : await analyzeJavaLog(reads, channel.logPath, channel.logSize, channel.index));
  }
  findings.problems.push(...restored);
  return logs;
}

/** What listing the directory found: files kept as inconsistent rows, names Java refuses, other layout warnings. */
function layoutFindings(layout: StorageLayout, findings: Findings): void {
  const damaged = new Map<string, SourceFile>(layout.damagedFiles.map((f) => [`${f.path}: ${f.problem ?? ''}`, f]));
  for (const warning of layout.warnings) {
    const file = damaged.get(warning);
    if (file !== undefined) {
      findings.problems.push(rowsProblem(file));
      continue;
    }
    findings.problems.push(layoutProblem(warning));
    if (/Java refuses to start/.test(warning)) findings.refused = true;
  }
}

/** Logs that cannot be read to their end. */
function logFailures(logs: readonly (JavaLogAnalysis | undefined)[], findings: Findings): void {
  logs.forEach((log) => {
    if (log?.failure === undefined) return;
    findings.refuse({
      code: log.failure.hangs ? 'LOG_INCOMPLETE_ENTRY' : 'LOG_INVALID',
      file: log.path,
      offset: log.failure.offset,
      java: log.failure.hangs ? undefined : { exception: STORAGE_EXCEPTION, message: log.failure.message },
      meaning: log.failure.hangs
        ? `the transaction log ends with a partly written entry at offset ${log.failure.offset} (a crash while logging): ${log.failure.message}`
        : `the transaction log cannot be read from offset ${log.failure.offset} on (overwritten or damaged bytes): the commits it records after that point cannot be checked`,
      rescue: 'reads the data files of this channel as far as they hold complete records (as MicroStream does without a log) and writes a new log',
    });
  });
}

/** Some channels have a log and others not. */
function mixedLogs(layout: StorageLayout, findings: Findings): void {
  const missing = layout.channels.filter((c) => c.logPath === undefined).map((c) => c.index);
  findings.refuse({
    code: 'LOGS_MIXED',
    file: join(layout.channels[missing[0]!]!.directory, `transactions_${missing[0]}.sft`),
    java: { exception: STORAGE_EXCEPTION, message: 'Mixed (inconsistent) transactions file existances.' },
    meaning: `channel${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ha${missing.length > 1 ? 've' : 's'} no transaction log while the others have one`,
    rescue: 'reads those channels to the end of their files and writes new logs for all channels',
  });
}

/**
 * One channel's data files against its log (`aggregate`, when usable): files the log does not name
 * or names but are gone, lengths that disagree, and the head file's length at the store every
 * channel has reached (`consistent`, when known).
 */
function channelFindings(
  channel: ChannelLayout,
  c: number,
  aggregate: JavaLogAggregate | undefined,
  consistent: bigint | undefined,
  withLog: number,
  findings: Findings,
): void {
  const files = channel.dataFiles;
  const last = files[files.length - 1];
  if (channel.logPath === undefined) {
    if (withLog === 0 && files.length > 0) {
      findings.problems.push({
        code: 'LOG_MISSING',
        severity: 'harmless',
        file: join(channel.directory, `transactions_${c}.sft`),
        meaning: `channel ${c} has no transaction log: MicroStream takes its data files as they are and writes a new log at start (an incomplete last store cannot be told apart)`,
        rescue: 'writes a new log',
      });
    }
    return;
  }
  if (aggregate === undefined || aggregate.entryCount === 0) return;
  const entries = new Map(aggregate.files);
  const unregisteredEmptyLast = loggedFileFindings(files, c, entries, findings);
  unloggedEntryFindings(channel, c, entries, findings);
  if (consistent === undefined || unregisteredEmptyLast || last === undefined) return;
  headFileFindings(channel.logPath, last, c, aggregate, consistent, findings);
}

/**
 * Each data file against its log entry (taken out of `entries`, which keeps the entries no file
 * answers). Whether the last file is empty and not logged yet (normal: Java logs it at start).
 */
function loggedFileFindings(files: readonly DataFileRef[], c: number, entries: Map<bigint, JavaLoggedFile>, findings: Findings): boolean {
  const last = files[files.length - 1];
  let unregisteredEmptyLast = false;
  for (const file of files) {
    const entry = entries.get(file.fileNumber);
    entries.delete(file.fileNumber);
    if (entry === undefined) {
      if (file === last && file.size === 0) {
        unregisteredEmptyLast = true;
        continue;
      }
      findings.refuse({
        code: 'DATA_FILE_NOT_LOGGED',
        file: file.path,
        offset: 0,
        java: { exception: STORAGE_EXCEPTION, message: `${c} could not find transactions entry for file ${file.fileNumber}` },
        meaning: `the data file (${file.size} bytes) is not in the transaction log of channel ${c}: it was not created by this storage's commits, or its log entries are lost`,
        rescue: 'reads the records it holds',
      });
      continue;
    }
    if (entry.deleted) {
      findings.problems.push({
        code: 'DELETED_FILE_PRESENT',
        severity: 'harmless',
        file: file.path,
        meaning: 'the log says housekeeping deleted this file, yet it is still there: MicroStream reads it anyway; its records were copied to newer files first',
        rescue: 'copies only the newest version of each object, so nothing from this file is needed twice',
      });
    }
    const logged = entry.length;
    const size = BigInt(file.size);
    if (logged === size || (file === last && logged < size)) continue;
    findings.refuse({
      code: size < logged ? 'DATA_FILE_TOO_SHORT' : 'DATA_FILE_TOO_LONG',
      file: file.path,
      offset: Number(size < logged ? size : logged),
      java: {
        exception: STORAGE_EXCEPTION,
        message: `${c} Length ${file.size} of file ${file.fileNumber} is inconsinstent with the transactions entry's length of ${logged}`,
      },
      meaning:
        size < logged
          ? `the file is ${logged - size} bytes shorter than its committed length ${logged}: committed records from offset ${file.size} on are missing (cut off)`
          : `the file has ${size - logged} bytes after its committed length ${logged} although it is not the last file`,
      rescue: size < logged ? `keeps the records before offset ${file.size}; objects whose newest version was in the missing part are kept in an older version, if there is one, else lost` : 'reads the committed part only',
      missingBytes: size < logged ? { from: file.size, to: Number(logged) } : undefined,
    });
  }
  return unregisteredEmptyLast;
}

/** Log entries of files that are not there: an empty one is made again, a non-empty one is lost. */
function unloggedEntryFindings(channel: ChannelLayout, c: number, entries: ReadonlyMap<bigint, JavaLoggedFile>, findings: Findings): void {
  for (const entry of entries.values()) {
    if (entry.deleted) continue;
    const path = join(channel.directory, `channel_${c}_${entry.fileNumber}.dat`);
    if (entry.length === 0n) {
      findings.problems.push({
        code: 'EMPTY_DATA_FILE_MISSING',
        severity: 'harmless',
        file: path,
        meaning: `the empty data file ${entry.fileNumber} named by the log is missing: MicroStream creates it again`,
        rescue: 'nothing to do',
      });
      continue;
    }
    findings.refuse({
      code: 'DATA_FILE_MISSING',
      file: path,
      offset: 0,
      java: { exception: STORAGE_EXCEPTION, message: `Non-deleted non-empty data file not found: channel ${c}, file ${entry.fileNumber}` },
      meaning: `the data file ${entry.fileNumber} of channel ${c}, which holds ${entry.length} committed bytes, is gone`,
      rescue: 'keeps everything else; objects whose newest version was in that file are kept in an older version, if there is one, else lost',
      missingBytes: { from: 0, to: Number(entry.length) },
    });
  }
}

/** The head file at the store every channel has reached: a store only some channels have, bytes after the last commit. */
function headFileFindings(logPath: string, last: DataFileRef, c: number, aggregate: JavaLogAggregate, consistent: bigint, findings: Findings): void {
  let headLength: bigint;
  if (aggregate.headLatestTimestamp === consistent) headLength = aggregate.headLatestLength;
  else if (aggregate.headLastConsistentTimestamp === consistent) headLength = aggregate.headLastConsistentLength;
  else {
    findings.refuse({
      code: 'STORES_INCONSISTENT',
      file: logPath,
      java: { exception: STORAGE_EXCEPTION, message: `Inconsistent last timestamps in last file of channel ${c}` },
      meaning: `the last store of channel ${c} matches no store of the other channels`,
      rescue: 'reads the channel up to its own last store',
    });
    return;
  }
  if (aggregate.headLatestTimestamp !== consistent && aggregate.headLatestLength > headLength) {
    const lost = aggregate.headLatestLength - headLength;
    findings.problems.push({
      code: 'STORE_INCOMPLETE_ACROSS_CHANNELS',
      severity: 'data-lost',
      file: last.path,
      offset: Number(headLength),
      meaning: `the store of ${timestampText(aggregate.headLatestTimestamp)} was logged in channel ${c} but did not reach every channel: MicroStream rolls it back and discards its ${lost} bytes here`,
      rescue: 'leaves that store out, as MicroStream does (the state before it is kept)',
    });
  }
  const size = BigInt(last.size);
  const end = aggregate.headLatestTimestamp === consistent ? headLength : aggregate.headLatestLength;
  if (size > end && last.fileNumber === aggregate.currentFileNumber) {
    findings.problems.push({
      code: 'UNCOMMITTED_TAIL',
      severity: 'harmless',
      file: last.path,
      offset: Number(end),
      meaning: `${size - end} bytes after the last commit of channel ${c}: a store that was being written when the application stopped; MicroStream cuts them off at start`,
      rescue: 'leaves them out',
    });
  }
}

/** Java's consistent store timestamp (§6.5 step 3), or undefined when the channels disagree. */
function consistentTimestamp(aggregates: readonly JavaLogAggregate[]): bigint | undefined {
  const first = aggregates[0];
  if (first === undefined) return 0n;
  const fits = (ts: bigint): boolean => aggregates.every((a) => a.headLatestTimestamp === ts || a.headLastConsistentTimestamp === ts);
  if (fits(first.headLatestTimestamp)) return first.headLatestTimestamp;
  if (fits(first.headLastConsistentTimestamp)) return first.headLastConsistentTimestamp;
  return undefined;
}

function tryJavaLengths(layout: StorageLayout, aggregates: readonly (LogAggregate | undefined)[]): ValidStorage | undefined {
  try {
    return resolveValidLengths(layout, aggregates);
  } catch {
    return undefined;
  }
}

function toLogAggregate(a: JavaLogAggregate): LogAggregate {
  const files = new Map<bigint, LoggedFile>();
  for (const [n, f] of a.files) files.set(n, { fileNumber: n, length: safe(f.length), deleted: f.deleted });
  return {
    files,
    headFileNumber: a.currentFileNumber >= 0n ? a.currentFileNumber : undefined,
    headLatestLength: safe(a.headLatestLength),
    headLatestTimestamp: a.headLatestTimestamp,
    headLastConsistentLength: safe(a.headLastConsistentLength),
    headLastConsistentTimestamp: a.headLastConsistentTimestamp,
  };
}

function safe(value: bigint): number {
  return value < 0n ? 0 : value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

/** A log timestamp as a UTC time with milliseconds. */
export function timestampText(timestamp: bigint): string {
  const ms = Number(timestamp / 1_000_000n);
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : `timestamp ${timestamp}`;
}

function layoutProblem(warning: string): Problem {
  const refuses = /Java refuses to start/.test(warning);
  return {
    code: refuses ? 'DATA_FILE_NAME_INVALID' : 'DIRECTORY_LAYOUT',
    severity: refuses ? 'refuses-start' : 'harmless',
    file: warning.split(':')[0],
    meaning: warning,
    rescue: refuses ? 'ignores the file' : 'writes only the channels MicroStream reads',
  };
}

/**
 * A file kept as rows that do not continue each other (a gap, overlapping rows, a data length
 * that disagrees with the row's range): the source reads it up to there, as listed. What
 * MicroStream's SQL connector makes of such rows is not known here, so no Java message is
 * claimed; a file that thus ends before its committed length is also reported as too short.
 */
function rowsProblem(file: SourceFile): Problem {
  return {
    code: 'ROWS_INCONSISTENT',
    severity: 'data-lost',
    file: file.path,
    offset: file.size,
    meaning: `${file.problem ?? 'the rows do not continue each other'}: the bytes from offset ${file.size} on cannot be read`,
    rescue: `keeps the records before offset ${file.size}`,
  };
}

/** Reads of `logPath` answered from `content` (a compaction swap file's), everything else as `reads`. */
function swapReads(reads: SourceReads, logPath: string, content: Uint8Array): SourceReads {
  const bytes = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  return {
    read: async (path, position, length, committed) => (path === logPath ? bytes.subarray(position, position + length) : reads.read(path, position, length, committed)),
    chunks: (path, from, to) => (path === logPath ? (async function* () { yield bytes.subarray(from, to); })() : reads.chunks(path, from, to)),
    readWhole: async (path, limit) => (path === logPath ? bytes : reads.readWhole(path, limit)),
  };
}
