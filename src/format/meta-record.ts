/**
 * EclipseStore 4.2's meta records inside data files (`StorageMetaRecord`): entries with a
 * negative length, like the gaps older versions could leave, that carry a marker and a kind
 * instead of filler. With chunk checksums on, every new data file starts with a 46-byte file
 * header record, and each store's bytes of a channel (a chunk) are followed by a checksum record
 * naming the chunk's start. Readers skip them like gaps: they are never entities. Their bytes
 * count in a file's total length, not in its live (data) length.
 *
 * Envelope (little-endian, as Java writes it in native order): length (8 bytes, negated record
 * size), marker `0x215e` (2), kind (2), payload.
 */

/** Bytes of the envelope: negated length, marker, kind. */
export const META_ENVELOPE_SIZE = 12;
/** `SHA-256("EclipseStoreMetaRecord/V1")`, first two bytes: tells a meta record from a plain gap. */
export const META_MARKER = 0x215e;
export const OFFSET_META_MARKER = 8;
export const OFFSET_META_KIND = 10;

/** `FileHeaderV1`: the first entry of every data file written with chunk checksums on. */
export const KIND_FILE_HEADER = 0xe5a3;
/** envelope, the file's checksum kind (2), chain root (32). */
export const FILE_HEADER_LENGTH = 46;
export const OFFSET_FILE_HEADER_CHECKSUM_KIND = 12;
export const OFFSET_FILE_HEADER_CHAIN_ROOT = 14;

/** Chunk checksum records: envelope, chunk start (4, offset in the file), checksum. */
export const OFFSET_CHUNK_START = 12;
export const OFFSET_CHUNK_CHECKSUM = 16;
export const KIND_CHUNK_CRC32C = 0x4667;
export const CHUNK_CRC32C_LENGTH = 20;
export const KIND_CHUNK_SHA256_CHAINED = 0x56ba;
export const CHUNK_SHA256_CHAINED_LENGTH = 48;
/** The "none" algorithm: a file header names it, no chunk records follow. */
export const KIND_CHUNK_NONE = 0x0001;

/** Whether a negative-length entry of `length` bytes at `at` is a meta record (not a plain gap). */
export function isMetaRecord(view: DataView, at: number, length: number): boolean {
  return length >= META_ENVELOPE_SIZE && view.getUint16(at + OFFSET_META_MARKER, true) === META_MARKER;
}

/**
 * What is wrong with a meta record's framing, or undefined. Known kinds have fixed sizes; a file
 * header is only ever a file's first entry. Unknown kinds (a later version's) are skipped.
 */
export function metaRecordProblem(view: DataView, at: number, length: number, fileOffset: number): string | undefined {
  const kind = view.getUint16(at + OFFSET_META_KIND, true);
  const expected =
    kind === KIND_FILE_HEADER ? FILE_HEADER_LENGTH : kind === KIND_CHUNK_CRC32C ? CHUNK_CRC32C_LENGTH : kind === KIND_CHUNK_SHA256_CHAINED ? CHUNK_SHA256_CHAINED_LENGTH : undefined;
  const name = kind === KIND_FILE_HEADER ? 'file header' : 'chunk checksum';
  if (expected !== undefined && length !== expected) return `${name} meta record of ${length} bytes, expected ${expected}`;
  if (kind === KIND_FILE_HEADER && fileOffset !== 0) return `file header meta record at offset ${fileOffset}, not at the start of the file`;
  return undefined;
}
