import { open } from 'node:fs/promises';
import { RECORD_HEADER_SIZE as HEADER } from '../format/entity-record.js';
import { isMetaRecord, metaRecordProblem } from '../format/meta-record.js';

/**
 * Streams one data file with large sequential reads and reports every entity record header up to
 * the file's valid length (storage-format.md §5.3). Only headers are looked at; record bodies are
 * skipped. The walk over a chunk is a synchronous loop without allocations: this is the hot path
 * of opening a storage with tens of millions of records.
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

export interface ScanProblem {
  readonly offset: number;
  readonly message: string;
}

export interface ScanResult {
  readonly records: number;
  /** Bytes of EclipseStore 4.2 meta records (file header, chunk checksums) walked over. */
  readonly metaBytes: number;
  /** Where and why the walk stopped early; records after that point are not indexed. */
  readonly problem: ScanProblem | undefined;
}

const CHUNK = 8 * 1024 * 1024;
const TWO_32 = 4294967296;

/** Read buffer pairs (one is read while the other is walked), reused by scans that follow each other. */
const idleBuffers: [Buffer, Buffer][] = [];
const MAX_IDLE_PAIRS = 2;

function acquireBuffers(): [Buffer, Buffer] {
  return idleBuffers.pop() ?? [Buffer.allocUnsafeSlow(CHUNK), Buffer.allocUnsafeSlow(CHUNK)];
}

function releaseBuffers(pair: [Buffer, Buffer]): void {
  if (idleBuffers.length < MAX_IDLE_PAIRS) idleBuffers.push(pair);
}

/**
 * Walks the records of `[startOffset, validLength)`. Chunks are read ahead while the previous one
 * is walked, and consecutive chunks overlap by one header so that every header a chunk owns lies
 * completely inside it.
 */
export async function scanRecords(path: string, startOffset: number, validLength: number, onRecord: RecordVisitor): Promise<ScanResult> {
  const handle = await open(path, 'r');
  const readChunk = async (buffer: Buffer, from: number): Promise<number> => {
    const want = Math.min(buffer.length, validLength - from);
    let fill = 0;
    while (fill < want) {
      const { bytesRead } = await handle.read(buffer, fill, want - fill, from + fill);
      if (bytesRead === 0) break;
      fill += bytesRead;
    }
    return fill;
  };
  const buffers = acquireBuffers();
  let pending: Promise<number> = Promise.resolve(0);
  try {
    const views = buffers.map((b) => new DataView(b.buffer, b.byteOffset, b.byteLength));
    let records = 0;
    let metaBytes = 0;
    let pos = startOffset;
    let chunkStart = startOffset;
    let which = 0;
    if (startOffset < validLength) pending = readChunk(buffers[0], startOffset);
    while (pos < validLength) {
      const fill = await pending;
      const chunkEnd = chunkStart + fill;
      if (chunkEnd < validLength && fill < Math.min(CHUNK, validLength - chunkStart)) {
        return { records, metaBytes, problem: { offset: chunkEnd, message: `file ends at ${chunkEnd}, before its committed length ${validLength}` } };
      }
      const last = chunkEnd >= validLength;
      // Headers starting before `owned` are walked here; the next chunk starts one header earlier.
      const owned = last ? validLength : chunkEnd - HEADER;
      const nextStart = owned;
      if (!last) pending = readChunk(buffers[1 - which]!, nextStart);
      const view = views[which]!;
      while (pos < owned) {
        if (validLength - pos < 8) {
          return { records, metaBytes, problem: { offset: pos, message: `${validLength - pos} trailing bytes are too short for a record length` } };
        }
        const at = pos - chunkStart;
        const low = view.getUint32(at, true);
        const high = view.getInt32(at + 4, true);
        if (high === 0 && low >= HEADER) {
          if (pos + low > validLength) {
            return { records, metaBytes, problem: { offset: pos, message: `record of ${low} bytes runs past the valid length ${validLength}` } };
          }
          // Signed reads: small integers stay unboxed on their way through the callback.
          onRecord(pos, low, view.getInt32(at + 8, true), view.getInt32(at + 12, true), view.getInt32(at + 16, true), view.getInt32(at + 20, true));
          records++;
          pos += low;
        } else if (high < 0) {
          const gap = -(high * TWO_32 + low);
          if (gap < 8) return { records, metaBytes, problem: { offset: pos, message: `gap length ${gap} is shorter than its length field` } };
          if (pos + gap > validLength) {
            return { records, metaBytes, problem: { offset: pos, message: `gap of ${gap} bytes runs past the valid length ${validLength}` } };
          }
          // EclipseStore 4.2's file header and chunk checksums are negative-length entries too.
          if (isMetaRecord(view, at, gap)) {
            const problem = metaRecordProblem(view, at, gap, pos);
            if (problem !== undefined) return { records, metaBytes, problem: { offset: pos, message: problem } };
            metaBytes += gap;
          }
          pos += gap;
        } else if (high === 0 && low === 0) {
          return { records, metaBytes, problem: { offset: pos, message: 'zero length data item' } };
        } else if (high === 0) {
          return { records, metaBytes, problem: { offset: pos, message: `record length ${low} is shorter than its header` } };
        } else {
          return { records, metaBytes, problem: { offset: pos, message: `record length ${high * TWO_32 + low} is implausible` } };
        }
      }
      if (last) break;
      // A record body may span several chunks: skip reading what lies wholly before `pos`.
      if (pos >= nextStart + CHUNK) {
        await pending;
        chunkStart = pos;
        which = 0;
        pending = readChunk(buffers[0], pos);
      } else {
        chunkStart = nextStart;
        which = 1 - which;
      }
    }
    return { records, metaBytes, problem: undefined };
  } finally {
    // A read ahead may still be filling a buffer: let it land before closing and reusing.
    await pending.catch(() => undefined);
    await handle.close();
    releaseBuffers(buffers);
  }
}
