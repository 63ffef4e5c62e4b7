import { describe, expect, it } from 'vitest';
import {
  CHUNK_CRC32C_LENGTH,
  CHUNK_SHA256_CHAINED_LENGTH,
  FILE_HEADER_LENGTH,
  isMetaRecord,
  KIND_CHUNK_CRC32C,
  KIND_CHUNK_SHA256_CHAINED,
  KIND_FILE_HEADER,
  META_ENVELOPE_SIZE,
  META_MARKER,
  metaRecordProblem,
} from '../../../src/format/meta-record.js';

/**
 * EclipseStore 4.2's meta records (issue 48: their framing checks had no test of their own). What
 * it guards: a gap is told from a meta record by its marker and size; a known kind of the wrong
 * size, or a file header anywhere but at a file's start, is a problem naming sizes and offset;
 * an unknown kind is skipped without a problem.
 */

/** A negative-length entry: length (negated), marker, kind, then zeros up to `size` bytes. */
function entry(size: number, marker: number, kind: number, at = 0): DataView {
  const bytes = new Uint8Array(at + Math.max(size, META_ENVELOPE_SIZE));
  const view = new DataView(bytes.buffer);
  view.setBigInt64(at, BigInt(-size), true);
  view.setUint16(at + 8, marker, true);
  view.setUint16(at + 10, kind, true);
  return view;
}

describe('isMetaRecord', () => {
  it('is a meta record with the marker and at least the envelope, a gap otherwise', () => {
    expect(isMetaRecord(entry(20, META_MARKER, KIND_CHUNK_CRC32C), 0, 20)).toBe(true);
    expect(isMetaRecord(entry(12, META_MARKER, 0x1234), 0, 12)).toBe(true);
    expect(isMetaRecord(entry(11, META_MARKER, 0), 0, 11)).toBe(false);
    expect(isMetaRecord(entry(20, META_MARKER ^ 1, KIND_CHUNK_CRC32C), 0, 20)).toBe(false);
    expect(isMetaRecord(entry(20, META_MARKER, KIND_CHUNK_CRC32C, 30), 30, 20)).toBe(true);
    expect(isMetaRecord(entry(20, 0, KIND_CHUNK_CRC32C, 30), 30, 20)).toBe(false);
  });
});

describe('metaRecordProblem', () => {
  it('accepts each known kind at its size, a file header only at offset 0', () => {
    expect(metaRecordProblem(entry(FILE_HEADER_LENGTH, META_MARKER, KIND_FILE_HEADER), 0, FILE_HEADER_LENGTH, 0)).toBeUndefined();
    expect(metaRecordProblem(entry(CHUNK_CRC32C_LENGTH, META_MARKER, KIND_CHUNK_CRC32C), 0, CHUNK_CRC32C_LENGTH, 500)).toBeUndefined();
    expect(metaRecordProblem(entry(CHUNK_SHA256_CHAINED_LENGTH, META_MARKER, KIND_CHUNK_SHA256_CHAINED), 0, CHUNK_SHA256_CHAINED_LENGTH, 500)).toBeUndefined();
  });

  it('names the kind, its size and the size expected when a known kind has another size', () => {
    expect(metaRecordProblem(entry(47, META_MARKER, KIND_FILE_HEADER), 0, 47, 0)).toBe('file header meta record of 47 bytes, expected 46');
    expect(metaRecordProblem(entry(48, META_MARKER, KIND_CHUNK_CRC32C), 0, 48, 96)).toBe('chunk checksum meta record of 48 bytes, expected 20');
    expect(metaRecordProblem(entry(20, META_MARKER, KIND_CHUNK_SHA256_CHAINED), 0, 20, 96)).toBe('chunk checksum meta record of 20 bytes, expected 48');
  });

  it('refuses a file header that is not the first entry of its file', () => {
    expect(metaRecordProblem(entry(46, META_MARKER, KIND_FILE_HEADER, 8), 8, 46, 1024)).toBe('file header meta record at offset 1024, not at the start of the file');
  });

  it('skips a kind it does not know, of any size and anywhere', () => {
    expect(metaRecordProblem(entry(99, META_MARKER, 0x7777), 0, 99, 0)).toBeUndefined();
    expect(metaRecordProblem(entry(12, META_MARKER, 0x7777), 0, 12, 4096)).toBeUndefined();
  });
});
