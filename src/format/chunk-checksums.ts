import { createHash, type Hash } from 'node:crypto';
import { crc32c } from './crc32c.js';
import {
  CHUNK_CRC32C_LENGTH,
  CHUNK_SHA256_CHAINED_LENGTH,
  FILE_HEADER_LENGTH,
  KIND_CHUNK_CRC32C,
  KIND_CHUNK_SHA256_CHAINED,
  KIND_FILE_HEADER,
  META_MARKER,
  OFFSET_CHUNK_CHECKSUM,
  OFFSET_CHUNK_START,
  OFFSET_FILE_HEADER_CHAIN_ROOT,
  OFFSET_FILE_HEADER_CHECKSUM_KIND,
  OFFSET_META_KIND,
  OFFSET_META_MARKER,
} from './meta-record.js';

/**
 * Verifying EclipseStore 4.2's chunk checksums in one data file's committed bytes, walked the way
 * 4.2 walks a file when it loads it (`StorageChunkChecksumCalculator.verifyDataFile`): entities
 * are skipped by their length; a FileHeaderV1 opens the file (its chain root is the chained
 * SHA-256's first "previous hash"); a chunk-checksum record of a kind the configured algorithm
 * knows covers `[chunk start, record)`, where the chunk start is reconstructed by the walk (right
 * after the previous meta record) and must equal the start the record names; plain gaps do not
 * end a chunk; a record of a kind the configuration does not know is skipped and ends the chunk.
 * Chaining folds in the *stored* previous hash, so one damaged chunk fails alone. Bytes after the
 * last record of a file with a header are uncovered data.
 */

export type ChunkAlgorithm = 'crc32c' | 'sha256';

export const CHUNK_KINDS: Readonly<Record<ChunkAlgorithm, number>> = { crc32c: KIND_CHUNK_CRC32C, sha256: KIND_CHUNK_SHA256_CHAINED };

export function algorithmOfKind(kind: number): ChunkAlgorithm | undefined {
  return kind === KIND_CHUNK_CRC32C ? 'crc32c' : kind === KIND_CHUNK_SHA256_CHAINED ? 'sha256' : undefined;
}

export function recordLengthOf(algorithm: ChunkAlgorithm): number {
  return algorithm === 'crc32c' ? CHUNK_CRC32C_LENGTH : CHUNK_SHA256_CHAINED_LENGTH;
}

export type ChunkAnomalyKind = 'checksum-mismatch' | 'boundary-mismatch' | 'uncovered-data' | 'unknown-kind';

export interface ChunkAnomaly {
  readonly kind: ChunkAnomalyKind;
  /** Where the damaged chunk starts, as the walk reconstructed it (4.2's "position"). */
  readonly chunkStart: number;
  /** Where the chunk ends: the checksum record's offset, or the end of the file for uncovered data. */
  readonly chunkEnd: number;
  /** The meta record's offset (checksum-mismatch, boundary-mismatch, unknown-kind). */
  readonly recordOffset?: number;
  readonly metaKind?: number;
  /** checksum-mismatch: the stored and the computed checksum, in 4.2's hex. */
  readonly expected?: string;
  readonly actual?: string;
  /** boundary-mismatch: the chunk start the record names. */
  readonly storedStart?: number;
  /** The entity records that lie in the chunk (none for unknown-kind, whose chunk is merely unverified). */
  readonly records: readonly ChunkRecord[];
}

/** An entity record inside a chunk: where, which object, which type. */
export interface ChunkRecord {
  readonly offset: number;
  readonly length: number;
  readonly objectId: bigint;
  readonly typeId: bigint;
}

export interface FileChunkWalk {
  /** The checksum kind the file header names, or undefined when the file has no header. */
  readonly headerKind: number | undefined;
  /** Chunk-checksum records verified (matching or not). */
  readonly chunks: number;
  /** The last stored SHA-256 of the file (the next file's chain root when 4.2 writes on). */
  readonly lastTip: Uint8Array | undefined;
  readonly anomalies: readonly ChunkAnomaly[];
  /** A zero length entry stopped the walk here (4.2: "Zero length data item."). */
  readonly zeroLengthAt?: number;
}

const TWO_32 = 4294967296;

/** Upper-case hex of bytes in order (Java's `VarString.addHexDec(byte[])`). */
export function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex').toUpperCase();
}

/**
 * Walks `bytes` (a data file from offset 0 up to its committed length) verifying every chunk with
 * the algorithms in `known` (4.2's configured provider: the primary algorithm, plus additional
 * ones). Allocates per chunk, not per entity.
 */
export function verifyFileChunks(bytes: Uint8Array, known: ReadonlySet<ChunkAlgorithm>): FileChunkWalk {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.length;
  const anomalies: ChunkAnomaly[] = [];
  let headerKind: number | undefined;
  let tip: Uint8Array | undefined;
  let chunkStart = 0;
  let chunks = 0;
  let p = 0;
  while (p < end && end - p >= 8) {
    const low = view.getUint32(p, true);
    const high = view.getInt32(p + 4, true);
    const length = high * TWO_32 + low;
    if (length > 0) {
      p += length;
      continue;
    }
    if (length === 0) return { headerKind, chunks, lastTip: tip, anomalies, zeroLengthAt: p };
    if (p + 12 <= end && view.getUint16(p + OFFSET_META_MARKER, true) === META_MARKER) {
      const metaKind = view.getUint16(p + OFFSET_META_KIND, true);
      if (metaKind === KIND_FILE_HEADER) {
        if (p + FILE_HEADER_LENGTH > end) anomalies.push({ kind: 'unknown-kind', chunkStart, chunkEnd: p, recordOffset: p, metaKind, records: [] });
        else if (headerKind !== undefined) {
          anomalies.push({ kind: 'unknown-kind', chunkStart, chunkEnd: p, recordOffset: p, metaKind, records: [] });
          chunkStart = p + FILE_HEADER_LENGTH;
        } else {
          headerKind = view.getUint16(p + OFFSET_FILE_HEADER_CHECKSUM_KIND, true);
          tip = new Uint8Array(bytes.subarray(p + OFFSET_FILE_HEADER_CHAIN_ROOT, p + OFFSET_FILE_HEADER_CHAIN_ROOT + 32));
          chunkStart = p + FILE_HEADER_LENGTH;
        }
      } else {
        const algorithm = algorithmOfKind(metaKind);
        const usable = algorithm !== undefined && known.has(algorithm) ? algorithm : undefined;
        const recordLength = usable === undefined ? 0 : recordLengthOf(usable);
        if (usable !== undefined && p + recordLength <= end) {
          tip = verifyChunk(bytes, view, p, chunkStart, usable, tip, anomalies);
          chunks++;
          chunkStart = p + recordLength;
        } else {
          anomalies.push({ kind: 'unknown-kind', chunkStart, chunkEnd: p, recordOffset: p, metaKind, records: [] });
          if (usable === undefined && headerKind !== undefined) chunkStart = p - length;
        }
      }
    }
    p -= length;
  }
  if (headerKind !== undefined && chunkStart < end) anomalies.push({ kind: 'uncovered-data', chunkStart, chunkEnd: end, records: [] });
  return { headerKind, chunks, lastTip: tip, anomalies: anomalies.map((a) => (a.kind === 'unknown-kind' ? a : { ...a, records: recordsIn(view, a.chunkStart, a.chunkEnd) })) };
}

function verifyChunk(
  bytes: Uint8Array,
  view: DataView,
  at: number,
  chunkStart: number,
  algorithm: ChunkAlgorithm,
  previous: Uint8Array | undefined,
  anomalies: ChunkAnomaly[],
): Uint8Array | undefined {
  const storedStart = view.getInt32(at + OFFSET_CHUNK_START, true);
  const metaKind = CHUNK_KINDS[algorithm];
  const stored = algorithm === 'crc32c' ? view.getUint32(at + OFFSET_CHUNK_CHECKSUM, true) : bytes.subarray(at + OFFSET_CHUNK_CHECKSUM, at + OFFSET_CHUNK_CHECKSUM + 32);
  if (storedStart !== chunkStart || at < chunkStart) {
    anomalies.push({ kind: 'boundary-mismatch', chunkStart, chunkEnd: at, recordOffset: at, metaKind, storedStart, records: [] });
    return typeof stored === 'number' ? previous : new Uint8Array(stored);
  }
  const chunk = bytes.subarray(chunkStart, at);
  if (typeof stored === 'number') {
    const actual = crc32c(chunk);
    if (actual !== stored) anomalies.push({ kind: 'checksum-mismatch', chunkStart, chunkEnd: at, recordOffset: at, metaKind, expected: hex32(stored), actual: hex32(actual), records: [] });
    return previous;
  }
  const hash: Hash = createHash('sha256');
  hash.update(previous ?? new Uint8Array(32));
  const actual = hash.update(chunk).digest();
  if (!actual.equals(stored)) anomalies.push({ kind: 'checksum-mismatch', chunkStart, chunkEnd: at, recordOffset: at, metaKind, expected: hexOf(stored), actual: hexOf(actual), records: [] });
  return new Uint8Array(stored);
}

/** The entity records walked from `from` while they start before `to` (the walk 4.2 makes, gaps skipped). */
export function recordsIn(view: DataView, from: number, to: number): ChunkRecord[] {
  const records: ChunkRecord[] = [];
  let p = from;
  while (p < to && view.byteLength - p >= 8) {
    const length = view.getInt32(p + 4, true) * TWO_32 + view.getUint32(p, true);
    if (length === 0) break;
    if (length >= 24 && p + 24 <= view.byteLength) {
      records.push({ offset: p, length, typeId: view.getBigInt64(p + 8, true), objectId: view.getBigInt64(p + 16, true) });
    }
    p += Math.abs(length);
  }
  return records;
}

function hex32(value: number): string {
  return value.toString(16).toUpperCase().padStart(8, '0');
}
