import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffStorages, type DiffReport } from '../../src/diff/storage-diff.js';
import { Storage } from '../../src/storage/storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';
import { flipBit } from '../helpers/corpora/bit-flip.js';

/**
 * A copy to which the writer committed more (updates, the same bytes stored again, new objects, a
 * type changed): opened on the first storage as its basis, only what the copy appended is indexed
 * and compared. The report must be the one the whole walk gives, in the same order; where the copy
 * does not continue the first storage (a byte of the shared part changed, a file removed, a file
 * cut short), the copy is opened whole and the report is again the whole walk's.
 */

const ITEMS = 300;
const ROUNDS = 5;

let base: string;
let before: string;
let after: string;
const itemIds: bigint[] = [];
const nameIds: bigint[] = [];

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'si-diff-appended-'));
  before = join(base, 'before');
  after = join(base, 'after');
  const writer = StorageWriter.create(before, { channelCount: 2, fileMaximumSize: 4096 });
  const item = writer.defineType('shop.Item', reflectiveMembers('shop.Item', [{ name: 'name', type: 'java.lang.String' }, { name: 'qty', type: 'int' }]));
  const string = writer.dictionary.require('java.lang.String');
  for (let round = 0; round < ROUNDS; round++) {
    const store = writer.beginStore();
    for (let i = 0; i < ITEMS / ROUNDS; i++) {
      const [itemId, nameId] = [writer.newObjectId(), writer.newObjectId()];
      store.add(item, itemId, [nameId, i]);
      store.add(string, nameId, [`item ${round} ${i}`]);
      itemIds.push(itemId);
      nameIds.push(nameId);
    }
    // Some of the first round's items stored again (superseded records in the first storage).
    if (round > 0) for (let i = 0; i < 20; i++) store.add(item, itemIds[i]!, [0n, round]);
    writer.store(store);
  }
  writer.close();

  cpSync(before, after, { recursive: true });
  const w = await StorageWriter.open(after);
  const itemType = w.dictionary.require('shop.Item');
  const first = w.beginStore();
  for (let i = 0; i < ITEMS; i += 10) first.add(itemType, itemIds[i]!, [0n, 1000 + i]); // changed
  first.add(itemType, itemIds[25]!, [nameIds[25]!, 25]); // the same bytes stored again: unchanged
  w.store(first);
  const second = w.beginStore();
  for (let i = 0; i < 40; i++) second.add(w.dictionary.require('java.lang.String'), w.newObjectId(), [`new ${i}`]); // added
  const itemV2 = w.defineType('shop.Item', reflectiveMembers('shop.Item', [{ name: 'name', type: 'java.lang.String' }, { name: 'qty', type: 'int' }, { name: 'archived', type: 'boolean' }]));
  second.add(itemV2, itemIds[7]!, [0n, 7, true]); // a type changed
  w.store(second);
  w.close();
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** The report of A against B, B opened whole or on A as its basis; whether B continued A. */
async function diff(a: string, b: string, onBasis: boolean, typeNames?: string[]): Promise<{ report: DiffReport; continued: boolean }> {
  const sa = await Storage.open(a, { countLatestTypes: onBasis });
  try {
    const sb = await Storage.open(b, onBasis ? { basis: sa } : {});
    try {
      const report = await diffStorages(sa, sb, { limit: 10_000, ...(typeNames === undefined ? {} : { typeNames }) });
      return { report, continued: sb.basisOpening !== undefined };
    } finally {
      await sb.close();
    }
  } finally {
    await sa.close();
  }
}

/** A copy of `after` changed by `change` (given the copy's directory). */
function variant(name: string, change: (dir: string) => void): string {
  const dir = join(base, name);
  cpSync(after, dir, { recursive: true });
  change(dir);
  return dir;
}

/** A data file of channel 0 that the first storage committed whole (not its last). */
function earlyFile(dir: string): string {
  const names = readdirSync(join(dir, 'channel_0')).filter((n) => n.endsWith('.dat'));
  names.sort((x, y) => Number(x.match(/_(\d+)\.dat$/)![1]) - Number(y.match(/_(\d+)\.dat$/)![1]));
  expect(names.length).toBeGreaterThan(2);
  return join(dir, 'channel_0', names[1]!);
}

describe('diff of a storage and a copy that went on', () => {
  it('opens the copy on the first storage and reports what the whole walk reports, in the same order', async () => {
    const whole = await diff(before, after, false);
    const continued = await diff(before, after, true);
    expect(whole.continued).toBe(false);
    expect(continued.continued).toBe(true);
    expect(continued.report).toEqual(whole.report);
    const { summary } = whole.report;
    expect([summary.changed, summary.added, summary.removed]).toEqual([ITEMS / 10 + 1, 40, 0]); // and item 7's new type
    expect(whole.report.typeChanges.map((t) => t.typeName)).toEqual(['shop.Item']);
  });

  it('gives the same report for one type', async () => {
    for (const type of ['shop.Item', 'java.lang.String']) {
      const continued = await diff(before, after, true, [type]);
      expect(continued.continued).toBe(true);
      expect(continued.report).toEqual((await diff(before, after, false, [type])).report);
    }
  });

  it('indexes the copy as a whole open does', async () => {
    const sa = await Storage.open(before);
    const progress: number[][] = [];
    const onBasis = await Storage.open(after, { basis: sa, onProgress: (p) => void progress.push([p.bytesDone, p.bytesTotal]) });
    const whole = await Storage.open(after);
    try {
      expect(onBasis.basisOpening).toBeDefined();
      // Progress while the shared bytes are compared (both sides' bytes), up to all of them.
      const shared = 2 * sa.channels.reduce((n, c) => n + c.files.reduce((m, f) => m + f.totalLength, 0), 0);
      const compared = progress.filter(([, total]) => total === shared);
      expect(compared.at(-1)).toEqual([shared, shared]);
      const entries = (s: Storage): string[] => {
        const out: string[] = [];
        for (const channel of s.channels) channel.objects.forEach((low, high, slot, offset, length) => void out.push(`${low}/${high} ${channel.fileAt(slot)!.path}@${offset}+${length}`));
        return out.sort();
      };
      expect(entries(onBasis)).toEqual(entries(whole));
      const files = (s: Storage) => s.channels.map((c) => c.files.map((f) => [f.path, f.totalLength, f.liveLength, f.metaLength]));
      expect(files(onBasis)).toEqual(files(whole));
      expect([onBasis.rootObjectId, onBasis.lastCommitTimestamp, onBasis.entityCount, onBasis.warnings]).toEqual([whole.rootObjectId, whole.lastCommitTimestamp, whole.entityCount, whole.warnings]);
      // The first storage's records of the objects the copy stored again, taken while the shared bytes were compared.
      const replaced = onBasis.basisOpening!.replaced;
      expect(replaced.count).toBe(ITEMS / 10 + 2); // every 10th item, item 25 (the same bytes) and item 7 (new type)
      for (let i = 0; i < replaced.count; i++) {
        const file = sa.channels[replaced.channel(i)]!.fileAt(replaced.slot(i))!;
        const length = replaced.held(i)!.length;
        expect(replaced.held(i)).toEqual(await sa.readFileRange(file.path, replaced.offset(i), length));
        expect(sa.channels[replaced.channel(i)]!.objects.isLatest(replaced.held(i)!.readInt32LE(16), replaced.held(i)!.readInt32LE(20), file.slot, replaced.offset(i))).toBe(true);
      }
      // The first storage's index is its own still.
      expect(Buffer.from((await sa.readEntity(itemIds[30]!))!.content).readInt32LE(8)).toBe(30);
      expect(Buffer.from((await onBasis.readEntity(itemIds[30]!))!.content).readInt32LE(8)).toBe(1030);
    } finally {
      await sa.close();
      await onBasis.close();
      await whole.close();
    }
  });

  const fallbacks: [string, (dir: string) => void][] = [
    [
      'a byte of the shared part changed',
      (dir) => {
        const path = earlyFile(dir);
        flipBit(path, statSync(path).size - 3); // inside the last record's value
      },
    ],
    ['a file cut short', (dir) => truncateSync(earlyFile(dir), statSync(earlyFile(dir)).size - 10)],
  ];
  for (const [name, change] of fallbacks) {
    it(`opens the copy whole where ${name}, with the whole walk's report`, async () => {
      const dir = variant(name.replaceAll(' ', '-'), change);
      const whole = await diff(before, dir, false);
      const continued = await diff(before, dir, true);
      expect(continued.continued).toBe(false);
      expect(continued.report).toEqual(whole.report);
    });
  }

  it('reports an id whose latest records the copy appended in two channels (a damaged copy) once for each, in the copy\'s file order', async () => {
    // Ids belong to one channel (id & (channels - 1)); a damaged copy may hold one in another
    // channel's file too. Each of the copy's records then has the same record of the first storage,
    // and both are reported, as before (a sort that assumed no two alike lost one and then failed).
    const a = join(base, 'one-id-two-channels-a');
    const w = StorageWriter.create(a, { channelCount: 2 });
    const type = w.defineType('shop.Item', reflectiveMembers('shop.Item', [{ name: 'qty', type: 'int' }]));
    const ids = [w.newObjectId(), w.newObjectId(), w.newObjectId()];
    const store = w.beginStore();
    ids.forEach((id, i) => store.add(type, id, [i]));
    w.store(store);
    w.close();
    const b = join(base, 'one-id-two-channels-b');
    cpSync(a, b, { recursive: true });
    const v = await StorageWriter.open(b);
    const even = ids.find((id) => (id & 1n) === 0n)!;
    const odd = v.newObjectId() | 1n;
    const more = v.beginStore();
    more.add(v.dictionary.require('shop.Item'), even, [100]);
    more.add(v.dictionary.require('shop.Item'), odd, [200]); // a new object of channel 1, then given the even id
    v.store(more);
    v.close();
    const names = readdirSync(join(b, 'channel_1')).filter((n) => n.endsWith('.dat'));
    const path = join(b, 'channel_1', names.sort((x, y) => Number(x.match(/_(\d+)\.dat$/)![1]) - Number(y.match(/_(\d+)\.dat$/)![1])).at(-1)!);
    const bytes = readFileSync(path);
    const [oddBytes, evenBytes] = [Buffer.alloc(8), Buffer.alloc(8)];
    oddBytes.writeBigInt64LE(odd);
    evenBytes.writeBigInt64LE(even);
    const at = bytes.lastIndexOf(oddBytes);
    expect(at).toBeGreaterThan(0);
    evenBytes.copy(bytes, at);
    writeFileSync(path, bytes);

    const continued = await diff(a, b, true);
    expect(continued.continued).toBe(true);
    expect(continued.report.objects).toEqual([
      { change: 'changed', objectId: String(even), typeName: 'shop.Item', members: [{ member: 'qty', before: ids.indexOf(even), after: 100 }] },
      { change: 'changed', objectId: String(even), typeName: 'shop.Item', members: [{ member: 'qty', before: ids.indexOf(even), after: 200 }] },
    ]);
  });

  it('fails as the whole open does where a file the log still commits was removed', async () => {
    const dir = variant('a-file-removed', (d) => rmSync(earlyFile(d)));
    const whole = await diff(before, dir, false).then(() => 'opened', (e: unknown) => String(e));
    expect(whole).toMatch(/data file not found: channel 0, file 2/);
    expect(await diff(before, dir, true).then(() => 'opened', (e: unknown) => String(e))).toBe(whole);
  });

  // The appended bytes are read whole and walked in place (appended-compare.ts walkHeld): a file
  // cut after the copy was opened must fail as the record stream fails on it.
  for (const [name, kept] of [
    ['inside the first appended record', 12],
    ['inside its header', 5],
  ] as const) {
    it(`a file the copy appended to, cut ${name} after the copy was opened: the record stream's error`, async () => {
      const dir = variant(`cut-after-open-${kept}`, () => undefined);
      const sa = await Storage.open(before, { countLatestTypes: true });
      try {
        const sb = await Storage.open(dir, { basis: sa });
        try {
          const opening = sb.basisOpening!;
          expect(opening).toBeDefined();
          const grown = sb.channels.flatMap((c) => c.files.map((file) => ({ file, from: opening.appendedFrom[c.index]?.[file.slot] ?? 0 }))).find((g) => g.from > 0 && g.from < g.file.totalLength)!;
          expect(grown).toBeDefined();
          truncateSync(grown.file.path, grown.from + kept);
          const failure = await diffStorages(sa, sb, { limit: 10_000 }).then(() => 'compared', (e: unknown) => (e as Error).message);
          expect(failure).toBe(`${grown.file.path}: the file ends inside the record at ${grown.from}`);
        } finally {
          await sb.close();
        }
      } finally {
        await sa.close();
      }
    });
  }
});
