import { createHash } from 'node:crypto';
import { CHUNK_KINDS, recordLengthOf, type ChunkAlgorithm } from '../format/chunk-checksums.js';
import { crc32c } from '../format/crc32c.js';
import {
  FILE_HEADER_LENGTH,
  KIND_FILE_HEADER,
  META_MARKER,
  OFFSET_CHUNK_CHECKSUM,
  OFFSET_CHUNK_START,
  OFFSET_FILE_HEADER_CHAIN_ROOT,
  OFFSET_FILE_HEADER_CHECKSUM_KIND,
  OFFSET_META_KIND,
  OFFSET_META_MARKER,
} from '../format/meta-record.js';

/**
 * The meta records EclipseStore 4.2 writes with chunk checksums on (format/meta-record.ts): a
 * FileHeaderV1 opening every new data file, and after each store's bytes of a channel (a chunk) a
 * checksum record covering `[chunk start, record)`. With chained SHA-256 each record's hash is
 * SHA-256(previous hash ‖ chunk), the first previous hash being the file header's chain root, and
 * a channel's next file takes the last hash of the previous one as its chain root (zeros for the
 * first file; CRC32C files have a zero chain root).
 */

export const ZERO_CHAIN_ROOT = new Uint8Array(32);

function envelope(length: number, kind: number): Buffer {
  const bytes = Buffer.alloc(length);
  bytes.writeBigInt64LE(BigInt(-length), 0);
  bytes.writeUInt16LE(META_MARKER, OFFSET_META_MARKER);
  bytes.writeUInt16LE(kind, OFFSET_META_KIND);
  return bytes;
}

export function fileHeaderRecord(algorithm: ChunkAlgorithm, chainRoot: Uint8Array): Buffer {
  const bytes = envelope(FILE_HEADER_LENGTH, KIND_FILE_HEADER);
  bytes.writeUInt16LE(CHUNK_KINDS[algorithm], OFFSET_FILE_HEADER_CHECKSUM_KIND);
  bytes.set(algorithm === 'sha256' ? chainRoot : ZERO_CHAIN_ROOT, OFFSET_FILE_HEADER_CHAIN_ROOT);
  return bytes;
}

/** The checksum record for `chunk`, written at `chunkStart + chunk.length`, and the chain's new tip. */
export function chunkRecord(algorithm: ChunkAlgorithm, chunkStart: number, chunk: Uint8Array, previousTip: Uint8Array): { record: Buffer; tip: Uint8Array } {
  const record = envelope(recordLengthOf(algorithm), CHUNK_KINDS[algorithm]);
  record.writeInt32LE(chunkStart, OFFSET_CHUNK_START);
  if (algorithm === 'crc32c') {
    record.writeUInt32LE(crc32c(chunk), OFFSET_CHUNK_CHECKSUM);
    return { record, tip: previousTip };
  }
  const hash = createHash('sha256').update(previousTip).update(chunk).digest();
  record.set(hash, OFFSET_CHUNK_CHECKSUM);
  return { record, tip: hash };
}
