import { ObjectIndex, type IndexTable } from './object-index.js';
import { scanRecordChunks, type ScanProblem } from './record-scan.js';
import type { SourceReads } from './source.js';

/**
 * Builds one channel's object index from its data files in one go: the first load of a storage.
 * Independent of any Storage state (it returns the finished table and per-file figures).
 */

export interface ChannelIndexJob {
  /** Where the files are read from. */
  readonly reads: SourceReads;
  readonly files: readonly { readonly path: string; readonly from: number; readonly to: number }[];
  readonly idShift: number;
  /** Type id halves of the roots entity type, whose object ids are collected. */
  readonly rootsType: { readonly low: number; readonly high: number };
}

export interface ChannelIndexResult {
  readonly table: IndexTable;
  /** Per file of the job: live bytes, records and why the walk stopped early (if it did). */
  readonly live: number[];
  readonly records: number[];
  /** Per file of the job: bytes of EclipseStore 4.2 meta records. */
  readonly meta: number[];
  readonly problems: (ScanProblem | undefined)[];
  /** Object ids (as decimal strings) of records of the roots type. */
  readonly rootsCandidates: string[];
}

/** How much of the first file is walked to estimate how many records the channel holds. */
const DENSITY_SAMPLE_BYTES = 1024 * 1024;

export async function indexChannel(job: ChannelIndexJob): Promise<ChannelIndexResult> {
  const objects = new ObjectIndex(job.idShift);
  const live = job.files.map(() => 0);
  const records = job.files.map(() => 0);
  const meta = job.files.map(() => 0);
  const problems: (ScanProblem | undefined)[] = job.files.map(() => undefined);
  const roots = new Set<string>();
  const { low: rootsLow, high: rootsHigh } = job.rootsType;

  // Size the index once, from the record density of the start of the first file, instead of
  // growing it table by table (every growth rehashes everything).
  const totalBytes = job.files.reduce((n, f) => n + (f.to - f.from), 0);
  const first = job.files.find((f) => f.to > f.from);
  if (first !== undefined) {
    const sample = Math.min(first.to - first.from, DENSITY_SAMPLE_BYTES);
    const { records: sampled } = await scanRecordChunks(job.reads.chunks(first.path, first.from, first.from + sample), first.from, first.from + sample, () => undefined);
    objects.reserve(Math.ceil(((sampled + 1) / sample) * totalBytes * 1.02));
  }

  for (let slot = 0; slot < job.files.length; slot++) {
    const file = job.files[slot]!;
    const result = await scanRecordChunks(job.reads.chunks(file.path, file.from, file.to), file.from, file.to, (offset, length, tidLow, tidHigh, idLow, idHigh) => {
      const previous = objects.set(idLow, idHigh, slot, offset, length);
      if (previous >= 0) live[previous] = (live[previous] as number) - objects.replacedLength;
      live[slot] = (live[slot] as number) + length;
      if (tidLow === rootsLow && tidHigh === rootsHigh) roots.add(String((BigInt(idHigh) << 32n) | BigInt(idLow >>> 0)));
    });
    records[slot] = result.records;
    meta[slot] = result.metaBytes;
    problems[slot] = result.problem;
  }
  objects.compact();
  return { table: objects.export(), live, records, meta, problems, rootsCandidates: [...roots] };
}
