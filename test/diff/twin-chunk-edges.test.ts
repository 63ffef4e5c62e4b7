import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffStorages, type ObjectChange } from '../../src/diff/storage-diff.js';
import { Storage } from '../../src/storage/storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { flipBit } from '../helpers/corpora/bit-flip.js';

/**
 * Where a copy holds A's records at the same places, its file is read alongside A's walk in the
 * source's sequential chunks (8 MiB); a record that runs across the end of one of B's chunks is
 * compared through B's index instead. A file of several chunks with a changed record across each
 * chunk border, and changed records right before and after one: exactly those are reported.
 */

const CHUNK = 8 * 1024 * 1024;
const STRINGS = 12_000;

let base: string;
let before: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'si-diff-twin-chunks-'));
  before = join(base, 'before');
  const writer = StorageWriter.create(before);
  const string = writer.dictionary.require('java.lang.String');
  const store = writer.beginStore();
  // About 1.4 KB per record, 17 MB in all: the one file spans three chunks.
  for (let i = 0; i < STRINGS; i++) store.add(string, writer.newObjectId(), [`${i} `.padEnd(700, 'abcdefghij')]);
  writer.store(store);
  writer.close();
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

interface Placed {
  readonly id: bigint;
  readonly path: string;
  readonly offset: number;
  readonly length: number;
}

/** Every object's latest record, in file order. */
async function records(dir: string): Promise<Placed[]> {
  const storage = await Storage.open(dir);
  try {
    const out: Placed[] = [];
    for (const channel of storage.channels) {
      channel.objects.forEach((low, high, fileSlot, offset, length) => {
        out.push({ id: (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0), path: channel.fileAt(fileSlot)!.path, offset, length });
      });
    }
    return out.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : x.offset - y.offset));
  } finally {
    await storage.close();
  }
}

/** A copy with the last character of the given records changed in place. */
function copyWithChanged(name: string, changed: readonly Placed[]): string {
  const dir = join(base, name);
  cpSync(before, dir, { recursive: true });
  for (const r of changed) {
    const path = join(dir, r.path.slice(before.length));
    flipBit(path, r.offset + r.length - 2);
  }
  return dir;
}

describe('a copy read in chunks beside the walk', () => {
  it('finds changed records across, before and after the borders of its chunks', async () => {
    const all = await records(before);
    const across = all.filter((r) => Math.floor(r.offset / CHUNK) !== Math.floor((r.offset + r.length - 1) / CHUNK));
    expect(across.length).toBe(2); // the file spans three chunks
    const first = all.indexOf(across[0]!);
    const changed = [...across, all[first - 1]!, all[first + 1]!];
    const a = await Storage.open(before);
    const b = await Storage.open(copyWithChanged('after', changed));
    try {
      const objects: ObjectChange[] = [];
      const report = await diffStorages(a, b, { limit: 100, onObject: (o) => void objects.push(o) });
      expect(objects.map((o) => o.objectId).sort()).toEqual(changed.map((r) => String(r.id)).sort());
      expect([report.summary.changed, report.summary.unchanged]).toEqual([4, STRINGS - 4 + (a.entityCount - STRINGS)]);
      // Unchanged across a border too.
      const c = await Storage.open(copyWithChanged('untouched', []));
      try {
        const same = await diffStorages(a, c, { limit: 100 });
        expect([same.equal, same.summary.unchanged]).toEqual([true, a.entityCount]);
      } finally {
        await c.close();
      }
    } finally {
      await a.close();
      await b.close();
    }
  });
});
