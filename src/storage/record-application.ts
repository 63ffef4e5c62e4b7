import { joinId } from './index/object-id-halves.js';
import { fileStateFor } from './scan-jobs.js';
import type { ChangeCollector, ChannelState, FileState, ScanJob, SplitId } from './channel-state.js';
import type { ScanProblem } from './records/record-scan.js';
import type { StorageChange, StorageChangeListener } from './storage-types.js';

/**
 * A later refresh's scanned records placed into the channels' indexes (and files that housekeeping
 * deleted taken out), inside the consistent step that applies the refresh, and what it changed told
 * to those who listen. The first load builds its indexes in one go instead (`initial-index.ts`).
 */

/** What applying records tells the storage. */
export interface RecordSink {
  /** Collects what the refresh changes while someone listens. */
  readonly changes: ChangeCollector | undefined;
  /** An object id whose record is of the roots type. */
  rootsCandidate(id: bigint): void;
  /** A file whose walk stopped at damage. */
  noteScanProblem(file: FileState, problem: ScanProblem | undefined): void;
}

/** Each channel's index told how many records the jobs will set in it (`expectSets`). */
export function expectRecords(jobs: readonly ScanJob[]): void {
  const counts = new Map<ChannelState, number>();
  for (const job of jobs) if (job.count > 0) counts.set(job.channel, (counts.get(job.channel) ?? 0) + job.count);
  for (const [channel, count] of counts) channel.objects.expectSets(count);
}

/** Places one scan job's records into its channel's index (a job taken over while scanning is passed over). */
export function applyJob(job: ScanJob, rootsTypeId: SplitId, sink: RecordSink): void {
  if (job.count < 0) return; // indexed while scanning
  const fileState = fileStateFor(job);
  const records = job.records;
  for (let i = 0; i < job.count; i++) {
    const b = i * 6;
    indexRecord(
      job.channel,
      fileState,
      records[b] as number,
      records[b + 1] as number,
      records[b + 2] as number,
      records[b + 3] as number,
      records[b + 4] as number,
      records[b + 5] as number,
      rootsTypeId,
      sink,
    );
  }
  fileState.totalLength = job.to;
  fileState.metaLength += job.metaBytes;
  sink.noteScanProblem(fileState, job.problem);
  job.count = -1;
}

function indexRecord(
  channel: ChannelState,
  file: FileState,
  offset: number,
  length: number,
  tidLow: number,
  tidHigh: number,
  idLow: number,
  idHigh: number,
  rootsType: SplitId,
  sink: RecordSink,
): void {
  const previous = channel.objects.set(idLow, idHigh, file.slot, offset, length);
  if (previous >= 0) {
    const old = channel.slots[previous];
    if (old !== undefined) old.liveLength -= channel.objects.replacedLength;
  }
  sink.changes?.stored(idLow, idHigh, channel.index, file.slot, offset, previous, channel.objects.replacedOffset);
  file.liveLength += length;
  if (tidLow === rootsType.low && tidHigh === rootsType.high) sink.rootsCandidate(joinId(idLow, idHigh));
}

/**
 * Marks a file deleted by housekeeping; objects whose latest record was in it are gone (they were
 * not copied elsewhere first). Returns how many were lost, undefined when the file held no latest
 * record by its live length (nothing looked up).
 */
export function removeFile(channel: ChannelState, file: FileState, changes: ChangeCollector | undefined): number | undefined {
  file.removed = true;
  if (file.liveLength <= 0) return undefined;
  return channel.objects.removeWhere(
    (slot) => slot === file.slot,
    changes === undefined ? undefined : (low, high) => changes.lost(low, high),
  );
}

/** Tells every listener what a refresh changed; a listener that fails is warned about, the others still hear it. */
export async function tellListeners(
  listeners: readonly StorageChangeListener[],
  rebuilt: boolean,
  dictionaryChanged: boolean,
  collected: ChangeCollector | undefined,
  warn: (message: string) => void,
): Promise<void> {
  if (listeners.length === 0) return;
  const change: StorageChange = {
    rebuilt,
    dictionaryChanged,
    stored: { count: collected?.count ?? 0, words: collected?.records() ?? new Int32Array(0) },
    lost: collected?.lostIds() ?? new Int32Array(0),
  };
  for (const listener of [...listeners]) {
    try {
      await listener(change);
    } catch (error) {
      warn(`a listener failed to take over a change: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
