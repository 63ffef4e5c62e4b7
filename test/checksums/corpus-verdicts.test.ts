import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkStorage } from '../../src/check/check-storage.js';
import { analyzeStartup } from '../../src/check/java-startup.js';
import { crc32c } from '../../src/format/crc32c.js';
import { verifyStorageChunks, verifyStorageChunksBeside } from '../../src/storage/checksums/chunk-verification.js';
import { DirectorySource, LOCAL_FILES } from '../../src/storage/source/directory-source.js';
import { scanStorageLayout } from '../../src/storage/source/storage-dir.js';

/**
 * `check` on every damaged copy of EclipseStore 4.2's corpus (test/fixtures/conformance-es42)
 * gives the verdict 4.2 gave opening it with the writer's checksum setting: the same exception and
 * message where it refused, "would start" where it started. The verdicts are read from 4.2's own
 * recorded output, not written here.
 */

const CORPUS = join(import.meta.dirname, '..', 'fixtures', 'conformance-es42');
const CASES = readdirSync(join(CORPUS, 'damaged', 'crc32c')).sort();

/** What 4.2 printed with the writer's setting: undefined when it started, else the innermost cause. */
function recordedVerdict(name: string): { exception: string; message: string } | undefined {
  const output = readFileSync(join(CORPUS, 'expected-damage', `crc32c.${name}.app.txt`), 'utf8');
  if (/^STARTED/m.test(output)) return undefined;
  const cause = /caused by ([\w.$]+): (.*)$/m.exec(output);
  if (cause === null) throw new Error(`no cause in ${name}'s output`);
  return { exception: cause[1]!, message: cause[2]! };
}

describe('check agrees with EclipseStore 4.2 on each damaged copy of its corpus', () => {
  it('the corpus has the twelve cases', () => {
    expect(CASES).toHaveLength(12);
  });

  it.each(CASES)('%s', async (name) => {
    const report = await checkStorage(join(CORPUS, 'damaged', 'crc32c', name));
    const verdict = recordedVerdict(name);
    expect(report.generation).toBe('EclipseStore 4.2');
    expect(report.javaStarts).toBe(verdict === undefined);
    if (verdict !== undefined) expect(report.problems.map((p) => p.java)).toContainEqual(verdict);
  });
});

describe('what check says about the damage', () => {
  it('names the file, the chunk and the objects in it for a rotten byte', async () => {
    const report = await checkStorage(join(CORPUS, 'damaged', 'crc32c', 'flip-entity'));
    const problem = report.problems.find((p) => p.code === 'CHUNK_CHECKSUM_MISMATCH')!;
    expect(problem.file).toBe(join(CORPUS, 'damaged', 'crc32c', 'flip-entity', 'channel_0', 'channel_0_1.dat'));
    expect(problem.offset).toBe(886);
    // The String whose first letter rotted ("Deutschland" -> "deutschland") is one of them.
    expect(problem.objects).toContainEqual({ objectId: '1000000000000000042', typeName: 'java.lang.String' });
    expect(problem.objects).toHaveLength(6);
    expect(problem.meaning).toMatch(/without a checksum setting verifies nothing: it starts and serves these bytes/);
  });

  it('warns that a chunk behind an unknown record kind cannot be verified', async () => {
    const report = await checkStorage(join(CORPUS, 'damaged', 'crc32c', 'flip-kind'));
    expect(report.problems.map((p) => [p.code, p.severity, p.offset])).toEqual([['CHUNK_NOT_VERIFIABLE', 'harmless', 886]]);
    expect(report.problems[0]!.meaning).toMatch(/cannot be verified/);
  });

  it('a complete compaction swap file beside an emptied log: 4.2 restores the log and starts', async () => {
    const report = await checkStorage(join(CORPUS, 'damaged', 'crc32c', 'swap-killed-during-rewrite'));
    expect(report.problems.map((p) => p.code)).toEqual(['LOG_RESTORED_FROM_SWAP', 'LOG_RESTORED_FROM_SWAP']);
    expect(report.summary.objects).toBe(1263);
  });

  it('an incomplete compaction swap file: 4.2 discards it and starts', async () => {
    const report = await checkStorage(join(CORPUS, 'damaged', 'crc32c', 'swap-incomplete'));
    expect(report.problems.map((p) => [p.code, p.severity, p.file])).toEqual([['LOG_SWAP_DISCARDED', 'harmless', join(CORPUS, 'damaged', 'crc32c', 'swap-incomplete', 'channel_0', 'transactions_0_compaction.swp')]]);
  });

  it.each(['graph-crc32c', 'graph-sha256', 'graph-plain'])('the intact %s: EclipseStore 4.2, no problem', async (name) => {
    const report = await checkStorage(join(CORPUS, 'storages', name));
    expect(report.generation).toBe('EclipseStore 4.2');
    expect(report.problems).toEqual([]);
  });
});

describe('CRC32C', () => {
  it('gives the check value of the Castagnoli CRC and continues across pieces at any alignment', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 131 + 7) & 0xff));
    const whole = crc32c(bytes);
    for (const cut of [1, 3, 8, 13, 500, 999]) expect(crc32c(bytes.subarray(cut), crc32c(bytes.subarray(0, cut)))).toBe(whole);
    expect(crc32c(bytes.subarray(0, 0))).toBe(0);
  });
});

describe('the verification in a thread of its own (what check does for a large storage in a directory)', () => {
  it('finds what the verification in this thread finds', async () => {
    const dir = join(CORPUS, 'damaged', 'crc32c', 'flip-chunkstart');
    const source = new DirectorySource(dir);
    const layout = await source.snapshot((reader) => scanStorageLayout(reader, dir));
    await source.close();
    const { readableLengths } = await analyzeStartup(layout);
    const beside = await verifyStorageChunksBeside(readableLengths, 0);
    const here = await verifyStorageChunks(readableLengths, LOCAL_FILES);
    expect(beside.files.flatMap((f) => f.walk.anomalies.map((a) => [f.path, a.kind, a.chunkStart, a.records.length]))).toEqual([[join(dir, 'channel_0', 'channel_0_1.dat'), 'boundary-mismatch', 886, 6]]);
    expect(beside).toEqual(here);
  });
});
