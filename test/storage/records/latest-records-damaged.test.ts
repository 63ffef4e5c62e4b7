import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forEachLatestRecord, type LatestRecord } from '../../../src/storage/records/latest-records.js';
import { Storage } from '../../../src/storage/storage.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { copyStorage } from '../../helpers/corpora/storage-copy.js';

/**
 * A data file with a record whose length field was zeroed (the storage's scan stops there) ends
 * the walk inside its chunk, and the read gives its buffers back for the next pass to read into.
 * The records before the damage still waiting for their handler must be handed over as they are
 * — a copy the handler keeps, or a view valid until its answer settles — even when the handler,
 * while it handles one, runs another pass (which takes those buffers and reads other bytes in).
 */

function text(record: LatestRecord): string {
  return `${record.objectId}:${record.typeId}:${record.file}:${record.offset}:${Buffer.from(record.content).toString('hex')}`;
}

function damagedCopy(): { dir: string; damagedAt: number } {
  const dir = copyStorage(join(CONFORMANCE_DIR, 'storages', 'collections'));
  // The record before the file's last one: its length field zeroed.
  const path = join(dir, 'channel_1', 'channel_1_1.dat');
  const data = readFileSync(path);
  let at = 0;
  const starts: number[] = [];
  while (at < data.length) {
    starts.push(at);
    at += Number(data.readBigInt64LE(at));
  }
  const damagedAt = starts.at(-2)!;
  data.fill(0, damagedAt, damagedAt + 8);
  writeFileSync(path, data);
  return { dir, damagedAt };
}

describe('latest records of a data file damaged after them', () => {
  // A handler failing in an intact file (the walk's end then ends the read too) stops the pass there.
  it('are not handed over after a handler failed', async () => {
    const { dir } = damagedCopy();
    try {
      const storage = await Storage.open(dir);
      try {
        const types = new Set(storage.dictionary.byId.keys());
        const handed: string[] = [];
        const failure = new Error('handler failed');
        const pass = forEachLatestRecord(storage, types, async (record) => {
          handed.push(text(record));
          if (record.file.endsWith('channel_0_1.dat')) throw failure;
        });
        await expect(pass).rejects.toBe(failure);
        expect(handed).toHaveLength(1);
        expect(handed[0]).toContain('channel_0_1.dat');
      } finally {
        await storage.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const borrow of [false, true]) {
    it(`are handed over as they lie while the handler runs another pass (${borrow ? 'borrowed' : 'copies'})`, async () => {
      const { dir, damagedAt } = damagedCopy();
      const other = await Storage.open(join(CONFORMANCE_DIR, 'storages', 'primitives'));
      try {
        const storage = await Storage.open(dir);
        try {
          const damaged = storage.channels[1]!.files.find((f) => f.path.endsWith('channel_1_1.dat'))!;
          expect(damaged.problem?.offset).toBe(damagedAt);
          const types = new Set(storage.dictionary.byId.keys());
          const quiet: string[] = [];
          await forEachLatestRecord(storage, types, (record) => void quiet.push(text(record)));
          const inDamaged = quiet.filter((t) => t.includes('channel_1_1.dat'));
          expect(inDamaged.length).toBeGreaterThan(2);

          const seen: string[] = [];
          let otherRecords = 0;
          await forEachLatestRecord(
            storage,
            types,
            async (record) => {
              const mine = text(record);
              // Within the damaged file's records, the first one's handler runs a pass of its own.
              if (mine.includes('channel_1_1.dat') && mine === inDamaged[0]) {
                await forEachLatestRecord(other, new Set(other.dictionary.byId.keys()), () => void otherRecords++);
              }
              seen.push(borrow ? text(record) : mine);
            },
            undefined,
            borrow,
          );
          expect(otherRecords).toBeGreaterThan(0);
          expect(seen).toEqual(quiet);
        } finally {
          await storage.close();
        }
      } finally {
        await other.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
