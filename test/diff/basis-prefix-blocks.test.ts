import { closeSync, cpSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSameReport } from '../helpers/corpora/basis-pair.js';
import { Storage } from '../../src/storage/storage.js';
import { flipBit } from '../helpers/corpora/bit-flip.js';
import { writeItemRounds } from '../helpers/corpora/item-rounds.js';

/**
 * The prefix comparison of a copy opened on the first storage (basis-open.ts) over files of many
 * of its blocks (256 KiB; the other basis tests' files fit in one): a difference in any block but
 * the first refuses the copy, and the first storage's replaced records are taken whole, also those
 * that lie across the border of two blocks.
 */

/** Files of about 1.1 MiB: five blocks of the comparison (256 KiB) and a part. */
const FILE_SIZE = 1_150_000;
const ITEMS = 24_000;
let base: string;
let a: string;
let b: string;
let count = 0;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'si-basis-blocks-'));
  a = join(base, 'a');
  b = join(base, 'b');
  // Every item and every third name stored again: replaced records all over the first storage's
  // files, some of them across the border of two blocks.
  await writeItemRounds(a, b, { fileSize: FILE_SIZE, count: ITEMS, filler: (i) => 'x'.repeat(i % 37) }, (w, store, { items, names }) => {
    for (let i = 0; i < items.length; i++) store.add(w.dictionary.require('shop.Item'), items[i]!, [names[i]!, -i]);
    for (let i = 0; i < names.length; i += 3) store.add(w.dictionary.require('java.lang.String'), names[i]!, [`again ${i}`]);
  });
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** The storage's data files, by number. */
function dataFiles(dir: string): string[] {
  const names = readdirSync(join(dir, 'channel_0')).filter((n) => n.endsWith('.dat'));
  names.sort((x, y) => Number(x.match(/_(\d+)\.dat$/)![1]) - Number(y.match(/_(\d+)\.dat$/)![1]));
  return names.map((n) => join(dir, 'channel_0', n));
}

function bytesOf(path: string, at: number, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const bytes = Buffer.alloc(length);
    expect(readSync(fd, bytes, 0, length, at)).toBe(length);
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/** A copy of `b` with one bit flipped at `at` of its `file`th data file. */
function flipped(file: number, at: number): string {
  const dir = join(base, `flipped${count++}`);
  cpSync(b, dir, { recursive: true });
  flipBit(dataFiles(dir)[file]!, at);
  return dir;
}

describe('the prefix comparison over files of many blocks', () => {
  it('takes the copy, with every replaced record held as the first storage has it', async () => {
    expect(dataFiles(a).length).toBeGreaterThanOrEqual(2);
    expect(statSync(dataFiles(a)[0]!).size).toBeGreaterThan(4 * 256 * 1024);
    const sa = await Storage.open(a, { countLatestTypes: true });
    try {
      const sb = await Storage.open(b, { basis: sa });
      try {
        const replaced = sb.basisOpening!.replaced;
        expect(replaced.count).toBe(ITEMS + Math.ceil(ITEMS / 3));
        const files = sa.channels[0]!.files;
        const BLOCK = 256 * 1024;
        let split = 0;
        for (let i = 0; i < replaced.count; i++) {
          const path = files.find((f) => f.slot === replaced.slot(i))!.path;
          const offset = replaced.offset(i);
          const held = replaced.held(i);
          // Not taken only where its header lies across two blocks (the diff reads that one itself).
          if (held === undefined) {
            expect(Math.floor(offset / BLOCK)).not.toBe(Math.floor((offset + 7) / BLOCK));
            continue;
          }
          expect(held.equals(bytesOf(path, offset, bytesOf(path, offset, 4).readUInt32LE(0)))).toBe(true);
          if (Math.floor(offset / BLOCK) !== Math.floor((offset + held.length - 1) / BLOCK)) split++;
        }
        expect(split).toBeGreaterThan(0); // records taken from two blocks
      } finally {
        await sb.close();
      }
    } finally {
      await sa.close();
    }
    await expectSameReport(a, b, true);
  });

  for (const block of [1, 2, 3, 4]) {
    it(`refuses the copy where a bit differs in block ${block} of a full file, and in the file the copy grew`, async () => {
      const full = dataFiles(a).length - 2;
      await expectSameReport(a, flipped(full, block * 256 * 1024 + 1000), false);
      const grown = dataFiles(a).length - 1;
      const committed = statSync(dataFiles(a)[grown]!).size;
      if (committed > block * 256 * 1024 + 1000) await expectSameReport(a, flipped(grown, block * 256 * 1024 + 1000), false);
    });
  }
});
