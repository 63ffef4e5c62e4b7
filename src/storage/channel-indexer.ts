import { FileReadAhead } from './file-read-ahead.js';
import { ObjectIndex } from './object-index.js';
import { ChannelRecords } from './channel-records.js';
import { scanRecordChunks, type RecordVisitor, type ScanProblem } from './record-scan.js';
import type { SourceReads } from './source.js';

/**
 * Builds one channel's object index from its data files in one go: the first load of a storage.
 * Independent of any Storage state (it returns the finished table and per-file figures).
 */

export interface ChannelIndexJob {
  /** Where the files are read from. */
  readonly reads: Pick<SourceReads, 'chunks'>;
  /**
   * Whether the next file's first read is started while one is walked (default): for reads that
   * wait for the disk without holding up this thread, not for synchronous ones.
   */
  readonly readAhead?: boolean;
  readonly files: readonly { readonly path: string; readonly from: number; readonly to: number }[];
  readonly idShift: number;
  /** Type id halves of the roots entity type, whose object ids are collected. */
  readonly rootsType: { readonly low: number; readonly high: number };
}

export interface ChannelIndexResult {
  readonly objects: ObjectIndex;
  /** Per file of the job: live bytes, records and why the walk stopped early (if it did). */
  readonly live: number[];
  readonly records: number[];
  /** Per file of the job: bytes of EclipseStore 4.2 meta records. */
  readonly meta: number[];
  readonly problems: (ScanProblem | undefined)[];
  /** Object ids (as decimal strings) of records of the roots type. */
  readonly rootsCandidates: string[];
}

/** How much of the start of each sampled file is walked to estimate the channel's records. */
const DENSITY_SAMPLE_BYTES = 1024 * 1024;
/** How many files (spread over the channel) are sampled. */
const SAMPLED_FILES = 4;

export async function indexChannel(job: ChannelIndexJob): Promise<ChannelIndexResult> {
  const objects = new ObjectIndex(job.idShift);
  const records = job.files.map(() => 0);
  const meta = job.files.map(() => 0);
  const problems: (ScanProblem | undefined)[] = job.files.map(() => undefined);
  const sink = new ChannelRecords(objects, job.files.map(() => 0), job.rootsType.low, job.rootsType.high);
  const onRecord: RecordVisitor = (offset, length, tidLow, tidHigh, idLow, idHigh) => sink.record(offset, length, tidLow, tidHigh, idLow, idHigh);

  await reserve(job, objects);

  // The next file is being read while one is walked (file-read-ahead.ts).
  const ahead = job.readAhead === false ? undefined : new FileReadAhead(job.reads, job.files);
  try {
    for (let slot = 0; slot < job.files.length; slot++) {
      const file = job.files[slot]!;
      const chunks = ahead?.chunks(slot) ?? job.reads.chunks(file.path, file.from, file.to);
      sink.slot = slot;
      const result = await scanRecordChunks(chunks, file.from, file.to, onRecord, sink);
      records[slot] = result.records;
      meta[slot] = result.metaBytes;
      problems[slot] = result.problem;
    }
  } finally {
    await ahead?.close();
  }
  objects.compact();
  return { objects, live: sink.live, records, meta, problems, rootsCandidates: [...sink.roots] };
}

/**
 * Sizes the index once, instead of growing it table by table: the record density of the starts of
 * a few files spread over the channel (one file's start alone misjudged the 100M benchmark storage,
 * and the index then grew and shrank again: three tables' worth of page faults) times the channel's
 * bytes, in a dense run from the lowest id seen.
 */
async function reserve(job: ChannelIndexJob, objects: ObjectIndex): Promise<void> {
  const nonEmpty = job.files.filter((f) => f.to > f.from);
  if (nonEmpty.length === 0) return;
  const totalBytes = nonEmpty.reduce((n, f) => n + (f.to - f.from), 0);
  const picks = new Set<number>();
  for (let i = 0; i < SAMPLED_FILES; i++) picks.add(Math.floor((i * (nonEmpty.length - 1)) / Math.max(1, SAMPLED_FILES - 1)));
  let sampledRecords = 0;
  let sampledBytes = 0;
  let minLow = 0;
  let minHigh = 0;
  let seen = false;
  for (const pick of picks) {
    const file = nonEmpty[pick]!;
    const to = Math.min(file.to, file.from + DENSITY_SAMPLE_BYTES);
    const { records } = await scanRecordChunks(job.reads.chunks(file.path, file.from, to), file.from, to, (_offset, _length, _tl, _th, idLow, idHigh) => {
      if (!seen || idHigh < minHigh || (idHigh === minHigh && idLow >>> 0 < minLow >>> 0)) {
        minLow = idLow;
        minHigh = idHigh;
        seen = true;
      }
    });
    sampledRecords += records;
    sampledBytes += to - file.from;
  }
  if (seen) objects.reserveRun(Math.ceil(((sampledRecords + 1) / sampledBytes) * totalBytes * 1.02), minLow, minHigh);
}
