import { basename } from 'node:path';
import type { SourceReads } from '../storage/source/source.js';
import type { StorageLayout } from '../storage/source/storage-dir.js';
import { completeSwapContent } from '../format/compaction-swap.js';
import { pendingCompaction } from '../storage/log-reader.js';
import { analyzeJavaLog, type JavaLogAnalysis } from './java-log-analysis.js';
import type { Problem } from './problem.js';
import type { Findings } from './startup-findings.js';

/**
 * Reading every channel's log for the start analysis (java-startup.ts), kept apart because a log
 * may have to be read from a compaction swap file first, as EclipseStore 4.2 restores it.
 */

/**
 * Every channel's log (undefined without one), read as Java reads it; a log that EclipseStore 4.2
 * restores from a complete compaction swap file is read from there. What the swap files mean is
 * told once all logs are read.
 */
export async function readLogs(layout: StorageLayout, reads: SourceReads, findings: Findings): Promise<(JavaLogAnalysis | undefined)[]> {
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

/** Reads of `logPath` answered from `content` (a compaction swap file's), everything else as `reads`. */
function swapReads(reads: SourceReads, logPath: string, content: Uint8Array): SourceReads {
  const bytes = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  return {
    read: async (path, position, length, committed) => (path === logPath ? bytes.subarray(position, position + length) : reads.read(path, position, length, committed)),
    chunks: (path, from, to) => (path === logPath ? (async function* () { yield bytes.subarray(from, to); })() : reads.chunks(path, from, to)),
    readWhole: async (path, limit) => (path === logPath ? bytes : reads.readWhole(path, limit)),
  };
}
