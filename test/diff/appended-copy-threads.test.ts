import { closeSync, cpSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync, symlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffStorages } from '../../src/diff/storage-diff.js';
import { IndexWorkerPool } from '../../src/storage/index/index-workers.js';
import { comparePrefixTask, type PrefixTask } from '../../src/storage/index/prefix-compare.js';
import { SharedIndexWorkers } from '../../src/storage/index/shared-index-workers.js';
import { Storage } from '../../src/storage/storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';

/**
 * A copy opened on the first storage as its basis where index threads are running (a diff's: they
 * indexed the first storage): the bytes both share are compared in those threads, one file pair a
 * request, and the first storage's replaced records taken there. The copy's state, the records
 * taken and the report must be the ones the comparison on the opening thread gives; a copy that
 * differs in a shared byte, or whose file links out of its directory, is opened whole.
 */

const ITEMS = 400;

let base: string;
let before: string;
let after: string;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'si-diff-threads-'));
  before = join(base, 'before');
  after = join(base, 'after');
  const writer = StorageWriter.create(before, { channelCount: 2, fileMaximumSize: 4096 });
  const item = writer.defineType('shop.Item', reflectiveMembers('shop.Item', [{ name: 'name', type: 'java.lang.String' }, { name: 'qty', type: 'int' }]));
  const string = writer.dictionary.require('java.lang.String');
  const ids: bigint[] = [];
  for (let round = 0; round < 4; round++) {
    const store = writer.beginStore();
    for (let i = 0; i < ITEMS / 4; i++) {
      const [itemId, nameId] = [writer.newObjectId(), writer.newObjectId()];
      store.add(item, itemId, [nameId, i]);
      store.add(string, nameId, [`item ${round} ${i}`]);
      ids.push(itemId);
    }
    writer.store(store);
  }
  writer.close();
  cpSync(before, after, { recursive: true });
  const w = await StorageWriter.open(after);
  const store = w.beginStore();
  for (let i = 0; i < ids.length; i += 7) store.add(w.dictionary.require('shop.Item'), ids[i]!, [0n, 1000 + i]); // changed, over every file
  for (let i = 0; i < 30; i++) store.add(w.dictionary.require('java.lang.String'), w.newObjectId(), [`new ${i}`]); // added
  w.store(store);
  w.close();
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const json = (value: unknown): string => JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

/** Opens A (in index threads when `workers`) and B on it; what B's opening took, and the report. */
async function openPair(a: string, b: string, workers: SharedIndexWorkers | undefined) {
  const sa = await Storage.open(a, { countLatestTypes: true, ...(workers === undefined ? {} : { indexThreads: 2, indexWorkers: workers }) });
  try {
    const sb = await Storage.open(b, { basis: sa, ...(workers === undefined ? {} : { indexWorkers: workers }) });
    try {
      const replaced = sb.basisOpening?.replaced;
      const taken = replaced === undefined ? [] : Array.from({ length: replaced.count }, (_, i) => [replaced.channel(i), replaced.slot(i), replaced.offset(i), replaced.held(i)?.toString('hex')]);
      const report = await diffStorages(sa, sb, { limit: 10_000 });
      return { continued: sb.basisOpening !== undefined, taken, report: json(report) };
    } finally {
      await sb.close();
    }
  } finally {
    await sa.close();
  }
}

/** The threads lent for the comparison, counted (the real threads answer). */
function counted(workers: SharedIndexWorkers): { readonly lent: () => number } {
  let n = 0;
  const lendRunning = workers.lendRunning.bind(workers);
  workers.lendRunning = () => {
    const lent = lendRunning();
    if (lent !== undefined) n++;
    return lent;
  };
  return { lent: () => n };
}

describe('the shared bytes compared in the index threads', () => {
  it('takes the same records and gives the same report as the comparison on the opening thread', async () => {
    const workers = new SharedIndexWorkers();
    const seen = counted(workers);
    try {
      const inThreads = await openPair(before, after, workers);
      expect(seen.lent()).toBe(1);
      const here = await openPair(before, after, undefined);
      expect(inThreads.continued).toBe(true);
      expect(here.continued).toBe(true);
      expect(inThreads.taken.length).toBeGreaterThan(50);
      expect(inThreads.taken.filter((t) => t[3] === undefined)).toEqual([]);
      expect(inThreads.taken).toEqual(here.taken);
      expect(inThreads.report).toBe(here.report);
      expect(JSON.parse(inThreads.report).summary.changed).toBe(Math.ceil(ITEMS / 7));
    } finally {
      await workers.close();
    }
  });

  it('opens whole a copy whose shared bytes differ in one file, with the whole walk report', async () => {
    const changed = join(base, 'changed');
    cpSync(after, changed, { recursive: true });
    const channel = join(changed, 'channel_1');
    const file = join(channel, readdirSync(channel).filter((f) => f.endsWith('.dat')).sort()[1]!);
    const fd = openSync(file, 'r+');
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, 100);
    byte[0] = byte[0]! ^ 0xff;
    writeSync(fd, byte, 0, 1, 100);
    closeSync(fd);
    const workers = new SharedIndexWorkers();
    const seen = counted(workers);
    try {
      const inThreads = await openPair(before, changed, workers);
      expect(seen.lent()).toBe(1);
      const here = await openPair(before, changed, undefined);
      expect(inThreads.continued).toBe(false);
      expect(here.continued).toBe(false);
      expect(inThreads.report).toBe(here.report);
    } finally {
      await workers.close();
    }
  });

  it('opens whole a copy whose data file links out of its directory, as the comparison here does', async () => {
    const linked = join(base, 'linked');
    cpSync(after, linked, { recursive: true });
    const channel = join(linked, 'channel_0');
    const name = readdirSync(channel).filter((f) => f.endsWith('.dat')).sort()[0]!;
    rmSync(join(channel, name));
    symlinkSync(join(before, 'channel_0', name), join(channel, name));
    const outcome = async (workers: SharedIndexWorkers | undefined) => openPair(before, linked, workers).then((r) => json(r), (e: unknown) => String(e));
    const workers = new SharedIndexWorkers();
    try {
      const inThreads = await outcome(workers);
      expect(inThreads).toMatch(/outside the storage directory/);
      expect(inThreads).toBe(await outcome(undefined));
    } finally {
      await workers.close();
    }
  });

  it('an index thread answers a file pair as the opening thread does: the same, or not, and the records taken', async () => {
    const channel = join(before, 'channel_0');
    const names = readdirSync(channel).filter((f) => f.endsWith('.dat')).sort();
    const tasks: PrefixTask[] = names.map((name, k) => {
      const a = join(channel, name);
      const length = statSync(a).size;
      // Offsets of records the thread reads: each file's first record, and every record header found in it.
      return { pair: { channel: 0, slot: k, a, b: join(after, 'channel_0', name), length }, offsets: new Float64Array(recordOffsets(a)) };
    });
    tasks.push({ ...tasks[0]!, pair: { ...tasks[0]!.pair, b: join(after, 'channel_1', readdirSync(join(after, 'channel_1')).filter((f) => f.endsWith('.dat')).sort()[0]!) } });
    const pool = new IndexWorkerPool(2);
    try {
      const answers: unknown[] = [];
      await pool.comparePrefixes(tasks, (k, result) => {
        answers[k] = { same: result.same, taken: [...result.taken.lengths].map((n, i) => (n === 0 ? null : Buffer.from(result.taken.bytes.subarray(result.taken.starts[i]!, result.taken.starts[i]! + n)).toString('hex'))) };
        return true;
      });
      const here = tasks.map((task) => {
        const result = comparePrefixTask(task);
        return { same: result.same, taken: [...result.taken.lengths].map((n, i) => (n === 0 ? null : Buffer.from(result.taken.bytes.subarray(result.taken.starts[i]!, result.taken.starts[i]! + n)).toString('hex'))) };
      });
      expect(answers).toEqual(here);
      expect(here.map((h) => h.same)).toEqual([...names.map(() => true), false]);
      expect(here[0]!.taken.filter((t) => t !== null).length).toBeGreaterThan(3);
    } finally {
      await pool.close();
    }
  });
});

/** Where each record of a data file begins (a record starts with its length, 8 bytes). */
function recordOffsets(path: string): number[] {
  const fd = openSync(path, 'r');
  try {
    const size = statSync(path).size;
    const bytes = Buffer.alloc(size);
    readSync(fd, bytes, 0, size, 0);
    const offsets: number[] = [];
    for (let at = 0; at + 8 <= size; ) {
      offsets.push(at);
      const length = Number(bytes.readBigInt64LE(at));
      if (length <= 0) break;
      at += length;
    }
    return offsets;
  } finally {
    closeSync(fd);
  }
}
