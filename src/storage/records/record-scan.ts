import { RECORD_HEADER_SIZE as HEADER } from '../../format/entity-record.js';
import { isMetaRecord, metaRecordProblem } from '../../format/meta-record.js';
import { LOCAL_FILES } from '../source/directory-source.js';

/**
 * Walks a data file's bytes as they stream in and reports every entity record header up to the
 * file's valid length (storage-format.md §5.3). Only headers are looked at; record bodies are
 * skipped. The walk over a chunk is a synchronous loop without allocations: this is the hot path
 * of opening a storage with tens of millions of records. Chunks may have any size (8 MiB reads of
 * a file, rows of a table): a header cut by a chunk boundary is stitched from both sides.
 */

/**
 * Receives one record header; ids come as signed 32-bit halves so that no bigint (or heap number)
 * is allocated per record.
 */
export type RecordVisitor = (
  offset: number,
  length: number,
  typeIdLow: number,
  typeIdHigh: number,
  idLow: number,
  idHigh: number,
) => void;

/**
 * A fast path for a consumer that does little per record: walks the plain records of a chunk (a
 * positive length of at least a header, the header within the chunk, the record within the valid
 * length) from `at` on, in a loop of its own with the consumer's work inlined instead of a call
 * per record, and stops at anything else, which the scanner then handles as usual.
 */
export interface RecordRunWalker {
  /**
   * Walks from `at` (absolute offset `pos`) while the next header lies within `view[.., end)`;
   * returns where it stopped and leaves the number of records it walked in `walked`.
   */
  walkRun(view: DataView, at: number, end: number, pos: number, validLength: number): number;
  readonly walked: number;
}

export interface ScanProblem {
  readonly offset: number;
  readonly message: string;
  /**
   * The walk stopped because the valid bytes ended inside an item (a file cut short): with more
   * bytes the walk may go on, unlike damage inside the bytes it has.
   */
  readonly atEnd?: boolean;
  /**
   * The length a record declares whose header is whole but whose bytes run past the valid length
   * (a record cut off): where its object's latest version was meant to be.
   */
  readonly recordLength?: number;
}

export interface ScanResult {
  readonly records: number;
  /** Bytes of EclipseStore 4.2 meta records (file header, chunk checksums) walked over. */
  readonly metaBytes: number;
  /** Where and why the walk stopped early; records after that point are not indexed. */
  readonly problem: ScanProblem | undefined;
}

const TWO_32 = 4294967296;

/** Walks `[startOffset, validLength)` of a local file. */
export function scanRecords(path: string, startOffset: number, validLength: number, onRecord: RecordVisitor): Promise<ScanResult> {
  return scanRecordChunks(LOCAL_FILES.chunks(path, startOffset, validLength), startOffset, validLength, onRecord);
}

/**
 * Walks the records of `[startOffset, validLength)`, given as consecutive chunks starting at
 * `startOffset` (a chunk is not used after the next one is asked for). With `runs`, runs of plain
 * records go to its loop and only the rest (headers cut by a chunk boundary) to `onRecord`.
 */
export async function scanRecordChunks(
  chunks: AsyncIterable<Uint8Array>,
  startOffset: number,
  validLength: number,
  onRecord: RecordVisitor,
  runs?: RecordRunWalker,
): Promise<ScanResult> {
  let records = 0;
  let metaBytes = 0;
  /** Absolute offset of the next item (record or gap). */
  let pos = startOffset;
  /** Absolute offset of the current chunk's first byte. */
  let chunkStart = startOffset;
  // A header cut by a chunk boundary is gathered here.
  const stitch = new Uint8Array(HEADER);
  const stitchView = new DataView(stitch.buffer);
  let stitched = 0;

  for await (const chunk of chunks) {
    if (pos >= validLength) break;
    const length = Math.min(chunk.length, validLength - chunkStart);
    const chunkEnd = chunkStart + length;
    let at = pos - chunkStart;
    if (stitched > 0) {
      // The header at `pos` began in an earlier chunk.
      const need = Math.min(HEADER, validLength - pos);
      const take = Math.min(need - stitched, length);
      stitch.set(chunk.subarray(0, take), stitched);
      stitched += take;
      if (stitched < need) {
        chunkStart = chunkEnd;
        continue;
      }
      stitched = 0;
      const item = walkItem(stitchView, 0, pos, validLength, onRecord);
      if (item === 0) return { records, metaBytes, problem: itemProblem(stitchView, 0, pos, validLength) };
      if (item > 0) records++;
      else {
        const meta = metaLength(stitchView, 0, -item, pos);
        if (typeof meta === 'string') return { records, metaBytes, problem: { offset: pos, message: meta } };
        metaBytes += meta;
      }
      pos += item > 0 ? item : -item;
      at = pos - chunkStart;
    }
    if (at < length) {
      const view = new DataView(chunk.buffer, chunk.byteOffset, length);
      while (at < length) {
        if (runs !== undefined) {
          const stop = runs.walkRun(view, at, length, pos, validLength);
          records += runs.walked;
          pos += stop - at;
          at = stop;
          if (at >= length) break;
        }
        const remaining = validLength - pos;
        if (remaining < 8) {
          return { records, metaBytes, problem: { offset: pos, message: `${remaining} trailing bytes are too short for a record length`, atEnd: true } };
        }
        if (at + (remaining < HEADER ? remaining : HEADER) > length) {
          stitch.set(chunk.subarray(at, length), 0);
          stitched = length - at;
          break;
        }
        const item = walkItem(view, at, pos, validLength, onRecord);
        if (item === 0) return { records, metaBytes, problem: itemProblem(view, at, pos, validLength) };
        const advance = item > 0 ? item : -item;
        if (item > 0) records++;
        else {
          const meta = metaLength(view, at, advance, pos);
          if (typeof meta === 'string') return { records, metaBytes, problem: { offset: pos, message: meta } };
          metaBytes += meta;
        }
        pos += advance;
        at += advance;
      }
    }
    chunkStart = chunkEnd;
  }
  if (pos < validLength && chunkStart < validLength) {
    return { records, metaBytes, problem: { offset: chunkStart, message: `file ends at ${chunkStart}, before its committed length ${validLength}`, atEnd: true } };
  }
  return { records, metaBytes, problem: undefined };
}

/**
 * The item at `pos`, whose first `min(24, validLength - pos)` bytes are in `view` at `at`: a
 * record (reported, its length returned), a gap (its length negated), or 0 when it is malformed.
 */
function walkItem(view: DataView, at: number, pos: number, validLength: number, onRecord: RecordVisitor): number {
  const low = view.getUint32(at, true);
  const high = view.getInt32(at + 4, true);
  if (high === 0 && low >= HEADER) {
    if (pos + low > validLength) return 0;
    // Signed reads: small integers stay unboxed on their way through the callback.
    onRecord(pos, low, view.getInt32(at + 8, true), view.getInt32(at + 12, true), view.getInt32(at + 16, true), view.getInt32(at + 20, true));
    return low;
  }
  if (high < 0) {
    const gap = -(high * TWO_32 + low);
    return gap < 8 || pos + gap > validLength ? 0 : -gap;
  }
  return 0;
}

/**
 * A negative-length entry of `length` bytes at `pos` (its first 12 bytes, if it has that many, in
 * `view` at `at`): EclipseStore 4.2's file header and chunk checksums are such entries too. Their
 * length when they are meta records, 0 for plain gaps, what is wrong with a malformed one.
 */
function metaLength(view: DataView, at: number, length: number, pos: number): number | string {
  if (!isMetaRecord(view, at, length)) return 0;
  return metaRecordProblem(view, at, length, pos) ?? length;
}

/** Why `walkItem` refused the item at `pos`. */
function itemProblem(view: DataView, at: number, pos: number, validLength: number): ScanProblem {
  const low = view.getUint32(at, true);
  const high = view.getInt32(at + 4, true);
  if (high === 0 && low >= HEADER) {
    return { offset: pos, message: `record of ${low} bytes runs past the valid length ${validLength}`, atEnd: true, recordLength: low };
  }
  let message: string;
  let atEnd = false;
  if (high < 0) {
    const gap = -(high * TWO_32 + low);
    atEnd = gap >= 8;
    message = gap < 8 ? `gap length ${gap} is shorter than its length field` : `gap of ${gap} bytes runs past the valid length ${validLength}`;
  } else if (high === 0 && low === 0) message = 'zero length data item';
  else if (high === 0) message = `record length ${low} is shorter than its header`;
  else message = `record length ${high * TWO_32 + low} is implausible`;
  return atEnd ? { offset: pos, message, atEnd } : { offset: pos, message };
}
