import { closeSync, cpSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, symlinkSync, truncateSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffStorages, type DiffReport } from '../../src/diff/storage-diff.js';
import { Storage } from '../../src/storage/storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';

/**
 * The first storage's data files compared with the copy's while they are indexed
 * (`OpenOptions.compareTwin`, storage/index/twin-prefix.ts), as the diff command opens two
 * directories: the copy opened on it then reads the first storage's files no more, and must still
 * be taken as its continuation exactly where its files begin with the first's bytes, with the
 * report of the whole walk. In the opening thread and in index threads.
 */

let base: string;
let count = 0;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'si-twin-open-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A storage of 60 items with names over small files, and a copy in which items 5..25 were stored again. */
async function pair(): Promise<{ a: string; b: string }> {
  const a = join(base, `a${count++}`);
  const writer = StorageWriter.create(a, { channelCount: 2, fileMaximumSize: 1024 });
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
  const b = join(base, `b${count++}`);
  cpSync(a, b, { recursive: true });
  const more = await StorageWriter.open(b, { fileMaximumSize: 1024 });
  const store = more.beginStore();
  for (let i = 5; i < 25; i++) store.add(more.dictionary.require('shop.Item'), items[i]!, [0n, 100 + i]);
  more.store(store);
  more.close();
  return { a, b };
}

/** The first data file of channel 0 (the copy has it unchanged: only a channel's last file grows). */
function firstFile(dir: string): string {
  const names = readdirSync(join(dir, 'channel_0')).filter((n) => n.endsWith('.dat'));
  names.sort((x, y) => Number(x.match(/_(\d+)\.dat$/)![1]) - Number(y.match(/_(\d+)\.dat$/)![1]));
  return join(dir, 'channel_0', names[0]!);
}

function flip(path: string, at: number): void {
  const fd = openSync(path, 'r+');
  const byte = Buffer.alloc(1);
  readSync(fd, byte, 0, 1, at);
  byte[0] = byte[0]! ^ 1;
  writeSync(fd, byte, 0, 1, at);
  closeSync(fd);
}

interface Outcome {
  /** Undefined when the first storage was changed after its opening and the copy was not taken (the whole walk would read the change). */
  readonly report: DiffReport | undefined;
  readonly continued: boolean;
  /** How many of the first storage's replaced records the copy's opening took (held). */
  readonly held: number;
  readonly replaced: number;
}

/** A opened (comparing its files with `twin`'s), `change` run, then B opened on A and diffed. */
async function diffed(a: string, b: string, threads: number, twin: string | undefined, change?: () => void): Promise<Outcome> {
  const sa = await Storage.open(a, { countLatestTypes: true, indexThreads: threads, ...(twin === undefined ? {} : { compareTwin: twin }) });
  try {
    change?.();
    const sb = await Storage.open(b, { basis: sa, indexThreads: threads });
    try {
      const report = change !== undefined && sb.basisOpening === undefined ? undefined : await diffStorages(sa, sb, { limit: 10_000 });
      const replaced = sb.basisOpening?.replaced;
      let held = 0;
      for (let i = 0; i < (replaced?.count ?? 0); i++) if (replaced!.held(i) !== undefined) held++;
      return { report, continued: sb.basisOpening !== undefined, held, replaced: replaced?.count ?? 0 };
    } finally {
      await sb.close();
    }
  } finally {
    await sa.close();
  }
}

/** The report with B opened whole. */
async function whole(a: string, b: string): Promise<DiffReport> {
  const sa = await Storage.open(a);
  const sb = await Storage.open(b);
  try {
    return await diffStorages(sa, sb, { limit: 10_000 });
  } finally {
    await Promise.all([sa.close(), sb.close()]);
  }
}

describe.each([0, 2])('the first storage compared with the copy while indexed (%i index threads)', (threads) => {
  it('taken: the same report as the whole walk, every replaced record held, the first storage not read again', async () => {
    const { a, b } = await pair();
    const expected = await whole(a, b);
    expect(expected.summary.changed).toBe(20);
    // A byte of the first storage changed once it is opened: its opening compared the files, the copy's does not again.
    const outcome = await diffed(a, b, threads, b, () => flip(firstFile(a), 30));
    expect(outcome.continued).toBe(true);
    expect(outcome.report).toEqual(expected);
    expect([outcome.replaced, outcome.held]).toEqual([20, 20]);
  });

  it('not compared with this copy (another directory named): the copy compares the files itself', async () => {
    const { a, b } = await pair();
    const other = join(base, `c${count++}`);
    cpSync(b, other, { recursive: true });
    const outcome = await diffed(a, b, threads, other, () => flip(firstFile(a), 30));
    expect(outcome.continued).toBe(false);
  });

  it('the copy differing inside the first storage\'s bytes: not taken, the whole walk\'s report', async () => {
    const { a, b } = await pair();
    flip(firstFile(b), 30);
    const expected = await whole(a, b);
    const outcome = await diffed(a, b, threads, b);
    expect(outcome.continued).toBe(false);
    expect(outcome.report).toEqual(expected);
  });

  it('the copy\'s file replaced after the comparison (another file, one byte changed): not taken', async () => {
    const { a, b } = await pair();
    const file = firstFile(b);
    const outcome = await diffed(a, b, threads, b, () => {
      cpSync(file, `${file}.new`);
      flip(`${file}.new`, 30);
      renameSync(`${file}.new`, file);
    });
    expect(outcome.continued).toBe(false);
  });

  it('the copy\'s file written in place after the comparison (the same inode, one byte changed): not taken', async () => {
    const { a, b } = await pair();
    const outcome = await diffed(a, b, threads, b, () => flip(firstFile(b), 30));
    expect(outcome.continued).toBe(false);
  });

  it('the first storage\'s file cut short inside a replaced record before the copy is opened: that record is not held with bytes it does not have', async () => {
    const { a, b } = await pair();
    const paths = async (): Promise<{ path: string; offset: number }[]> => {
      const sa = await Storage.open(a, { indexThreads: threads, compareTwin: b });
      try {
        const sb = await Storage.open(b, { basis: sa, indexThreads: threads });
        try {
          const replaced = sb.basisOpening!.replaced;
          const channels = sa.channels as unknown as { slots: { path: string }[] }[];
          return Array.from({ length: replaced.count }, (_, i) => ({ path: channels[replaced.channel(i)]!.slots[replaced.slot(i)]!.path, offset: replaced.offset(i) }));
        } finally {
          await sb.close();
        }
      } finally {
        await sa.close();
      }
    };
    const records = await paths();
    expect(records.length).toBe(20);
    const cut = records[0]!;
    const original = readFileSync(cut.path);
    const sa = await Storage.open(a, { indexThreads: threads, compareTwin: b });
    try {
      truncateSync(cut.path, cut.offset + 12); // the record's length is there, the rest of it not
      const sb = await Storage.open(b, { basis: sa, indexThreads: threads });
      try {
        const replaced = sb.basisOpening!.replaced;
        const held = replaced.held(0);
        if (held !== undefined) expect(held.toString('hex')).toBe(original.subarray(cut.offset, cut.offset + held.length).toString('hex'));
      } finally {
        await sb.close();
      }
    } finally {
      await sa.close();
    }
  });

  it('the copy\'s file failing to be read (EIO): the first storage opens all the same', async () => {
    const { a, b } = await pair();
    const plain = await Storage.open(a, { indexThreads: threads });
    const objects = plain.entityCount;
    await plain.close();
    // A regular file whose every read at offset 0 fails with EIO.
    const file = firstFile(b);
    unlinkSync(file);
    symlinkSync('/proc/self/mem', file);
    const sa = await Storage.open(a, { indexThreads: threads, compareTwin: b });
    try {
      expect(sa.entityCount).toBe(objects);
      await expect(Storage.open(b, { basis: sa, indexThreads: threads })).rejects.toThrow(file);
    } finally {
      await sa.close();
    }
  });
});
