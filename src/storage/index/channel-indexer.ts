import { RECORD_HEADER_SIZE as HEADER } from '../../format/entity-record.js';
import { FileReadAhead } from '../source/file-read-ahead.js';
import { indexLoadFor } from './index-builder.js';
import type { ObjectIndex } from './object-index.js';
import { ChannelRecords, ChannelRecordsWithTypes } from './channel-records.js';
import { LatestTypes } from './latest-types.js';
import { scanRecordChunks, type RecordVisitor, type ScanProblem } from '../records/record-scan.js';
import type { SourceReads } from '../source/source.js';

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
  /** Run length from which records of objects stored again are applied in batches (index-builder.ts; tests lower it). */
  readonly batchFromRun?: number;
  /** Run length from which the channel is loaded blind (index-builder.ts `BLIND_FROM_RUN`; tests lower it). */
  readonly blindFromRun?: number;
  /** Whether the latest records are counted per type (`typeCounts`; latest-types.ts). */
  readonly countTypes?: boolean;
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
  /** With `countTypes`: the latest records per type, `[typeLow, typeHigh, count]` triples. */
  readonly typeCounts?: number[];
}

/** How much of the start of each sampled file is walked to estimate the channel's records. */
const DENSITY_SAMPLE_BYTES = 1024 * 1024;
/**
 * The sampled starts are copied here, one after the other, in every channel this thread indexes:
 * a copy into fresh buffers for each (as before) cost 16 MiB of page faults and copying at 10M
 * entities (8,000 of the open's 45,000 page faults).
 */
let sampleBuffer: Uint8Array | undefined;
/** How many files (spread over the channel) are sampled. */
const SAMPLED_FILES = 4;
const TWO_32 = 4294967296;

export async function indexChannel(job: ChannelIndexJob): Promise<ChannelIndexResult> {
  const run = await estimateRun(job);
  const builder = indexLoadFor(run?.entities ?? 0, job.idShift, job.files.length, {
    ...(job.batchFromRun === undefined ? {} : { behindFromRun: job.batchFromRun }),
    ...(job.blindFromRun === undefined ? {} : { blindFromRun: job.blindFromRun }),
  });
  if (run !== undefined) builder.reserveRun(run.entities, run.low, run.high);
  const types = job.countTypes === true ? new LatestTypes(job.idShift) : undefined;
  if (run !== undefined) types?.reserve(run.entities, run.low, run.high);
  const records = job.files.map(() => 0);
  const meta = job.files.map(() => 0);
  const problems: (ScanProblem | undefined)[] = job.files.map(() => undefined);
  const sink =
    types === undefined ? new ChannelRecords(builder, job.rootsType.low, job.rootsType.high) : new ChannelRecordsWithTypes(builder, job.rootsType.low, job.rootsType.high, types);
  const onRecord: RecordVisitor = (offset, length, tidLow, tidHigh, idLow, idHigh) => sink.record(offset, length, tidLow, tidHigh, idLow, idHigh);

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
  // Each file's live bytes: what its latest records take, counted once the index is complete.
  const live = job.files.map(() => 0);
  const objects = builder.finish(live);
  const figures = { objects, live, records, meta, problems, rootsCandidates: [...sink.roots] };
  return types === undefined ? figures : { ...figures, typeCounts: types.counts() };
}

/**
 * The channel's dense run, estimated so that the index is sized once instead of growing table by
 * table: the record density of the starts of a few files spread over the channel (one file's start
 * alone misjudged the 100M benchmark storage, and the index then grew and shrank again: three
 * tables' worth of page faults) times the channel's bytes, from the lowest id seen.
 */
async function estimateRun(job: ChannelIndexJob): Promise<{ entities: number; low: number; high: number } | undefined> {
  const nonEmpty = job.files.filter((f) => f.to > f.from);
  if (nonEmpty.length === 0) return undefined;
  const totalBytes = nonEmpty.reduce((n, f) => n + (f.to - f.from), 0);
  const picks = new Set<number>();
  for (let i = 0; i < SAMPLED_FILES; i++) picks.add(Math.floor((i * (nonEmpty.length - 1)) / Math.max(1, SAMPLED_FILES - 1)));
  const sample = new DensitySample();
  sampleBuffer ??= new Uint8Array(DENSITY_SAMPLE_BYTES);
  for (const pick of picks) {
    const file = nonEmpty[pick]!;
    let filled = 0;
    for await (const chunk of job.reads.chunks(file.path, file.from, Math.min(file.to, file.from + DENSITY_SAMPLE_BYTES))) {
      const part = chunk.subarray(0, DENSITY_SAMPLE_BYTES - filled);
      sampleBuffer.set(part, filled);
      filled += part.length;
    }
    sample.bytes += Math.min(sample.walk(sampleBuffer.subarray(0, filled)), filled);
  }
  if (sample.records === 0) return undefined;
  return { entities: Math.ceil(((sample.records + 1) / sample.bytes) * totalBytes * 1.02), low: sample.minLow, high: sample.minHigh };
}

/**
 * Counts the records at the start of a file and notes the lowest object id among them. A loop of
 * its own, not the record scanner's: an estimate needs no stitching or problem reports, and the
 * scanner's compiled code then serves one kind of walk only (V8 threw it away and compiled it again
 * when the sample's walk came first).
 */
class DensitySample {
  records = 0;
  /** Bytes walked over (records and gaps). */
  bytes = 0;
  minLow = 0;
  minHigh = 0;

  /**
   * Walks a file's start; returns where it stopped (past the end after a gap that runs on). The
   * caller adds up the bytes: code after the loop runs without type feedback the first time
   * (channel-records.ts says why that matters).
   */
  walk(bytes: Uint8Array): number {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = 0;
    while (at + HEADER <= bytes.byteLength) {
      const low = view.getUint32(at, true);
      const high = view.getInt32(at + 4, true);
      if (high < 0) {
        at += -(high * TWO_32 + low); // a gap (or an EclipseStore meta record)
        continue;
      }
      if (high !== 0 || low < HEADER) break; // not a record: the sample ends here
      const idLow = view.getInt32(at + 16, true);
      const idHigh = view.getInt32(at + 20, true);
      if (this.records === 0 || idHigh < this.minHigh || (idHigh === this.minHigh && idLow >>> 0 < this.minLow >>> 0)) {
        this.minLow = idLow;
        this.minHigh = idHigh;
      }
      this.records++;
      at += low;
    }
    return at;
  }
}
