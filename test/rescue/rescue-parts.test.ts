import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import type { ChunkAnomaly, ChunkAnomalyKind } from '../../src/format/chunk-checksums.js';
import { parseAsOf } from '../../src/rescue/as-of.js';
import { chunkDamageLookup } from '../../src/rescue/chunk-damage-lookup.js';
import { TemporaryTarget } from '../../src/rescue/temporary-target.js';
import type { ChunkVerification } from '../../src/storage/checksums/chunk-verification.js';

/**
 * The parts of `rescue` that decide before any record is read: what `--as-of` means, where the
 * copy is written until it is whole, and which records EclipseStore 4.2's chunk checksums condemn.
 */

describe('--as-of', () => {
  it('a number up to 10^12 is a commit number, a larger one a log timestamp (never through a JS number)', () => {
    expect(parseAsOf('7')).toEqual({ commit: 7 });
    expect(parseAsOf(' 12 ')).toEqual({ commit: 12 });
    expect(parseAsOf('1000000000000')).toEqual({ commit: 1_000_000_000_000 });
    expect(parseAsOf('1000000000001')).toEqual({ timestamp: 1_000_000_000_001n });
    expect(parseAsOf('1716544812345678901')).toEqual({ timestamp: 1_716_544_812_345_678_901n });
  });

  it('a date-time is the time it names', () => {
    expect(parseAsOf('2024-05-01T12:00:00Z')).toEqual({ time: Date.UTC(2024, 4, 1, 12) });
    expect(parseAsOf('2024-05-01')).toEqual({ time: Date.UTC(2024, 4, 1) });
  });

  it('anything else is a usage error naming what it takes', () => {
    // 'Wed 2024-05-01' and '2024-05-1' are dates to Date.parse, not to --as-of.
    for (const text of ['yesterday', '-3', '1.5', 'May 1, 2024', '2024-13-45', '', 'Wed 2024-05-01', '2024-05-1']) {
      expect(() => parseAsOf(text), text).toThrow(UsageError);
      expect(() => parseAsOf(text), text).toThrow(`--as-of ${text}: expected a commit number, a commit timestamp or a date-time such as 2024-05-01T12:00:00Z`);
    }
  });
});

describe('the hidden directory rescue writes into', () => {
  let base: string;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'rescue-target-'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('lies beside the target, hidden, named after it and the command', () => {
    const target = new TemporaryTarget(join(base, 'out'));
    expect(target.path.startsWith(join(base, `.out.rescue-${process.pid}-`))).toBe(true);
    expect(target.path).toMatch(/-[0-9a-f]{8}$/);
    expect(new TemporaryTarget(join(base, 'out2'), 'convert').path.startsWith(join(base, `.out2.convert-${process.pid}-`))).toBe(true);
  });

  it('moves into place when complete, replacing an empty directory; discard after that leaves it', () => {
    const out = join(base, 'complete');
    mkdirSync(out);
    const target = new TemporaryTarget(out);
    mkdirSync(target.path);
    writeFileSync(join(target.path, 'file'), 'whole');
    target.commit();
    expect(readFileSync(join(out, 'file'), 'utf8')).toBe('whole');
    target.discard();
    expect(readFileSync(join(out, 'file'), 'utf8')).toBe('whole');
    expect(readdirSync(base).filter((f) => f.startsWith('.complete'))).toEqual([]);
  });

  it('discard removes what was written, and is idempotent', () => {
    const target = new TemporaryTarget(join(base, 'stopped'));
    mkdirSync(join(target.path, 'channel_0'), { recursive: true });
    target.discard();
    target.discard();
    expect(readdirSync(base).filter((f) => f.includes('stopped'))).toEqual([]);
  });

  it('discard before anything was written (an error before the first file) is quiet', () => {
    const target = new TemporaryTarget(join(base, 'never'));
    expect(() => target.discard()).not.toThrow();
  });

  it('refuses a file, a directory that is not empty, and a target below a file', () => {
    writeFileSync(join(base, 'a-file'), 'x');
    mkdirSync(join(base, 'full'));
    writeFileSync(join(base, 'full', 'x'), 'x');
    expect(() => new TemporaryTarget(join(base, 'a-file'))).toThrow(new UsageError(`--out ${join(base, 'a-file')} exists and is not a directory: rescue writes only to a new or empty directory`));
    expect(() => new TemporaryTarget(join(base, 'full'), 'convert')).toThrow(new UsageError(`--out ${join(base, 'full')} exists and is not empty: convert writes only to a new or empty directory`));
    expect(() => new TemporaryTarget(join(base, 'a-file', 'below'))).toThrow(new UsageError(`--out ${join(base, 'a-file', 'below')}: ${join(base, 'a-file')} is not a directory`));
  });

  it('makes the missing parents, and refuses to move over a target someone filled meanwhile', () => {
    const out = join(base, 'new', 'parents', 'out');
    const target = new TemporaryTarget(out);
    expect(readdirSync(join(base, 'new', 'parents'))).toEqual([]);
    mkdirSync(target.path);
    mkdirSync(out);
    writeFileSync(join(out, 'theirs'), 'x');
    expect(() => target.commit()).toThrow(expect.objectContaining({ name: 'StorageError', code: 'STORAGE_IO' }));
    expect(() => target.commit()).toThrow(`--out ${out} was filled by someone else meanwhile; the rescued storage is left at ${target.path}`);
    const converting = new TemporaryTarget(join(base, 'new', 'c'), 'convert');
    mkdirSync(join(base, 'new', 'c'));
    writeFileSync(join(base, 'new', 'c', 'theirs'), 'x');
    expect(() => converting.commit()).toThrow(`the new storage is left at ${converting.path}`);
  });
});

describe('records in chunks that fail their checksums', () => {
  const anomaly = (kind: ChunkAnomalyKind, chunkStart: number, chunkEnd: number): ChunkAnomaly => ({ kind, chunkStart, chunkEnd, records: [] });
  const verification = (files: { path: string; fileNumber: bigint; anomalies: ChunkAnomaly[] }[]): ChunkVerification => ({
    algorithm: undefined,
    otherSelections: [],
    skipped: [],
    files: files.map((f) => ({ channel: 0, fileNumber: f.fileNumber, path: f.path, walk: { headerKind: 1, chunks: 3, lastTip: undefined, anomalies: f.anomalies } })),
  });

  it('none when no chunk is damaged (an unknown checksum kind leaves its chunk unverified, not damaged)', () => {
    expect(chunkDamageLookup(verification([]))).toBeUndefined();
    expect(chunkDamageLookup(verification([{ path: 'a', fileNumber: 1n, anomalies: [anomaly('unknown-kind', 0, 100)] }]))).toBeUndefined();
  });

  it('a record from the chunk start up to (not including) its end is unreadable, saying why', () => {
    const at = chunkDamageLookup(
      verification([
        { path: 'channel_0/channel_0_1.dat', fileNumber: 1n, anomalies: [anomaly('checksum-mismatch', 100, 200), anomaly('unknown-kind', 200, 300), anomaly('uncovered-data', 400, 500)] },
        { path: 'channel_0/channel_0_2.dat', fileNumber: 2n, anomalies: [anomaly('boundary-mismatch', 0, 50)] },
      ]),
    )!;
    expect(at('channel_0/channel_0_1.dat', 99)).toBeUndefined();
    expect(at('channel_0/channel_0_1.dat', 100)).toEqual({ kind: 'unreadable', refusesStart: false, java: undefined, message: 'the record fails its chunk checksum (chunk 100 to 200 of data file #1)' });
    expect(at('channel_0/channel_0_1.dat', 199)?.message).toBe('the record fails its chunk checksum (chunk 100 to 200 of data file #1)');
    expect(at('channel_0/channel_0_1.dat', 200)).toBeUndefined();
    expect(at('channel_0/channel_0_1.dat', 250)).toBeUndefined();
    expect(at('channel_0/channel_0_1.dat', 450)?.message).toBe('the record lies in data no chunk checksum covers (chunk 400 to 500 of data file #1)');
    expect(at('channel_0/channel_0_2.dat', 0)?.message).toBe('the record lies in a chunk whose boundary does not match its checksum record (chunk 0 to 50 of data file #2)');
    expect(at('channel_0/channel_0_2.dat', 100)).toBeUndefined();
    expect(at('channel_0/channel_0_3.dat', 0)).toBeUndefined();
  });
});
