import { describe, expect, it } from 'vitest';
import { recordsIn, verifyFileChunks } from '../../../src/format/chunk-checksums.js';
import { bytes, record } from '../../helpers/corpora/bytes.js';
import { crc32c, crc32cChunkRecord, fileHeaderRecord } from '../../helpers/corpora/eclipsestore-files.js';

/**
 * The bounds of verifyFileChunks and recordsIn (issue 48, survivors of the mutation run of
 * chunk-checksums.ts): a file that is only its header, exactly 8 bytes left at the end, a negative
 * length too short to be a meta record, an empty chunk, the tip after a CRC-32C boundary mismatch,
 * a checksum printed with its leading zeros, a record of exactly 24 bytes at the end, and a record
 * length beyond 2^32 read little-endian in both halves.
 */

const CRC = 0x4667;
const ONLY_CRC = new Set(['crc32c'] as const);
function concat(...parts: Uint8Array[]): Uint8Array {
  const b = bytes();
  for (const p of parts) b.bytes(p);
  return b.build();
}
const A = record(1000100n, 1000000000000000001n, new Uint8Array([1, 2, 3, 4])); // 28 bytes
const EMPTY = record(1000102n, 1000000000000000009n, new Uint8Array(0)); // 24 bytes

describe('verifyFileChunks at its bounds', () => {
  it('a file of its header alone: verified, nothing uncovered', () => {
    expect(verifyFileChunks(fileHeaderRecord(), ONLY_CRC)).toStrictEqual({ headerKind: CRC, chunks: 0, lastTip: new Uint8Array(32), anomalies: [] });
  });

  it('exactly 8 bytes left are still read: a zero length there stops the walk', () => {
    const file = concat(fileHeaderRecord(), A, crc32cChunkRecord(46, A), new Uint8Array(8));
    expect(verifyFileChunks(file, ONLY_CRC)).toStrictEqual({ headerKind: CRC, chunks: 1, lastTip: new Uint8Array(32), anomalies: [], zeroLengthAt: 94 });
  });

  it('a negative length of fewer than 12 bytes is a plain gap even when the marker follows it', () => {
    const gap = bytes().int64(-10n).uint16(0x215e).build();
    const file = concat(fileHeaderRecord(), A, crc32cChunkRecord(46, A), gap);
    expect(verifyFileChunks(file, ONLY_CRC).anomalies).toStrictEqual([{ kind: 'uncovered-data', chunkStart: 94, chunkEnd: 104, records: [] }]);
  });

  it('an empty chunk (a checksum record right after another) verifies', () => {
    const file = concat(fileHeaderRecord(), A, crc32cChunkRecord(46, A), crc32cChunkRecord(94, new Uint8Array(0)));
    expect(verifyFileChunks(file, ONLY_CRC)).toStrictEqual({ headerKind: CRC, chunks: 2, lastTip: new Uint8Array(32), anomalies: [] });
  });

  it('a CRC-32C boundary mismatch leaves the tip as it was', () => {
    const file = concat(fileHeaderRecord(), A, crc32cChunkRecord(40, A));
    const walk = verifyFileChunks(file, ONLY_CRC);
    expect(walk.lastTip).toStrictEqual(new Uint8Array(32));
    expect(walk.anomalies.map((a) => a.kind)).toEqual(['boundary-mismatch']);
  });

  it("prints a checksum with its leading zeros, as 4.2's hex does", () => {
    const file = concat(fileHeaderRecord(), A, bytes().int64(-20n).uint16(0x215e).uint16(CRC).int32(46).int32(0x00000abc).build());
    const [anomaly] = verifyFileChunks(file, ONLY_CRC).anomalies;
    expect(anomaly!.expected).toBe('00000ABC');
    expect(anomaly!.actual).toBe(crc32c(A).toString(16).toUpperCase().padStart(8, '0'));
  });
});

describe('recordsIn at its bounds', () => {
  it('takes a record of exactly 24 bytes (no content), also as the last bytes of the file', () => {
    const data = concat(A, EMPTY);
    expect(recordsIn(new DataView(data.buffer), 0, data.length)).toStrictEqual([
      { offset: 0, length: 28, typeId: 1000100n, objectId: 1000000000000000001n },
      { offset: 28, length: 24, typeId: 1000102n, objectId: 1000000000000000009n },
    ]);
  });

  it('reads a record length beyond 2^32 from both little-endian halves', () => {
    const huge = bytes().int64(2n ** 32n + 30n).int64(1000100n).int64(5n).build();
    const data = concat(A, huge);
    expect(recordsIn(new DataView(data.buffer), 0, data.length)).toStrictEqual([
      { offset: 0, length: 28, typeId: 1000100n, objectId: 1000000000000000001n },
      { offset: 28, length: 2 ** 32 + 30, typeId: 1000100n, objectId: 5n },
    ]);
  });
});
