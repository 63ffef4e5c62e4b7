import { open } from 'node:fs/promises';
import { RECORD_HEADER_SIZE, recordStep } from '../format/entity-record.js';

/**
 * Streams one data file with large sequential reads and reports every entity record header up to
 * the file's valid length. Only headers are looked at; record bodies are skipped.
 */

/** Receives one record header; ids come as 32-bit halves so that no bigint is allocated per record. */
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
  /** Where and why the walk stopped early; records after that point are not indexed. */
  readonly problem: ScanProblem | undefined;
}

const CHUNK_SIZE = 4 * 1024 * 1024;

export async function scanRecords(
  path: string,
  startOffset: number,
  validLength: number,
  onRecord: RecordVisitor,
): Promise<ScanResult> {
  const handle = await open(path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_SIZE, Math.max(validLength - startOffset, RECORD_HEADER_SIZE)));
    let chunkStart = 0; // file offset of chunk[0]
    let chunkFill = 0;
    let pos = startOffset;
    let records = 0;
    const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const ensure = async (need: number): Promise<boolean> => {
      // Make [pos, pos + need) available in the chunk.
      if (pos >= chunkStart && pos + need <= chunkStart + chunkFill) return true;
      chunkStart = pos;
      const want = Math.min(chunk.length, validLength - pos);
      chunkFill = 0;
      while (chunkFill < want) {
        const { bytesRead } = await handle.read(chunk, chunkFill, want - chunkFill, chunkStart + chunkFill);
        if (bytesRead === 0) break;
        chunkFill += bytesRead;
      }
      return chunkFill >= need;
    };
    while (pos < validLength) {
      if (validLength - pos < 8 || !(await ensure(8))) {
        return { records, problem: { offset: pos, message: `${validLength - pos} trailing bytes are too short for a record length` } };
      }
      const step = recordStep(view, pos - chunkStart);
      if (step.kind === 'invalid') return { records, problem: { offset: pos, message: step.reason } };
      if (pos + step.length > validLength) {
        return {
          records,
          problem: { offset: pos, message: `${step.kind} of ${step.length} bytes runs past the valid length ${validLength}` },
        };
      }
      if (step.kind === 'record') {
        if (!(await ensure(RECORD_HEADER_SIZE))) {
          return { records, problem: { offset: pos, message: 'file ends inside a record header' } };
        }
        const at = pos - chunkStart;
        onRecord(
          pos,
          step.length,
          view.getUint32(at + 8, true),
          view.getUint32(at + 12, true),
          view.getUint32(at + 16, true),
          view.getUint32(at + 20, true),
        );
        records++;
      }
      pos += step.length;
    }
    return { records, problem: undefined };
  } finally {
    await handle.close();
  }
}
