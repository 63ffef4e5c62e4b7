import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexChannel } from '../../../src/storage/index/channel-indexer.js';
import { SYNC_LOCAL_FILES } from '../../../src/storage/source/sync-file-chunks.js';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';
import { fileHeaderRecord } from '../../helpers/corpora/eclipsestore-files.js';

/**
 * The first load sizes a channel's index from a sample of its files (channel-indexer.ts
 * `reserve`): consecutive ids then land in the dense run, 12 bytes each, instead of the hash
 * table's 20-byte slots at three-quarters load. A sample that found nothing, or misjudged the
 * channel badly, shows as bytes per entity.
 */

const ROOTS_NONE = { low: -1, high: -1 };

function channelFiles(dir: string): { path: string; from: number; to: number }[] {
  const number = (name: string): number => Number(/_(\d+)\.dat$/.exec(name)![1]);
  return readdirSync(dir)
    .filter((n) => n.endsWith('.dat'))
    .sort((a, b) => number(a) - number(b))
    .map((n) => ({ path: join(dir, n), from: 0, to: statSync(join(dir, n)).size }));
}

describe('indexing a channel in one go', () => {
  let root: string;
  let channel0: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'si-channel-indexer-'));
    const dir = join(root, 'storage');
    generateStorage({ directory: dir, entities: 40_000, channelCount: 2, seed: 3, fileMaximumSize: 64 * 1024, entitiesPerStore: 400 });
    channel0 = join(dir, 'channel_0');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reserves a dense run that holds the channel’s ids', async () => {
    const files = channelFiles(channel0);
    expect(files.length).toBeGreaterThan(8);
    const { objects, records, problems } = await indexChannel({ reads: SYNC_LOCAL_FILES, readAhead: false, files, idShift: 1, rootsType: ROOTS_NONE });
    expect(problems.every((p) => p === undefined)).toBe(true);
    expect(objects.size).toBeGreaterThan(19_000);
    expect(records.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(objects.size);
    // The run alone is 12 bytes an id; the hash table alone would be about 27.
    expect(objects.byteSize / objects.size).toBeLessThan(14);
  });

  it('samples past an EclipseStore 4.2 file header at the start of each file', async () => {
    const header = fileHeaderRecord();
    const files = channelFiles(channel0).map((file, i) => {
      const path = join(root, `with-header-${i}.dat`);
      writeFileSync(path, Buffer.concat([header, readFileSync(file.path)]));
      return { path, from: 0, to: statSync(path).size };
    });
    const plain = await indexChannel({ reads: SYNC_LOCAL_FILES, readAhead: false, files: channelFiles(channel0), idShift: 1, rootsType: ROOTS_NONE });
    const headed = await indexChannel({ reads: SYNC_LOCAL_FILES, readAhead: false, files, idShift: 1, rootsType: ROOTS_NONE });
    expect(headed.problems.every((p) => p === undefined)).toBe(true);
    expect(headed.meta.every((m) => m === header.length)).toBe(true);
    expect(headed.objects.size).toBe(plain.objects.size);
    expect(headed.objects.byteSize / headed.objects.size).toBeLessThan(14);
  });

  // This channel is loaded one record at a time by default (a short run); lowered, the run lengths
  // from which a channel is loaded blind and writes far behind are put aside in batches.
  it.each([
    ['one at a time', {}],
    ['blind', { blindFromRun: 0 }],
    ['blind, far writes in batches', { blindFromRun: 0, batchFromRun: 0 }],
  ])('ends with every object’s latest record and each file’s live bytes, as a plain walk in file order does: %s', async (_how, how) => {
    const files = channelFiles(channel0);
    const { objects, live } = await indexChannel({ reads: SYNC_LOCAL_FILES, readAhead: false, files, idShift: 1, rootsType: ROOTS_NONE, ...how });
    // The walk: every record in file order, the later one of an id wins.
    const latest = new Map<bigint, { fileSlot: number; offset: number; length: number }>();
    let top = 0n;
    let farBehind = 0;
    files.forEach(({ path }, fileSlot) => {
      const bytes = readFileSync(path);
      for (let offset = 0; offset < bytes.length; ) {
        const length = Number(bytes.readBigInt64LE(offset));
        const id = bytes.readBigInt64LE(offset + 16);
        // Ids of one channel are 2 apart here: a record 4,096 positions or more below the highest
        // id seen is one the index puts aside (object-index.ts).
        if (id > top) top = id;
        else if ((top - id) / 2n >= 4096n) farBehind++;
        latest.set(id, { fileSlot, offset, length });
        offset += length;
      }
    });
    expect(farBehind).toBeGreaterThan(1000);
    expect(objects.size).toBe(latest.size);
    const expectedLive = files.map(() => 0);
    const wrong: string[] = [];
    for (const [id, location] of latest) {
      expectedLive[location.fileSlot]! += location.length;
      const got = objects.get(id);
      if (got?.fileSlot !== location.fileSlot || got.offset !== location.offset || got.length !== location.length) wrong.push(`${id}`);
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(live).toEqual(expectedLive);
  });
});
