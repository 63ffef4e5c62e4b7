import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { algorithmOfKind, hexOf, recordLengthOf, recordsIn, verifyFileChunks, type ChunkRecord } from '../../../src/format/chunk-checksums.js';
import { bytes, record } from '../../helpers/corpora/bytes.js';
import { crc32c, crc32cChunkRecord, fileHeaderRecord } from '../../helpers/corpora/eclipsestore-files.js';

/**
 * verifyFileChunks, EclipseStore 4.2's walk of one data file's chunk checksums, on files built here
 * byte by byte (issue 48: the module had no test of its own): a clean CRC-32C and a clean chained
 * SHA-256 file; each anomaly with every field (checksum mismatch with both checksums in 4.2's hex,
 * boundary mismatch with the stored start, uncovered data after the last record, unknown kinds and
 * a second or cut header), the records of each damaged chunk; chaining by the stored hash so one
 * damaged chunk fails alone; plain gaps inside a chunk; a zero length stopping the walk.
 */

const CRC = 0x4667;
const SHA = 0x56ba;
const HEADER = 0xe5a3;
const BOTH = new Set(['crc32c', 'sha256'] as const);
const ONLY_CRC = new Set(['crc32c'] as const);

function concat(...parts: Uint8Array[]): Uint8Array {
  const b = bytes();
  for (const p of parts) b.bytes(p);
  return b.build();
}
/** A file header naming `kind`, with a chain root of its own. */
const header = (kind: number, root = new Uint8Array(32)) => bytes().int64(-46n).uint16(0x215e).uint16(HEADER).uint16(kind).bytes(root).build();
const sha = (previous: Uint8Array, chunk: Uint8Array) => new Uint8Array(createHash('sha256').update(previous).update(chunk).digest());
const shaRecord = (chunkStart: number, hash: Uint8Array) => bytes().int64(-48n).uint16(0x215e).uint16(SHA).int32(chunkStart).bytes(hash).build();
const crcRecord = (chunkStart: number, checksum: number) => bytes().int64(-20n).uint16(0x215e).uint16(CRC).int32(chunkStart).int32(checksum | 0).build();
const hex32 = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');

const A = record(1000100n, 1000000000000000001n, new Uint8Array([1, 2, 3, 4]));
const B = record(1000101n, 1000000000000000002n, new Uint8Array(10).fill(7));
const C = record(1000100n, 1000000000000000003n, new Uint8Array([9]));
const recordAt = (offset: number, r: Uint8Array, typeId: bigint, objectId: bigint): ChunkRecord => ({ offset, length: r.length, typeId, objectId });
const AT_46 = recordAt(46, A, 1000100n, 1000000000000000001n);
const B_AT_74 = recordAt(74, B, 1000101n, 1000000000000000002n);

describe('verifyFileChunks: CRC-32C', () => {
  const chunk1 = concat(A, B); // 46 .. 108
  const first = crc32cChunkRecord(46, chunk1); // 108 .. 128

  it('a clean file: its header kind, its chunks, no anomaly, the header root as the tip', () => {
    const file = concat(fileHeaderRecord(), chunk1, first, C, crc32cChunkRecord(128, C));
    expect(verifyFileChunks(file, ONLY_CRC)).toStrictEqual({ headerKind: CRC, chunks: 2, lastTip: new Uint8Array(32), anomalies: [] });
  });

  it('a damaged chunk: both checksums in hex, the chunk, its record and the records in it; the next chunk still verified', () => {
    const damaged = concat(A, B);
    damaged[60] = 0xff;
    const file = concat(fileHeaderRecord(), damaged, first, C, crc32cChunkRecord(128, C));
    expect(verifyFileChunks(file, ONLY_CRC)).toStrictEqual({
      headerKind: CRC,
      chunks: 2,
      lastTip: new Uint8Array(32),
      anomalies: [
        { kind: 'checksum-mismatch', chunkStart: 46, chunkEnd: 108, recordOffset: 108, metaKind: CRC, expected: hex32(crc32c(chunk1)), actual: hex32(crc32c(damaged)), records: [AT_46, B_AT_74] },
      ],
    });
  });

  it('a checksum with its top bit set is compared as the unsigned number 4.2 prints', () => {
    const file = concat(fileHeaderRecord(), C, crcRecord(46, 0x80000001));
    const [anomaly] = verifyFileChunks(file, ONLY_CRC).anomalies;
    expect([anomaly!.expected, anomaly!.actual]).toEqual(['80000001', hex32(crc32c(C))]);
  });

  it('a record naming another chunk start: a boundary mismatch with the stored start, and the chunk goes on from the record', () => {
    const file = concat(fileHeaderRecord(), chunk1, crc32cChunkRecord(50, chunk1), C, crc32cChunkRecord(128, C));
    expect(verifyFileChunks(file, ONLY_CRC).anomalies).toStrictEqual([
      { kind: 'boundary-mismatch', chunkStart: 46, chunkEnd: 108, recordOffset: 108, metaKind: CRC, storedStart: 50, records: [AT_46, B_AT_74] },
    ]);
  });

  it('bytes after the last record of a file with a header are uncovered data; without a header they are not', () => {
    const file = concat(fileHeaderRecord(), chunk1, first, C);
    expect(verifyFileChunks(file, ONLY_CRC).anomalies).toStrictEqual([{ kind: 'uncovered-data', chunkStart: 128, chunkEnd: 153, records: [recordAt(128, C, 1000100n, 1000000000000000003n)] }]);
    expect(verifyFileChunks(concat(A, B, C), ONLY_CRC)).toStrictEqual({ headerKind: undefined, chunks: 0, lastTip: undefined, anomalies: [] });
  });

  it('a file ending right after its last record has nothing uncovered', () => {
    expect(verifyFileChunks(concat(fileHeaderRecord(), chunk1, first), ONLY_CRC).anomalies).toEqual([]);
  });

  it('a plain gap inside a chunk is skipped and covered by the checksum', () => {
    const gap = bytes().int64(-16n).int64(0n).build();
    const chunk = concat(A, gap, B);
    const file = concat(fileHeaderRecord(), chunk, crc32cChunkRecord(46, chunk));
    expect(verifyFileChunks(file, ONLY_CRC)).toMatchObject({ chunks: 1, anomalies: [] });
  });

  it('a zero length stops the walk there, with what was found before', () => {
    const file = concat(fileHeaderRecord(), chunk1, first, new Uint8Array(8), C);
    expect(verifyFileChunks(file, ONLY_CRC)).toStrictEqual({ headerKind: CRC, chunks: 1, lastTip: new Uint8Array(32), anomalies: [], zeroLengthAt: 128 });
  });

  it('fewer than 8 bytes at the end end the walk', () => {
    const file = concat(fileHeaderRecord(), chunk1, first, new Uint8Array(7).fill(1));
    expect(verifyFileChunks(file, ONLY_CRC)).toStrictEqual({ headerKind: CRC, chunks: 1, lastTip: new Uint8Array(32), anomalies: [{ kind: 'uncovered-data', chunkStart: 128, chunkEnd: 135, records: [] }] });
  });
});

describe('verifyFileChunks: records 4.2 does not verify', () => {
  const chunk1 = concat(A, B);

  it('a checksum kind the configuration does not know: unknown-kind, and the next chunk starts after it', () => {
    const file = concat(fileHeaderRecord(), chunk1, shaRecord(46, new Uint8Array(32)), C, crc32cChunkRecord(156, C));
    expect(verifyFileChunks(file, ONLY_CRC)).toStrictEqual({
      headerKind: CRC,
      chunks: 1,
      lastTip: new Uint8Array(32),
      anomalies: [{ kind: 'unknown-kind', chunkStart: 46, chunkEnd: 108, recordOffset: 108, metaKind: SHA, records: [] }],
    });
  });

  it('without a header an unknown kind does not move the chunk start', () => {
    const file = concat(chunk1, shaRecord(0, new Uint8Array(32)), C, crc32cChunkRecord(0, concat(chunk1, shaRecord(0, new Uint8Array(32)), C)));
    const walk = verifyFileChunks(file, ONLY_CRC);
    expect(walk.anomalies).toStrictEqual([{ kind: 'unknown-kind', chunkStart: 0, chunkEnd: 62, recordOffset: 62, metaKind: SHA, records: [] }]);
    expect(walk.chunks).toBe(1);
  });

  it('a meta record of a kind no version defines is unknown-kind too', () => {
    const odd = bytes().int64(-12n).uint16(0x215e).uint16(0x1234).build();
    expect(verifyFileChunks(concat(fileHeaderRecord(), A, odd), ONLY_CRC).anomalies[0]).toStrictEqual({ kind: 'unknown-kind', chunkStart: 46, chunkEnd: 74, recordOffset: 74, metaKind: 0x1234, records: [] });
  });

  it('a second file header: unknown-kind, and the next chunk starts after it', () => {
    const file = concat(fileHeaderRecord(), A, fileHeaderRecord(), C, crc32cChunkRecord(120, C));
    expect(verifyFileChunks(file, ONLY_CRC)).toStrictEqual({
      headerKind: CRC,
      chunks: 1,
      lastTip: new Uint8Array(32),
      anomalies: [{ kind: 'unknown-kind', chunkStart: 46, chunkEnd: 74, recordOffset: 74, metaKind: HEADER, records: [] }],
    });
  });

  it('a header or a checksum record cut by the end of the file: unknown-kind', () => {
    expect(verifyFileChunks(fileHeaderRecord().subarray(0, 45), ONLY_CRC)).toStrictEqual({
      headerKind: undefined,
      chunks: 0,
      lastTip: undefined,
      anomalies: [{ kind: 'unknown-kind', chunkStart: 0, chunkEnd: 0, recordOffset: 0, metaKind: HEADER, records: [] }],
    });
    const cut = concat(fileHeaderRecord(), A, crc32cChunkRecord(46, A).subarray(0, 19));
    // The cut record verifies nothing: A stays uncovered.
    expect(verifyFileChunks(cut, ONLY_CRC).anomalies).toStrictEqual([
      { kind: 'unknown-kind', chunkStart: 46, chunkEnd: 74, recordOffset: 74, metaKind: CRC, records: [] },
      { kind: 'uncovered-data', chunkStart: 46, chunkEnd: 93, records: [AT_46] },
    ]);
  });
});

describe('verifyFileChunks: chained SHA-256', () => {
  const root = new Uint8Array(32).map((_, i) => i + 1);
  const chunk1 = concat(A, B); // 46 .. 108
  const hash1 = sha(root, chunk1);
  const hash2 = sha(hash1, C); // C at 156 .. 181

  it('a clean file: each hash over the previous stored hash (the header root first) and the chunk; the last as the tip', () => {
    const file = concat(header(SHA, root), chunk1, shaRecord(46, hash1), C, shaRecord(156, hash2));
    expect(verifyFileChunks(file, BOTH)).toStrictEqual({ headerKind: SHA, chunks: 2, lastTip: hash2, anomalies: [] });
  });

  it('a damaged chunk fails alone: the next is chained to the stored hash; both hashes in upper-case hex', () => {
    const damaged = concat(A, B);
    damaged[60] = damaged[60]! ^ 1;
    const file = concat(header(SHA, root), damaged, shaRecord(46, hash1), C, shaRecord(156, hash2));
    expect(verifyFileChunks(file, BOTH)).toStrictEqual({
      headerKind: SHA,
      chunks: 2,
      lastTip: hash2,
      anomalies: [
        { kind: 'checksum-mismatch', chunkStart: 46, chunkEnd: 108, recordOffset: 108, metaKind: SHA, expected: hexOf(hash1), actual: hexOf(sha(root, damaged)), records: [AT_46, B_AT_74] },
      ],
    });
    expect(hexOf(hash1)).toMatch(/^[0-9A-F]{64}$/);
  });

  it('after a boundary mismatch the stored hash goes on as the previous one', () => {
    const file = concat(header(SHA, root), chunk1, shaRecord(40, hash1), C, shaRecord(156, hash2));
    expect(verifyFileChunks(file, BOTH)).toStrictEqual({
      headerKind: SHA,
      chunks: 2,
      lastTip: hash2,
      anomalies: [{ kind: 'boundary-mismatch', chunkStart: 46, chunkEnd: 108, recordOffset: 108, metaKind: SHA, storedStart: 40, records: [AT_46, B_AT_74] }],
    });
  });

  it('without a header the first previous hash is 32 zero bytes', () => {
    const first = sha(new Uint8Array(32), chunk1);
    expect(verifyFileChunks(concat(chunk1, shaRecord(0, first)), BOTH)).toStrictEqual({ headerKind: undefined, chunks: 1, lastTip: first, anomalies: [] });
  });
});

describe('recordsIn and the kind helpers', () => {
  it('walks records from one offset while they start before another, skipping gaps and too-short entries', () => {
    const gap = bytes().int64(-16n).int64(0n).build();
    const short = bytes().int64(20n).int64(0n).int32(0).build();
    const data = concat(A, gap, short, B, C);
    const view = new DataView(data.buffer);
    expect(recordsIn(view, 0, data.length)).toStrictEqual([recordAt(0, A, 1000100n, 1000000000000000001n), recordAt(64, B, 1000101n, 1000000000000000002n), recordAt(98, C, 1000100n, 1000000000000000003n)]);
    expect(recordsIn(view, 0, 64)).toHaveLength(1);
    expect(recordsIn(view, 0, 65)).toHaveLength(2);
    expect(recordsIn(view, 64, 98)).toStrictEqual([recordAt(64, B, 1000101n, 1000000000000000002n)]);
  });

  it('stops at a zero length and at a record header cut by the end', () => {
    const data = concat(A, new Uint8Array(8), B);
    expect(recordsIn(new DataView(data.buffer), 0, data.length)).toHaveLength(1);
    const cut = concat(A, B.subarray(0, 23));
    expect(recordsIn(new DataView(cut.buffer), 0, cut.length)).toStrictEqual([recordAt(0, A, 1000100n, 1000000000000000001n)]);
    const tail = concat(A, B.subarray(0, 7));
    expect(recordsIn(new DataView(tail.buffer), 0, tail.length)).toHaveLength(1);
  });

  it('names the algorithms of the two chunk kinds and their record lengths', () => {
    expect([algorithmOfKind(CRC), algorithmOfKind(SHA), algorithmOfKind(HEADER)]).toEqual(['crc32c', 'sha256', undefined]);
    expect([recordLengthOf('crc32c'), recordLengthOf('sha256')]).toEqual([20, 48]);
    expect(hexOf(new Uint8Array([0, 0xab, 0x0f]).subarray(1))).toBe('AB0F');
  });
});
