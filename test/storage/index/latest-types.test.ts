import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexChannel } from '../../../src/storage/index/channel-indexer.js';
import { LatestTypes } from '../../../src/storage/index/latest-types.js';
import { SYNC_LOCAL_FILES } from '../../../src/storage/source/sync-file-chunks.js';
import { Storage } from '../../../src/storage/storage.js';
import { StorageWriter } from '../../../src/writer/storage-writer.js';

/**
 * The latest records counted per type while a channel is indexed (`countLatestTypes`): objects
 * stored again, some of them with another type, in several files. The
 * counts must equal those of the latest records read one by one, whichever way the index is loaded.
 */

let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'si-latest-types-'));
  const writer = StorageWriter.create(dir, { channelCount: 1, fileMaximumSize: 16 * 1024 });
  const string = writer.dictionary.require('java.lang.String');
  const list = writer.dictionary.require('java.util.ArrayList');
  const ids: bigint[] = [];
  for (let round = 0; round < 4; round++) {
    const store = writer.beginStore();
    for (let i = 0; i < 600; i++) {
      const id = writer.newObjectId();
      ids.push(id);
      store.add(string, id, [`string ${round} ${i}`]);
    }
    // Objects of earlier rounds stored again: every 5th as a list instead (a new type), every 7th as a String again.
    for (let i = 0; i < ids.length - 600; i++) {
      if (i % 5 === 0) store.add(list, ids[i]!, [[ids[i + 1]!]]);
      else if (i % 7 === 0) store.add(string, ids[i]!, [`again ${round} ${i}`]);
    }
    writer.store(store);
  }
  writer.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function countedOneByOne(storage: Storage): Promise<Map<bigint, number>> {
  const counts = new Map<bigint, number>();
  for (const channel of storage.channels) {
    const ids: bigint[] = [];
    channel.objects.forEach((low, high) => void ids.push((BigInt(high) << 32n) | BigInt(low >>> 0)));
    for (const id of ids) {
      const typeId = (await storage.readEntity(id))!.typeId;
      counts.set(typeId, (counts.get(typeId) ?? 0) + 1);
    }
  }
  return counts;
}

describe('latest records counted per type', () => {
  it('equal the latest records read one by one', async () => {
    const storage = await Storage.open(dir, { countLatestTypes: true });
    try {
      const expected = await countedOneByOne(storage);
      const list = storage.dictionary.currentByName.get('java.util.ArrayList')!.typeId;
      const string = storage.dictionary.currentByName.get('java.lang.String')!.typeId;
      // Of the 1,800 objects of the first three rounds, every 5th was last stored as a list.
      expect(expected.get(list)).toBe(360);
      expect(expected.get(string)).toBe(2400 - 360);
      expect(new Map(storage.latestTypeCounts)).toEqual(expected);
    } finally {
      await storage.close();
    }
  });

  it('are the same loaded blind, by set, and with far writes in batches', async () => {
    const storage = await Storage.open(dir);
    const expected = await countedOneByOne(storage);
    await storage.close();
    const channel = join(dir, 'channel_0');
    const files = readdirSync(channel)
      .filter((n) => n.endsWith('.dat'))
      .sort((x, y) => Number(x.match(/_(\d+)\.dat$/)![1]) - Number(y.match(/_(\d+)\.dat$/)![1]))
      .map((n) => ({ path: join(channel, n), from: 0, to: statSync(join(channel, n)).size }));
    expect(files.length).toBeGreaterThan(3);
    for (const how of [{ blindFromRun: 0 }, { blindFromRun: 1 << 30 }, { blindFromRun: 0, batchFromRun: 0 }]) {
      const result = await indexChannel({ reads: SYNC_LOCAL_FILES, readAhead: false, files, idShift: 0, rootsType: { low: -1, high: -1 }, countTypes: true, ...how });
      const counts = new Map<bigint, number>();
      const triples = result.typeCounts!;
      for (let i = 0; i < triples.length; i += 3) counts.set((BigInt(triples[i + 1]!) << 32n) | BigInt(triples[i]!), triples[i + 2]!);
      expect(counts).toEqual(expected);
    }
  });

  it('count channels of more than 255 types (ordinals of two bytes) and of more than 65,535 (the rest kept aside), ids stored again with another type', () => {
    for (const types of [3, 255, 256, 300, 70_000]) {
      const entities = Math.max(1_000, types + 500);
      const latest = new LatestTypes(0);
      latest.reserve(entities, 5_000, 0);
      const last = new Map<number, bigint>();
      const set = (id: number, typeLow: number, typeHigh = 0): void => {
        latest.set(id, 0, typeLow, typeHigh);
        last.set(id, (BigInt(typeHigh) << 32n) | BigInt(typeLow >>> 0));
      };
      // Each type met first in the run, in turn; then ids stored again, with other types, with a
      // type id of 2^32 or more, and ids beyond the run; and back into the run.
      for (let i = 0; i < entities; i++) set(5_000 + i, 1_000_000 + (i % types));
      for (let i = 0; i < entities; i += 7) set(5_000 + i, 1_000_000 + ((i * 13) % types));
      for (let i = 3; i < entities; i += 11) set(5_000 + i, 77, 1);
      for (let i = 0; i < 50; i++) set(-5 - i, 1_000_000 + (i % types));
      for (let i = 3; i < entities; i += 22) set(5_000 + i, 1_000_001 % (1_000_000 + types));
      const expected = new Map<bigint, number>();
      for (const type of last.values()) expected.set(type, (expected.get(type) ?? 0) + 1);
      const counts = new Map<bigint, number>();
      const triples = latest.counts();
      for (let i = 0; i < triples.length; i += 3) counts.set((BigInt(triples[i + 1]!) << 32n) | BigInt(triples[i]! >>> 0), (counts.get((BigInt(triples[i + 1]!) << 32n) | BigInt(triples[i]! >>> 0)) ?? 0) + triples[i + 2]!);
      expect(counts).toEqual(expected);
    }
  });

  it('are not given when not asked for', async () => {
    const plain = await Storage.open(dir);
    expect(plain.latestTypeCounts).toBeUndefined();
    await plain.close();
  });
});
