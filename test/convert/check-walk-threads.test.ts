import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataFileBytes } from '../helpers/corpora/data-files.js';
import { convertStorage, DamagedSourceError } from '../../src/convert/convert-storage.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { CHECK_THREADS_FROM_BYTES, checkWalkThreads } from '../../src/convert/check-walk-threads.js';

/**
 * The check's record walk split across worker threads by channel (as convert does for large
 * storages in a directory) finds what the walk in one thread finds: the same objects left out as
 * superseded and garbage (the threads' reference lists and walk order joined), so the same data
 * files byte for byte and the same report (2, 3 and 4 threads over 4 channels: runs of 2, of
 * 1-1-2 and of 1); and on a damaged source the same findings, in order. By default two threads at
 * most, for memory.
 */

let work = '';
let source = '';
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-convert-check-threads-'));
  source = join(work, 'source');
  generateStorage({ directory: source, entities: 20_000, channelCount: 4, seed: 11, fileMaximumSize: 64 * 1024, entitiesPerStore: 500, updateRatio: 0.5 });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('convert with the check walk in threads', () => {
  it.each([2, 3, 4])('%i threads write the data files, dictionary and report of the walk in one thread', async (threads) => {
    const options = { channels: 2, fileSize: 16 * 1024 };
    const plain = await convertStorage(source, { ...options, out: join(work, `plain-${threads}`), checkThreads: 0 });
    const threaded = await convertStorage(source, { ...options, out: join(work, `threaded-${threads}`), checkThreads: threads });
    const expected = dataFileBytes(join(work, `plain-${threads}`));
    const got = dataFileBytes(join(work, `threaded-${threads}`));
    expect(expected.size).toBeGreaterThan(20);
    expect([...got.keys()]).toEqual([...expected.keys()]);
    for (const [name, bytes] of expected) expect(got.get(name)!.equals(bytes), name).toBe(true);
    const dictionary = (dir: string): string => readFileSync(join(work, dir, 'PersistenceTypeDictionary.ptd'), 'utf8');
    expect(dictionary(`threaded-${threads}`)).toBe(dictionary(`plain-${threads}`));
    expect({ ...threaded, out: '' }).toEqual({ ...plain, out: '' });
    expect(threaded.garbage.objects).toBeGreaterThan(0);
    expect(threaded.superseded.objects).toBeGreaterThan(0);
  });

  it('refuses a source damaged in two threads\' channels with the findings of the walk in one thread', async () => {
    const damaged = join(work, 'damaged');
    cpSync(source, damaged, { recursive: true });
    // The type id of a record in the middle of the first file of channels 1 and 3 made unknown.
    for (const channel of [1, 3]) {
      const dir = join(damaged, `channel_${channel}`);
      const file = join(dir, readdirSync(dir).filter((n) => n.endsWith('.dat')).sort()[0]!);
      const bytes = readFileSync(file);
      let at = 0;
      for (let k = 0; k < 20; k++) at += Number(bytes.readBigInt64LE(at));
      bytes.writeBigInt64LE(987_654_321n, at + 8);
      writeFileSync(file, bytes);
    }
    const refusal = async (checkThreads: number): Promise<DamagedSourceError> => {
      const error = await convertStorage(damaged, { out: join(work, `damaged-out-${checkThreads}`), checkThreads }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DamagedSourceError);
      return error as DamagedSourceError;
    };
    const plain = await refusal(0);
    const threaded = await refusal(2);
    expect(plain.check.problems[0]).toMatchObject({ code: 'UNKNOWN_TYPE_ID', count: 2 });
    expect(threaded.check).toEqual(plain.check);
  });
});

describe('how many threads walk by default', () => {
  it('no more than two (one worker) whatever the processors: each worker thread raised convert\'s peak RSS by 13-25 MB at 10M', () => {
    const big = 1024 * 1024 * 1024;
    expect(checkWalkThreads(undefined, 8, big, 8)).toBe(2);
    expect(checkWalkThreads(undefined, 4, big, 4)).toBe(2);
    expect(checkWalkThreads(undefined, 4, big, 1)).toBe(0);
    expect(checkWalkThreads(undefined, 1, big, 8)).toBe(0);
    expect(checkWalkThreads(undefined, 8, CHECK_THREADS_FROM_BYTES - 1, 8)).toBe(0);
    // Asked for: as many as asked, one per channel at most.
    expect(checkWalkThreads(4, 4, 0, 2)).toBe(4);
    expect(checkWalkThreads(5, 4, big, 8)).toBe(4);
    // Not a number of threads: the walk in one thread (it split the channels into no runs at all).
    expect(checkWalkThreads(Number.NaN, 4, big, 2)).toBe(0);
  });
});
