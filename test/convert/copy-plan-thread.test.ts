import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadedRecordWalk } from '../../src/convert/check-walk-threads.js';
import { CopyPlanThread } from '../../src/convert/copy-plan-thread.js';
import { WalkedReachability } from '../../src/convert/walked-reachability.js';
import { StorageError } from '../../src/errors.js';
import { Storage } from '../../src/storage/storage.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';

/**
 * The copy's planning thread on its own (copy-plan-thread.ts): it reads the later channels' files
 * itself, and may read a file after the copying thread has read it whole (the copying thread reads
 * a file ahead before it takes the runs of the one before, and the planning thread can be behind).
 * A file changed by then is met first by the planning thread: its failure must then say what the
 * copying thread's own read would have said (the file named, what changed, what to do), not a
 * bare ENOENT or a record-format error. And no planning thread where the copying thread would
 * read data files over 16 MiB whole (two buffers as big as the largest file).
 */

let work = '';
let source = '';
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-copy-plan-'));
  source = join(work, 'source');
  generateStorage({ directory: source, entities: 5_000, channelCount: 2, seed: 3, fileMaximumSize: 32 * 1024, updateRatio: 0.5 });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The storage opened and walked as convert walks it in two threads: its copy order split at channel 1. */
async function walked(): Promise<{ storage: Storage; reach: WalkedReachability }> {
  const storage = await Storage.open(source);
  const reach = new WalkedReachability();
  await threadedRecordWalk(2, reach)(storage, { references: reach });
  reach.search(storage, 'the source');
  return { storage, reach };
}

/** Channel 1's data files in order. */
function channelFiles(): string[] {
  const numbered = (f: string): number => Number(/_(\d+)\.dat$/.exec(f)![1]);
  const dir = join(source, 'channel_1');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.dat'))
    .sort((a, b) => numbered(a) - numbered(b))
    .map((f) => join(dir, f));
}

/** What the planning thread's `next` fails with once every file before the changed one is taken. */
async function failureOf(storage: Storage, reach: WalkedReachability): Promise<unknown> {
  const started = CopyPlanThread.start(storage, reach.copyOrder(), 2, 'the source');
  expect(started).toBeDefined();
  const { thread } = started!;
  try {
    for (;;) await thread.next();
  } catch (error) {
    return error;
  } finally {
    await thread.close();
  }
}

describe("the copy's planning thread, when a file changes before it reads it", () => {
  it('a data file deleted: a STORAGE_FILE_GONE naming the file and what to do', async () => {
    const { storage, reach } = await walked();
    expect(reach.copyOrder().splits[1]?.channel).toBe(1);
    const gone = channelFiles()[1]!;
    const kept = readFileSync(gone);
    rmSync(gone);
    try {
      const error = await failureOf(storage, reach);
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).code).toBe('STORAGE_FILE_GONE');
      expect((error as Error).message).toContain(`${gone} was deleted`);
      expect((error as Error).message).toContain('the source changed while it was converted');
    } finally {
      (await import('node:fs')).writeFileSync(gone, kept);
    }
  });

  it('a data file cut inside a record: a STORAGE_INCONSISTENT naming the file and what to do', async () => {
    const { storage, reach } = await walked();
    const cut = channelFiles()[0]!;
    const kept = readFileSync(cut);
    // Inside the tenth record.
    let at = 0;
    for (let k = 0; k < 9; k++) at += Number(kept.readBigInt64LE(at));
    at += 10;
    truncateSync(cut, at);
    try {
      const error = await failureOf(storage, reach);
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).code).toBe('STORAGE_INCONSISTENT');
      expect((error as Error).message).toContain(`${cut} ends at ${at}`);
      expect((error as Error).message).toContain('the source changed while it was converted');
    } finally {
      (await import('node:fs')).writeFileSync(cut, kept);
    }
  });
});

describe("the copy's planning thread, for memory", () => {
  it('is not started where a data file is over 16 MiB: its two buffers of files read whole would hold more than 32 MiB', async () => {
    const big = join(work, 'big-files');
    // Data files of about 20 MiB: two of them read whole would hold 40 MiB.
    generateStorage({ directory: big, entities: 700_000, channelCount: 2, seed: 5, fileMaximumSize: 20 * 1024 * 1024 });
    const storage = await Storage.open(big);
    const largest = Math.max(...storage.channels.flatMap((c) => c.files.map((f) => f.totalLength)));
    expect(largest).toBeGreaterThan(16 * 1024 * 1024);
    const reach = new WalkedReachability();
    await threadedRecordWalk(2, reach)(storage, { references: reach });
    reach.search(storage, 'the source');
    expect(reach.copyOrder().splits[1]?.channel).toBe(1);
    const started = CopyPlanThread.start(storage, reach.copyOrder(), 2, 'the source');
    await started?.thread.close();
    expect(started).toBeUndefined();
    rmSync(big, { recursive: true, force: true });
  });
});
