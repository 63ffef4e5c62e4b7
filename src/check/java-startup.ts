import type { LogAggregate, LoggedFile } from '../format/transaction-log.js';
import { DirectorySource } from '../storage/source/directory-source.js';
import type { SourceReads } from '../storage/source/source.js';
import type { StorageLayout } from '../storage/source/storage-dir.js';
import { resolveValidLengths, type ValidStorage } from '../storage/valid-lengths.js';
import { channelFindings } from './channel-file-findings.js';
import type { JavaLogAggregate, JavaLogAnalysis } from './java-log-analysis.js';
import { STORAGE_EXCEPTION, type Problem } from './problem.js';
import { Findings, layoutFindings, logFailures, mixedLogs } from './startup-findings.js';
import { readLogs } from './startup-logs.js';

/**
 * What MicroStream 4.1 decides about a directory's files before it reads a single record
 * (`StorageChannelTaskInitialize`, `StorageFileManager.validateStorageDataFilesLength`,
 * `determineLastFileLength`, `ensureTransactionsFile`): the logs, the files they name, their
 * lengths, and the store every channel has reached. Every finding becomes a problem with Java's
 * message; nothing stops at the first one.
 *
 * The findings themselves live beside: startup-logs.ts reads the logs, startup-findings.ts holds
 * the directory-wide ones, channel-file-findings.ts each channel's files against its log.
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

/** Exported from here as before the findings moved out, so importers need not know the split. */
export { timestampText } from './channel-file-findings.js';
