import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanRecordChunks, scanRecords, type RecordRunWalker, type ScanResult } from '../../../src/storage/records/record-scan.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';

/**
 * The record walk gets a file as chunks of whatever size its source delivers (8 MiB reads, table
 * rows): headers cut by chunk boundaries must be walked exactly as in one piece.
 */
const CHANNEL_DIR = join(CONFORMANCE_DIR, 'storages', 'graph', 'channel_0');
const DATA_FILES = readdirSync(CHANNEL_DIR).filter((n) => n.endsWith('.dat'));

async function* inPieces(bytes: Uint8Array, from: number, to: number, size: number): AsyncGenerator<Uint8Array> {
  for (let at = from; at < to; at += size) yield bytes.subarray(at, Math.min(to, at + size));
}

async function walk(bytes: Uint8Array, from: number, to: number, size: number): Promise<{ result: ScanResult; seen: number[] }> {
  const seen: number[] = [];
  const result = await scanRecordChunks(inPieces(bytes, from, to, size), from, to, (offset, length, _tl, _th, idLow) => {
    seen.push(offset, length, idLow);
  });
  return { result, seen };
}

describe('record walk over chunks', () => {
  it.each(DATA_FILES)('%s: any chunk size gives the records of the whole file', async (name) => {
    const path = join(CHANNEL_DIR, name);
    const bytes = readFileSync(path);
    const whole: number[] = [];
    const expected = await scanRecords(path, 0, bytes.length, (offset, length, _tl, _th, idLow) => void whole.push(offset, length, idLow));
    expect(expected.problem).toBeUndefined();
    expect(expected.records).toBeGreaterThan(0);
    for (const size of [1, 7, 8, 23, 24, 25, 100, 4096]) {
      const { result, seen } = await walk(bytes, 0, bytes.length, size);
      expect(result, `chunks of ${size}`).toEqual(expected);
      expect(seen, `chunks of ${size}`).toEqual(whole);
    }
  });

  it('reports a stream that ends before the valid length, and a record cut by the valid length, for any chunk size', async () => {
    const bytes = readFileSync(join(CHANNEL_DIR, DATA_FILES[0]!));
    const first = bytes.readUInt32LE(0);
    const second = bytes.readUInt32LE(first);
    for (const size of [1, 5, 24, 1000]) {
      // The source delivers only 10 bytes of the second record, the log commits the whole file.
      const seen: number[] = [];
      const ended = await scanRecordChunks(inPieces(bytes, 0, first + 10, size), 0, bytes.length, (offset) => void seen.push(offset));
      expect(ended).toEqual({ records: 1, metaBytes: 0, problem: { offset: first + 10, message: `file ends at ${first + 10}, before its committed length ${bytes.length}`, atEnd: true } });
      expect(seen).toEqual([0]);
      // The valid length ends inside the second record: its declared length comes as data (integrity.ts names the cut object with it).
      const cut = await walk(bytes, 0, first + 30, size);
      expect(cut.result).toEqual({ records: 1, metaBytes: 0, problem: { offset: first, message: `record of ${second} bytes runs past the valid length ${first + 30}`, atEnd: true, recordLength: second } });
      // Fewer than 8 bytes after the first record.
      const tail = await walk(bytes, 0, first + 5, size);
      expect(tail.result).toEqual({ records: 1, metaBytes: 0, problem: { offset: first, message: '5 trailing bytes are too short for a record length', atEnd: true } });
    }
  });
});

/** A run walker that notes what it walks, as the per-record visitor of `walk` does. */
class NotingRuns implements RecordRunWalker {
  walked = 0;
  runRecords = 0;
  constructor(private readonly seen: number[]) {}

  walkRun(view: DataView, at: number, end: number, pos: number, validLength: number): number {
    let walked = 0;
    while (at + 24 <= end) {
      const length = view.getUint32(at, true);
      if (view.getInt32(at + 4, true) !== 0 || length < 24 || pos + length > validLength) break;
      this.seen.push(pos, length, view.getInt32(at + 16, true));
      at += length;
      pos += length;
      walked++;
    }
    this.walked = walked;
    this.runRecords += walked;
    return at;
  }
}

describe('record walk with a run walker', () => {
  const es = join(CONFORMANCE_DIR, '..', 'conformance-es', 'storages', 'graph', 'channel_0');
  const files = [...DATA_FILES.map((n) => join(CHANNEL_DIR, n)), ...readdirSync(es).filter((n) => n.endsWith('.dat')).map((n) => join(es, n))];

  /** A gap before the file's records and a damaged record after them. */
  function withGapAndDamage(bytes: Buffer): Buffer {
    const gap = Buffer.alloc(40);
    gap.writeBigInt64LE(-40n, 0);
    const damaged = Buffer.alloc(24);
    damaged.writeBigInt64LE(3n, 0);
    return Buffer.concat([gap, bytes, damaged]);
  }

  it.each(files)('%s: the records, figures and problems of the per-record walk, for any chunk size', async (path) => {
    for (const bytes of [readFileSync(path), withGapAndDamage(readFileSync(path))]) {
      const plain = await walk(bytes, 0, bytes.length, bytes.length);
      for (const size of [1, 7, 24, 25, 100, 4096, bytes.length]) {
        const seen: number[] = [];
        const runs = new NotingRuns(seen);
        const result = await scanRecordChunks(inPieces(bytes, 0, bytes.length, size), 0, bytes.length, (offset, length, _tl, _th, idLow) => void seen.push(offset, length, idLow), runs);
        expect(result, `chunks of ${size}`).toEqual(plain.result);
        expect(seen, `chunks of ${size}`).toEqual(plain.seen);
        if (size >= 4096) expect(runs.runRecords, `chunks of ${size}`).toBeGreaterThan(plain.result.records / 2);
      }
    }
  });
});
