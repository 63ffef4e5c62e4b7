import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffStorages, type ObjectChange } from '../../src/diff/storage-diff.js';
import { Storage } from '../../src/storage/storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { flipBit } from '../helpers/corpora/bit-flip.js';

/**
 * The diff compares a copy's files a block at a time where records lie at the same places, and
 * falls back to record by record where a block differs: a character changed in place (same
 * length, same offset of the same file) among thousands of unchanged records is found, exactly
 * that object and nothing else, wherever in a block it lies (first record, middle, last).
 */

const STRINGS = 6000;

let base: string;
let before: string;
let ids: bigint[];

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'si-diff-in-place-'));
  before = join(base, 'before');
  const writer = StorageWriter.create(before);
  const string = writer.dictionary.require('java.lang.String');
  const store = writer.beginStore();
  ids = [];
  for (let i = 0; i < STRINGS; i++) {
    const id = writer.newObjectId();
    ids.push(id);
    store.add(string, id, [`text number ${i} of the storage`]);
  }
  writer.store(store);
  writer.close();
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A copy with the last character of each named String's record changed in its file, in place. */
async function copyWithChanged(name: string, changed: readonly bigint[]): Promise<string> {
  const dir = join(base, name);
  cpSync(before, dir, { recursive: true });
  const storage = await Storage.open(dir);
  try {
    for (const id of changed) {
      const channel = storage.channels[Number(id & BigInt(storage.channels.length - 1))]!;
      const location = channel.objects.get(id)!;
      flipBit(channel.fileAt(location.fileSlot)!.path, location.offset + location.length - 2);
    }
  } finally {
    await storage.close();
  }
  return dir;
}

describe('a diff of a copy changed in place', () => {
  it('reports exactly the changed objects, and a copy left alone is equal', async () => {
    // The first object, a few in the middle (some next to each other), the last.
    const changed = [ids[0]!, ids[1000]!, ids[1001]!, ids[3333]!, ids[STRINGS - 1]!];
    const after = await copyWithChanged('after', changed);
    const untouched = await copyWithChanged('untouched', []);
    const a = await Storage.open(before);
    const b = await Storage.open(after);
    const c = await Storage.open(untouched);
    try {
      const objects: ObjectChange[] = [];
      const report = await diffStorages(a, b, { limit: 100, onObject: (o) => void objects.push(o) });
      expect(objects.map((o) => `${o.change} ${o.objectId}`).sort()).toEqual(changed.map((id) => `changed ${id}`).sort());
      expect([report.summary.changed, report.summary.unchanged, report.summary.added, report.summary.removed]).toEqual([5, a.entityCount - 5, 0, 0]);
      const same = await diffStorages(a, c, { limit: 100 });
      expect([same.equal, same.summary.unchanged]).toEqual([true, a.entityCount]);
    } finally {
      await a.close();
      await b.close();
      await c.close();
    }
  });
});
