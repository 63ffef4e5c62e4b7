import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffStorages } from '../../src/diff/storage-diff.js';
import { comparePrefixes, ReplacedRecords, type SharedFile } from '../../src/storage/basis-open.js';
import { IndexWorkerPool } from '../../src/storage/index/index-workers.js';
import { SharedIndexWorkers } from '../../src/storage/index/shared-index-workers.js';
import { Storage } from '../../src/storage/storage.js';
import type { OpenProgress } from '../../src/storage/storage-types.js';
import { flipBit } from '../helpers/corpora/bit-flip.js';
import { writeItemRounds } from '../helpers/corpora/item-rounds.js';

/**
 * The prefix comparison of a copy opened on the first storage in the index threads (a file per
 * thread at a time, as the diff command opens its sides) against the same comparison in the opening
 * thread: the same replaced records held, the same report; a difference found by a thread in a
 * later file, or a file gone, answered as comparing the files in turn finds it (the first in order).
 */

const FILE_SIZE = 400_000;
const ITEMS = 16_000;
let base: string;
let a: string;
let b: string;
let count = 0;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'si-basis-threads-'));
  a = join(base, 'a');
  b = join(base, 'b');
  // Every fifth item stored again: replaced records in every file of the first storage.
  await writeItemRounds(a, b, { fileSize: FILE_SIZE, count: ITEMS, filler: (i) => 'y'.repeat(i % 29) }, (w, store, { items, names }) => {
    for (let i = 0; i < items.length; i += 5) store.add(w.dictionary.require('shop.Item'), items[i]!, [names[i]!, -i]);
  });
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

function dataFiles(dir: string): string[] {
  const names = readdirSync(join(dir, 'channel_0')).filter((n) => n.endsWith('.dat'));
  names.sort((x, y) => Number(x.match(/_(\d+)\.dat$/)![1]) - Number(y.match(/_(\d+)\.dat$/)![1]));
  return names.map((n) => join(dir, 'channel_0', n));
}

/** A copy of `b`, changed by `change` (given its data files). */
function copyOfB(change: (files: string[]) => void): string {
  const dir = join(base, `copy${count++}`);
  cpSync(b, dir, { recursive: true });
  change(dataFiles(dir));
  return dir;
}

/** The pairs of A's files and `dir`'s, every byte of A's. */
function pairsWith(dir: string): SharedFile[] {
  return dataFiles(a).map((path, slot) => ({ channel: 0, slot, a: path, b: join(dir, 'channel_0', basename(path)), length: statSync(path).size }));
}

/** What comparing the pairs answers, or the message of what it threw; with the progress it told. */
async function compared(pairs: SharedFile[], threads?: IndexWorkerPool): Promise<{ answer: string | undefined; progress: OpenProgress[] }> {
  const progress: OpenProgress[] = [];
  try {
    return { answer: await comparePrefixes(pairs, new ReplacedRecords([]), (p) => progress.push(p), threads), progress };
  } catch (error) {
    return { answer: `threw: ${(error as Error).message}`, progress };
  }
}

describe('the prefix comparison in the index threads', () => {
  it('takes the copy with the same records held and the same report as in the opening thread', async () => {
    expect(dataFiles(a).length).toBeGreaterThanOrEqual(4);
    const sa = await Storage.open(a, { countLatestTypes: true });
    const workers = new SharedIndexWorkers();
    try {
      const inThreads = await Storage.open(b, { basis: sa, indexWorkers: workers, indexThreads: 2 });
      const inOne = await Storage.open(b, { basis: sa });
      try {
        expect(workers.started).toBe(1); // the threads were lent for the comparison
        const [threaded, one] = [inThreads.basisOpening!.replaced, inOne.basisOpening!.replaced];
        expect(threaded.count).toBe(ITEMS / 5);
        expect(threaded.heldBytes).toBeGreaterThan(0);
        expect(threaded.heldBytes).toBe(one.heldBytes);
        for (let i = 0; i < one.count; i++) {
          expect([threaded.slot(i), threaded.offset(i)]).toEqual([one.slot(i), one.offset(i)]);
          expect(threaded.held(i)).toEqual(one.held(i));
        }
        expect(await diffStorages(sa, inThreads, { limit: 100 })).toEqual(await diffStorages(sa, inOne, { limit: 100 }));
      } finally {
        await Promise.all([inThreads.close(), inOne.close()]);
      }
    } finally {
      await workers.close();
      await sa.close();
    }
  });

  it('refuses a copy differing in a later file, as the opening thread does', async () => {
    const last = dataFiles(a).length - 2;
    const changed = copyOfB((files) => flipBit(files[last]!, 5_000));
    const sa = await Storage.open(a, { countLatestTypes: true });
    const workers = new SharedIndexWorkers();
    try {
      const sb = await Storage.open(changed, { basis: sa, indexWorkers: workers, indexThreads: 2 });
      const whole = await Storage.open(changed);
      try {
        expect(sb.basisOpening).toBeUndefined();
        const report = await diffStorages(sa, sb, { limit: 100 });
        expect(report.summary.changed).toBeGreaterThan(0);
        expect(report).toEqual(await diffStorages(sa, whole, { limit: 100 }));
      } finally {
        await Promise.all([sb.close(), whole.close()]);
      }
    } finally {
      await workers.close();
      await sa.close();
    }
  });

  it('answers the first differing or failing file in order, whichever thread met it first', async () => {
    const pool = new IndexWorkerPool(2);
    try {
      const files = dataFiles(a).length;
      const cases = [
        copyOfB(() => undefined),
        copyOfB((f) => flipBit(f[files - 1]!, 10)),
        copyOfB((f) => (flipBit(f[1]!, 300_000), flipBit(f[3]!, 20))),
        copyOfB((f) => (flipBit(f[2]!, 7), unlinkSync(f[3]!))),
        copyOfB((f) => (unlinkSync(f[1]!), flipBit(f[2]!, 7))),
      ];
      for (const dir of cases) {
        const one = await compared(pairsWith(dir));
        const threaded = await compared(pairsWith(dir), pool);
        expect(threaded.answer).toEqual(one.answer);
        if (one.answer === undefined) {
          expect(threaded.progress.map((p) => p.filesDone)).toEqual(one.progress.map((p) => p.filesDone));
          expect(threaded.progress.at(-1)).toEqual(one.progress.at(-1));
        }
      }
      expect((await compared(pairsWith(cases[1]!))).answer).toMatch(/differs from/);
      expect((await compared(pairsWith(cases[4]!))).answer).toMatch(/^threw: /);
    } finally {
      await pool.close();
    }
  });
});

