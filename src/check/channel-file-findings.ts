import { join } from 'node:path';
import type { ChannelLayout, DataFileRef } from '../storage/source/storage-dir.js';
import type { JavaLogAggregate, JavaLoggedFile } from './java-log-analysis.js';
import { STORAGE_EXCEPTION } from './problem.js';
import type { Findings } from './startup-findings.js';

/**
 * The findings of the start analysis (java-startup.ts) for one channel: its data files against
 * what its log says about them, kept apart from the directory-wide findings because this is where
 * Java's per-file length checks live and where most of its refusals come from.
 */

/**
 * One channel's data files against its log (`aggregate`, when usable): files the log does not name
 * or names but are gone, lengths that disagree, and the head file's length at the store every
 * channel has reached (`consistent`, when known).
 */
export function channelFindings(
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

/** A log timestamp as a UTC time with milliseconds. */
export function timestampText(timestamp: bigint): string {
  const ms = Number(timestamp / 1_000_000n);
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : `timestamp ${timestamp}`;
}
