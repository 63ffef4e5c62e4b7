import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareAppended } from '../../src/diff/appended-compare.js';
import type { RecordCounts } from '../../src/diff/compare-records.js';
import { Storage } from '../../src/storage/storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';

/**
 * A copy whose appended bytes are more than the comparison keeps in memory (appended-compare.ts,
 * the streamed path; its limit made small here): only B's latest appended records take room among
 * the held bytes. A record the copy stored again later in its appended part is never asked for;
 * held, it would push a latest record out, to be read again from the copy's files.
 */

const ITEMS = 60;
let base: string;
let before: string;
let after: string;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'si-diff-held-'));
  before = join(base, 'before');
  after = join(base, 'after');
  const writer = StorageWriter.create(before, { channelCount: 2, fileMaximumSize: 4096 });
  const item = writer.defineType('shop.Item', reflectiveMembers('shop.Item', [{ name: 'label', type: 'java.lang.String' }, { name: 'qty', type: 'int' }]));
  const ids: bigint[] = [];
  const store = writer.beginStore();
  for (let i = 0; i < ITEMS; i++) {
    ids.push(writer.newObjectId());
    store.add(item, ids[i]!, [0n, i]);
  }
  writer.store(store);
  writer.close();

  cpSync(before, after, { recursive: true });
  const w = await StorageWriter.open(after);
  const itemType = w.dictionary.require('shop.Item');
  // Every item changed twice: the first change is superseded inside the appended part.
  for (const round of [1, 2]) {
    const again = w.beginStore();
    for (let i = 0; i < ITEMS; i++) again.add(itemType, ids[i]!, [0n, 1000 * round + i]);
    w.store(again);
  }
  const added = w.beginStore();
  for (let i = 0; i < 10; i++) added.add(itemType, w.newObjectId(), [0n, -i]);
  w.store(added);
  w.close();
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

function plain(counts: RecordCounts): unknown {
  const sorted = (m: Map<unknown, number>) => [...m].map(([k, v]) => [String(k), v]).sort();
  return { unchanged: sorted(counts.unchanged), removed: sorted(counts.removed), changed: sorted(counts.changed), added: sorted(counts.added) };
}

describe('the appended comparison beyond its held bytes', () => {
  it('keeps only latest records: none read again from the copy when they fit, the counts as read whole', async () => {
    const sa = await Storage.open(before, { countLatestTypes: true });
    try {
      const sb = await Storage.open(after, { basis: sa });
      try {
        const opening = sb.basisOpening!;
        expect(opening).toBeDefined();
        let appended = 0;
        for (const channel of sb.channels) {
          for (const file of channel.files) appended += file.totalLength - (opening.appendedFrom[channel.index]?.[file.slot] ?? 0);
        }
        const options = { sameFiles: false, onDifference: () => undefined };
        const whole = await compareAppended(sa, sb, options);

        // Reads of the copy's records one by one (its appended bytes are walked through `chunks`).
        const reads: string[] = [];
        const source = sb.source as { read: (...args: never[]) => unknown };
        const read = source.read.bind(sb.source);
        source.read = (...args: never[]) => {
          reads.push(String(args[0]));
          return read(...args);
        };
        // One byte short of all appended bytes: the streamed path, with room for every latest record
        // (half of the appended records are superseded).
        const streamed = await compareAppended(sa, sb, options, appended - 1);
        expect(plain(streamed)).toEqual(plain(whole));
        expect([...streamed.changed.values()].reduce((n, v) => n + v, 0)).toBe(ITEMS);
        expect([...streamed.added.values()].reduce((n, v) => n + v, 0)).toBe(10);
        expect(reads).toEqual([]);
      } finally {
        await sb.close();
      }
    } finally {
      await sa.close();
    }
  });
});
