import { StorageError } from '../errors.js';
import type { ChannelState, FileState, ScanJob } from './channel-state.js';
import { scanRecordChunks } from './records/record-scan.js';
import type { SourceReader } from './source/source.js';
import type { OpenOptions } from './storage-types.js';
import type { ValidDataFile } from './valid-lengths.js';

/**
 * What a refresh reads: one job per file range that became valid since the last refresh (the
 * record headers of a later refresh are collected first and applied in one consistent step, see
 * storage.ts), and the files that disappeared.
 */

/** Offsets and lengths live in 32 bits in the index (Java's default file size limit is 8 MiB). */
const MAX_INDEXED_FILE_SIZE = 0xffffffff;

/** One scan job per file range that became valid since the last refresh, in file order. */
export function planScans(channels: readonly ChannelState[], validFiles: readonly (readonly ValidDataFile[])[]): ScanJob[] {
  const jobs: ScanJob[] = [];
  channels.forEach((channel, i) => {
    for (const file of validFiles[i] ?? []) {
      if (file.validLength > MAX_INDEXED_FILE_SIZE) {
        throw new StorageError('STORAGE_INCONSISTENT', `${file.path}: data files over 4 GiB are not supported`);
      }
      const existing = channel.fileByNumber(file.fileNumber);
      const from = existing?.totalLength ?? 0;
      if (existing !== undefined && file.validLength <= from) continue;
      if (existing?.problem !== undefined) continue; // the walk of this file already stopped at damage
      jobs.push({
        channel,
        target: existing ?? file,
        from,
        to: file.validLength,
        records: new Uint32Array(0),
        count: 0,
        metaBytes: 0,
        problem: undefined,
      });
    }
  });
  return jobs;
}

/** Files the channels know that are no longer among the valid files (deleted by housekeeping). */
export function removedFiles(channels: readonly ChannelState[], validFiles: readonly (readonly ValidDataFile[])[]): FileState[] {
  const removed: FileState[] = [];
  channels.forEach((channel, i) => {
    const present = new Set((validFiles[i] ?? []).map((f) => f.fileNumber));
    for (const file of channel.slots) if (!file.removed && !present.has(file.fileNumber)) removed.push(file);
  });
  return removed;
}

/** Reads the record headers of every job into its buffer (applied later, in one consistent step). */
export async function scanJobs(reader: SourceReader, jobs: ScanJob[], options: OpenOptions, entityCount: () => number): Promise<void> {
  const bytesTotal = jobs.reduce((n, j) => n + (j.to - j.from), 0);
  let bytesDone = 0;
  let filesDone = 0;
  for (const job of jobs) {
    let records = new Uint32Array(1024 * 6);
    let count = 0;
    const chunks = reader.chunks(job.target.path, job.from, job.to);
    const result = await scanRecordChunks(chunks, job.from, job.to, (offset, length, tidLow, tidHigh, idLow, idHigh) => {
      if ((count + 1) * 6 > records.length) {
        const bigger = new Uint32Array(records.length * 2);
        bigger.set(records);
        records = bigger;
      }
      const b = count * 6;
      records[b] = offset;
      records[b + 1] = length;
      records[b + 2] = tidLow;
      records[b + 3] = tidHigh;
      records[b + 4] = idLow;
      records[b + 5] = idHigh;
      count++;
    });
    job.records = records;
    job.count = count;
    job.metaBytes = result.metaBytes;
    job.problem = result.problem;
    bytesDone += job.to - job.from;
    filesDone++;
    options.onProgress?.({ filesDone, filesTotal: jobs.length, bytesDone, bytesTotal, entities: entityCount() });
  }
}

/** The state of the job's file: the existing one, or a new slot of its channel. */
export function fileStateFor(job: ScanJob): FileState {
  if ('slot' in job.target) return job.target;
  const file = job.target;
  const state: FileState = {
    slot: job.channel.slots.length,
    channel: job.channel.index,
    fileNumber: file.fileNumber,
    name: file.name,
    path: file.path,
    totalLength: 0,
    liveLength: 0,
    metaLength: 0,
    problem: undefined,
    removed: false,
  };
  job.channel.slots.push(state);
  (job as { target: FileState | ValidDataFile }).target = state;
  return state;
}
