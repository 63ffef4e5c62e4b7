import { join } from 'node:path';
import type { SourceFile } from '../storage/source/source.js';
import type { StorageLayout } from '../storage/source/storage-dir.js';
import type { JavaLogAnalysis } from './java-log-analysis.js';
import { STORAGE_EXCEPTION, type Problem } from './problem.js';

/**
 * The findings of the start analysis (java-startup.ts) that concern the directory as a whole: the
 * collector every finding goes into, and what the listing and the logs say before any channel's
 * files are compared with its log (channel-file-findings.ts).
 */

/** The problems found so far, in the order found, and whether one of them refuses the start. */
export class Findings {
  readonly problems: Problem[] = [];
  refused = false;

  refuse(problem: Omit<Problem, 'severity'>): void {
    this.refused = true;
    this.problems.push({ severity: 'refuses-start', ...problem });
  }
}

/** What listing the directory found: files kept as inconsistent rows, names Java refuses, other layout warnings. */
export function layoutFindings(layout: StorageLayout, findings: Findings): void {
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
export function logFailures(logs: readonly (JavaLogAnalysis | undefined)[], findings: Findings): void {
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
export function mixedLogs(layout: StorageLayout, findings: Findings): void {
  const missing = layout.channels.filter((c) => c.logPath === undefined).map((c) => c.index);
  findings.refuse({
    code: 'LOGS_MIXED',
    file: join(layout.channels[missing[0]!]!.directory, `transactions_${missing[0]}.sft`),
    java: { exception: STORAGE_EXCEPTION, message: 'Mixed (inconsistent) transactions file existances.' },
    meaning: `channel${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ha${missing.length > 1 ? 've' : 's'} no transaction log while the others have one`,
    rescue: 'reads those channels to the end of their files and writes new logs for all channels',
  });
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
