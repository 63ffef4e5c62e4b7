import { int32At } from '../../format/int32-at.js';
import { RECORD_HEADER_SIZE } from '../../format/entity-record.js';
import type { SourceReads } from '../source/source.js';

/**
 * Streams the complete records (header and content) of a data file range in file order, from the
 * source's sequential chunks: for walks over a whole storage that need the record bytes (checking,
 * copying), at the cost of reading each byte once. Gaps are skipped. The range must be one the
 * record scan walked without a problem (`StorageFile.problem` ends it): a malformed header here is
 * an error.
 *
 * The bytes handed to `visit` are valid only during the call.
 */

const TWO_32 = 4294967296;

/**
 * One record: `bytes[at, at + length)` holds it (header included); `offset` is its file offset.
 * The bytes are only valid during the call.
 */
export type RecordBytesVisitor = (bytes: Buffer, at: number, offset: number, length: number) => void | Promise<void>;

/**
 * Walks the records of `bytes` from `at` (file offset `offset`) on, up to `limit`, in a loop of its
 * own (no call per record), as far as it can handle them without waiting: it takes only whole
 * records (no gap) that end by `limit`, and returns where it stopped, a record's start. The record
 * there goes to the visitor, then the run is asked again.
 */
export type RecordRunVisitor = (bytes: Buffer, at: number, offset: number, limit: number) => number;

/**
 * `afterChunk`: called when the records of a chunk have been visited, before its bytes are given up
 * (a visitor that keeps positions in `bytes` between calls, to copy runs of records at once, uses
 * them up there). `run`: takes the common records of a chunk before `visit` is called for the
 * rest (a diff's walk, where a call per record cost more than the work on most records).
 */
export async function streamRecords(
  reads: Pick<SourceReads, 'chunks'>,
  path: string,
  from: number,
  to: number,
  visit: RecordBytesVisitor,
  afterChunk?: (() => void) | undefined,
  run?: RecordRunVisitor,
): Promise<void> {
  let pos = from; // file offset of the next record (or gap)
  /** A record that continues in the next chunks: its bytes so far. */
  let pending: Buffer | undefined;
  let pendingFill = 0;
  /** Fewer than 8 bytes of a header left at a chunk's end. */
  let carry: Buffer | undefined;
  let chunkStart = from;
  for await (const piece of reads.chunks(path, from, to)) {
    let chunk = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    let base = chunkStart; // file offset of chunk[0]
    chunkStart += piece.byteLength;
    if (carry !== undefined) {
      chunk = Buffer.concat([carry, chunk]);
      base -= carry.length;
      carry = undefined;
    }
    let at = 0;
    if (pending !== undefined) {
      const take = Math.min(pending.length - pendingFill, chunk.length);
      chunk.copy(pending, pendingFill, 0, take);
      pendingFill += take;
      at = take;
      if (pendingFill < pending.length) {
        afterChunk?.();
        continue;
      }
      const record = pending;
      pending = undefined;
      const done = visit(record, 0, pos, record.length);
      if (done !== undefined) await done;
      pos += record.length;
    }
    // Skip what a gap or a completed record covers of this chunk.
    at = pos - base;
    while (at < chunk.length) {
      if (run !== undefined) {
        const stop = run(chunk, at, pos, chunk.length);
        pos += stop - at;
        at = stop;
        if (at >= chunk.length) break;
      }
      if (chunk.length - at < 8) {
        carry = Buffer.from(chunk.subarray(at));
        break;
      }
      const length = int32At(chunk, at + 4) * TWO_32 + (int32At(chunk, at) >>> 0);
      if (length < 0) {
        pos -= length; // a gap
        at = pos - base;
        continue;
      }
      if (length < RECORD_HEADER_SIZE || pos + length > to) throw new Error(`${path}: malformed record of ${length} bytes at ${pos}`);
      if (at + length <= chunk.length) {
        const done = visit(chunk, at, pos, length);
        if (done !== undefined) await done; // no microtask per record for synchronous visitors
        pos += length;
        at += length;
        continue;
      }
      pending = Buffer.allocUnsafe(length);
      pendingFill = chunk.copy(pending, 0, at);
      break;
    }
    afterChunk?.();
  }
  if (pending !== undefined || (carry !== undefined && pos < to)) throw new Error(`${path}: the file ends inside the record at ${pos}`);
}
