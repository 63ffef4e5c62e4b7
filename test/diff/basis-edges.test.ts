import { closeSync, cpSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffStorages } from '../../src/diff/storage-diff.js';
import { diff, expectSameReport, sameState, stateOf } from '../helpers/corpora/basis-pair.js';
import { Storage } from '../../src/storage/storage.js';
import { StorageWriter, type StorageWriterOptions } from '../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';
import { flipBit } from '../helpers/corpora/bit-flip.js';

/**
 * Edges of opening a copy on the first storage as its basis (basis-open.ts) and comparing only what
 * the copy appended (appended-compare.ts): in each case the report must be the whole walk's, and
 * the copy's state the whole open's, whether or not the basis was taken (storages written by Java
 * as the basis: basis-corpora.test.ts).
 */

let base: string;
let count = 0;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'si-basis-edges-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

interface Made {
  readonly dir: string;
  readonly items: bigint[];
}

/** A storage of 60 items (each with a name), stored in three commits. */
function made(options: StorageWriterOptions = {}): Made {
  const dir = join(base, `a${count++}`);
  const writer = StorageWriter.create(dir, { channelCount: 2, fileMaximumSize: 2048, ...options });
  const item = writer.defineType('shop.Item', reflectiveMembers('shop.Item', [{ name: 'name', type: 'java.lang.String' }, { name: 'qty', type: 'int' }]));
  const string = writer.dictionary.require('java.lang.String');
  const items: bigint[] = [];
  for (let round = 0; round < 3; round++) {
    const store = writer.beginStore();
    for (let i = 0; i < 20; i++) {
      const [itemId, nameId] = [writer.newObjectId(), writer.newObjectId()];
      store.add(item, itemId, [nameId, i]);
      store.add(string, nameId, [`item ${round} ${i}`]);
      items.push(itemId);
    }
    writer.store(store);
  }
  writer.close();
  return { dir, items };
}

/** A copy of `a` to which `more` committed with the writer. */
async function continued(a: Made, more: (w: StorageWriter, items: bigint[]) => void, options: StorageWriterOptions = {}): Promise<string> {
  const dir = join(base, `b${count++}`);
  cpSync(a.dir, dir, { recursive: true });
  const w = await StorageWriter.open(dir, options);
  more(w, a.items);
  w.close();
  return dir;
}

/** The data file of a channel with the highest number. */
function lastFile(dir: string, channel: number): string {
  const names = readdirSync(join(dir, `channel_${channel}`)).filter((n) => n.endsWith('.dat'));
  names.sort((x, y) => Number(x.match(/_(\d+)\.dat$/)![1]) - Number(y.match(/_(\d+)\.dat$/)![1]));
  return join(dir, `channel_${channel}`, names.at(-1)!);
}

/** The data file of a channel with the lowest number. */
function firstFile(dir: string, channel: number): string {
  const names = readdirSync(join(dir, `channel_${channel}`)).filter((n) => n.endsWith('.dat'));
  names.sort((x, y) => Number(x.match(/_(\d+)\.dat$/)![1]) - Number(y.match(/_(\d+)\.dat$/)![1]));
  return join(dir, `channel_${channel}`, names[0]!);
}

/** One bit of a file changed. */

/** Objects a storage holds. */
async function entities(dir: string): Promise<number> {
  const s = await Storage.open(dir);
  try {
    return s.entityCount;
  } finally {
    await s.close();
  }
}

/** Items `from..to` stored again with another quantity, in one commit. */
const restore = (from: number, to: number, qty: number) => (w: StorageWriter, items: bigint[]) => {
  const store = w.beginStore();
  for (let i = from; i < to; i++) store.add(w.dictionary.require('shop.Item'), items[i]!, [0n, qty + i]);
  w.store(store);
};

describe('a copy opened on the first storage: edges', () => {
  it('the very same directory: taken, nothing differs', async () => {
    const a = made();
    const report = await expectSameReport(a.dir, a.dir, true);
    expect([report.equal, report.summary.unchanged]).toEqual([true, await entities(a.dir)]);
    expect(await sameState(a.dir, a.dir)).toBe(true);
  });

  it('an id stored twice in what the copy appended, over new files: the later record counts', async () => {
    const a = made();
    const b = await continued(a, (w, items) => {
      restore(0, 30, 100)(w, items);
      restore(10, 20, 500)(w, items);
      restore(15, 16, 0)(w, items); // item 15 back to qty 15 with name 0: changed still (name)
    });
    const report = await expectSameReport(a.dir, b, true);
    expect([report.summary.changed, report.summary.unchanged]).toEqual([30, (await entities(a.dir)) - 30]);
    expect(await sameState(a.dir, b)).toBe(true);
  });

  it('changes and additions in every channel, over several files: the same objects in the same order', async () => {
    const a = made({ fileMaximumSize: 512 });
    const b = await continued(
      a,
      (w, items) => {
        const string = w.dictionary.require('java.lang.String');
        for (let round = 0; round < 3; round++) {
          const store = w.beginStore();
          // Items (one channel) and their names' ids plus one (the other channel), backwards; new Strings.
          for (let i = 59 - round; i >= 0; i -= 7) {
            store.add(w.dictionary.require('shop.Item'), items[i]!, [0n, round]);
            store.add(string, items[i]! + 1n, [`renamed ${round} ${i}`]);
          }
          for (let i = 0; i < 4; i++) store.add(string, w.newObjectId(), [`new ${round} ${i}`]);
          w.store(store);
        }
      },
      { fileMaximumSize: 512 },
    );
    const report = await expectSameReport(a.dir, b, true);
    const channels = new Set(report.objects.map((o) => BigInt(o.objectId) & 1n));
    expect(channels.size).toBe(2);
    expect(report.summary.added).toBe(12);
    for (const limit of [1, 7, 20]) await expectSameReport(a.dir, b, true, undefined, limit);
  });

  it('a commit that stored nothing: taken, the same report, the copy\'s last commit its own', async () => {
    const a = made();
    const b = await continued(a, (w) => void w.store(w.beginStore()));
    await expectSameReport(a.dir, b, true);
    expect(await sameState(a.dir, b)).toBe(true);
  });

  it('a commit that stored nothing over a full head file: a new empty file in the copy', async () => {
    const a = made({ fileMaximumSize: 256 });
    const b = await continued(a, (w) => void w.store(w.beginStore()), { fileMaximumSize: 256 });
    await expectSameReport(a.dir, b, true);
    await sameState(a.dir, b);
  });

  it('a first storage whose last files are empty, continued', async () => {
    const a = made({ fileMaximumSize: 256 });
    const w = await StorageWriter.open(a.dir, { fileMaximumSize: 256 });
    w.store(w.beginStore());
    w.close();
    const b = await continued(a, restore(0, 20, 60), { fileMaximumSize: 256 });
    await expectSameReport(a.dir, b, true);
    expect(await sameState(a.dir, b)).toBe(true);
  });

  it('chunk checksums (EclipseStore 4.2, CRC32C and chained SHA-256): taken, the same report', async () => {
    for (const checksums of ['crc32c', 'sha256'] as const) {
      const a = made({ family: 'eclipsestore', checksums });
      const b = await continued(a, restore(5, 45, 7));
      const report = await expectSameReport(a.dir, b, true);
      expect(report.summary.changed).toBe(40);
      expect(await sameState(a.dir, b)).toBe(true);
    }
  });

  it('--type with the basis: the same counts and objects per type', async () => {
    const a = made();
    const b = await continued(a, (w, items) => {
      restore(0, 12, 3)(w, items);
      const store = w.beginStore();
      store.add(w.dictionary.require('java.lang.String'), w.newObjectId(), ['new']);
      w.store(store);
    });
    for (const type of ['shop.Item', 'java.lang.String']) await expectSameReport(a.dir, b, true, [type]);
    // --limit: the same objects described first (changed in the first storage's file order, then added).
    for (const limit of [0, 1, 5, 12, 13]) {
      const report = await expectSameReport(a.dir, b, true, undefined, limit);
      expect([report.objects.length, report.unlisted]).toEqual([Math.min(limit, 13), 13 - Math.min(limit, 13)]);
    }
    await expectSameReport(a.dir, b, true, ['shop.Item'], 4);
  });

  it('the copy older than the first storage (the first is the copy that went on): opened whole', async () => {
    const a = made();
    const b = await continued(a, restore(0, 10, 3));
    await expectSameReport(b, a.dir, false);
  });

  it('a first storage with warnings (a file shorter than its log commits) is not taken as a basis', async () => {
    const a = made();
    const b = await continued(a, restore(0, 5, 9));
    const cut = join(base, `w${count++}`);
    cpSync(a.dir, cut, { recursive: true });
    const last = lastFile(cut, 0);
    truncateSync(last, statSync(last).size - 5);
    const sa = await Storage.open(cut);
    expect(sa.warnings.length).toBeGreaterThan(0);
    await sa.close();
    await expectSameReport(cut, b, false);
  });

  it('a byte changed in the middle of the file the copy grew: opened whole', async () => {
    const a = made();
    const b = await continued(a, restore(0, 30, 9));
    const path = lastFile(a.dir, 0).replace(a.dir, b);
    expect(statSync(path).size).toBeGreaterThan(statSync(lastFile(a.dir, 0)).size);
    flipBit(path, Math.floor(statSync(lastFile(a.dir, 0)).size / 2));
    await expectSameReport(a.dir, b, false);
  });

  it('a damaged record in what the copy appended: the same warnings and report as opened whole', async () => {
    const a = made();
    const b = await continued(a, restore(0, 30, 9));
    const path = lastFile(a.dir, 0).replace(a.dir, b);
    const at = statSync(lastFile(a.dir, 0)).size;
    expect(statSync(path).size).toBeGreaterThan(at + 24);
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.from([3, 0, 0, 0]), 0, 4, at); // the first appended record's length: less than a header
    closeSync(fd);
    await expectSameReport(a.dir, b, true);
    expect(await sameState(a.dir, b)).toBe(true);
  });

  it('a data file of the copy a link to the first storage\'s file (outside the copy): as the whole open answers', async () => {
    const a = made();
    const b = await continued(a, restore(0, 10, 3));
    const first = firstFile(a.dir, 1);
    rmSync(first.replace(a.dir, b));
    symlinkSync(first, first.replace(a.dir, b));
    const outcome = (onBasis: boolean) => diff(a.dir, b, onBasis).then((r) => JSON.stringify({ ...r.report, continued: r.continued }, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)), (e: unknown) => String(e));
    const whole = await outcome(false);
    expect(whole).toMatch(/outside the storage directory/);
    expect(await outcome(true)).toBe(whole);
  });

  it('only the dictionary changed in the copy (a type added, a type defined anew, no record of them): taken', async () => {
    const a = made();
    const b = await continued(a, (w) => {
      w.defineType('shop.Order', reflectiveMembers('shop.Order', [{ name: 'total', type: 'long' }]));
      w.defineType('shop.Item', reflectiveMembers('shop.Item', [{ name: 'name', type: 'java.lang.String' }, { name: 'qty', type: 'long' }]));
      w.store(w.beginStore());
    });
    const dictionary = (dir: string) => readFileSync(join(dir, 'PersistenceTypeDictionary.ptd'), 'utf8');
    expect(dictionary(b)).toContain('shop.Order');
    expect(dictionary(a.dir)).not.toContain('shop.Order');
    const report = await expectSameReport(a.dir, b, true);
    expect(report.equal).toBe(true);
    expect(await sameState(a.dir, b)).toBe(true);
  });

  it('the roots type defined anew in the copy: opened whole', async () => {
    const a = made();
    const roots = 'one.microstream.persistence.types.PersistenceRoots$Default';
    const b = await continued(a, (w, items) => {
      w.defineType(roots, reflectiveMembers(roots, [{ name: 'other', type: 'int' }]));
      restore(0, 5, 1)(w, items);
    });
    await expectSameReport(a.dir, b, false);
  });

  it('data files the copy\'s log does not name, after the last one: the same warnings, state and report', async () => {
    const a = made();
    const b = await continued(a, restore(0, 30, 9));
    const last = lastFile(b, 0);
    const number = Number(last.match(/_(\d+)\.dat$/)![1]);
    cpSync(last, last.replace(/_\d+\.dat$/, `_${number + 1}.dat`)); // read at its full size (not the highest)
    cpSync(last, last.replace(/_\d+\.dat$/, `_${number + 2}.dat`)); // the highest: nothing of it committed
    const sb = await Storage.open(b);
    expect(sb.warnings.filter((w) => w.includes('not in the transaction log')).length).toBe(2);
    await sb.close();
    const report = await expectSameReport(a.dir, b, true);
    expect(report.summary.changed).toBe(30);
    expect(await sameState(a.dir, b)).toBe(true);
  });

  it('another channel count: opened whole', async () => {
    const a = made();
    const other = made({ channelCount: 1 });
    await expectSameReport(a.dir, other.dir, false);
  });

  it('the first storage refreshed after the copy was opened on it: the copy keeps its own state, the diff walks whole', async () => {
    const a = made();
    const b = await continued(a, restore(0, 10, 40));
    const sa = await Storage.open(a.dir, { countLatestTypes: true });
    const sb = await Storage.open(b, { basis: sa });
    const wholeB = await Storage.open(b);
    try {
      expect(sb.basisOpening).toBeDefined();
      const before = stateOf(sb);
      // More committed to the first storage, taken over by it (as a follower does).
      const w = await StorageWriter.open(a.dir);
      restore(20, 50, 900)(w, a.items);
      w.close();
      expect((await sa.refresh()).changed).toBe(true);
      expect(sa.latestTypeCounts).toBeUndefined();
      expect(stateOf(sb)).toEqual(before);
      expect(stateOf(sb)).toEqual(stateOf(wholeB));
      const report = await diffStorages(sa, sb, { limit: 10_000 });
      const reference = await diffStorages(sa, wholeB, { limit: 10_000 });
      expect(report).toEqual(reference);
      expect(report.summary.changed).toBe(40);
      // Closing the first storage leaves the copy readable (its own files, its own tables).
      await sa.close();
      expect(Buffer.from((await sb.readEntity(a.items[3]!))!.content).readInt32LE(8)).toBe(43);
      expect(Buffer.from((await sb.readEntity(a.items[30]!))!.content).readInt32LE(8)).toBe(10);
    } finally {
      await Promise.all([sa.close(), sb.close(), wholeB.close()]);
    }
  });

  it('the copy refreshed after it was opened: the first storage keeps its own state', async () => {
    const a = made();
    const b = await continued(a, restore(0, 10, 40));
    const sa = await Storage.open(a.dir, { countLatestTypes: true });
    const sb = await Storage.open(b, { basis: sa });
    try {
      const before = stateOf(sa);
      const w = await StorageWriter.open(b);
      restore(20, 50, 900)(w, a.items);
      w.close();
      expect((await sb.refresh()).changed).toBe(true);
      expect(sb.basisOpening).toBeUndefined();
      expect(stateOf(sa)).toEqual(before);
      expect(Buffer.from((await sa.readEntity(a.items[30]!))!.content).readInt32LE(8)).toBe(10);
      const whole = await Storage.open(b);
      try {
        expect(await diffStorages(sa, sb, { limit: 10_000 })).toEqual(await diffStorages(sa, whole, { limit: 10_000 }));
      } finally {
        await whole.close();
      }
      // Closing the copy first leaves the first storage readable.
      await sb.close();
      expect(Buffer.from((await sa.readEntity(a.items[3]!))!.content).readInt32LE(8)).toBe(3);
    } finally {
      await Promise.all([sb.close(), sa.close()]);
    }
  });

  it('new files numbered after a gap: taken, the same report', async () => {
    const a = made();
    const b = await continued(
      a,
      (w, items) => {
        for (let k = 0; k < 6; k++) restore(k * 10, k * 10 + 10, 200 * k)(w, items);
      },
      { fileMaximumSize: 256 },
    );
    const numbers = (dir: string) => readdirSync(join(dir, 'channel_0')).filter((n) => n.endsWith('.dat')).length;
    expect(numbers(b)).toBeGreaterThan(numbers(a.dir));
    await expectSameReport(a.dir, b, true);
    expect(await sameState(a.dir, b)).toBe(true);
  });
});
