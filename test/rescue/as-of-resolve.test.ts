import { cpSync, mkdtempSync, readdirSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError, UsageError } from '../../src/errors.js';
import { resolveAsOf } from '../../src/rescue/as-of.js';
import { CommitHistory } from '../../src/storage/history/commit-history.js';
import { scanStorageDirectory } from '../../src/storage/source/storage-dir.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';

/**
 * `--as-of` resolved to a commit (as-of.ts `resolveAsOf`) on a tiny storage written here: five
 * stores a second apart, each in a data file of its own. Commit numbers at and past both ends, a
 * log timestamp and a time between commits; the refusal naming data files deleted or cut since.
 */

const START = Date.UTC(2024, 4, 1, 12, 0, 0);
let work: string;
let dir: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-as-of-resolve-'));
  dir = join(work, 'storage');
  let tick = 0;
  const writer = StorageWriter.create(dir, { fileMaximumSize: 1, now: () => START + 1000 * tick++ });
  const string = writer.dictionary.require('java.lang.String');
  for (let i = 0; i < 5; i++) {
    const store = writer.beginStore();
    store.add(string, writer.newObjectId(), [`version ${i}`]);
    writer.store(store);
  }
  writer.close();
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

async function history(at = dir) {
  const layout = await scanStorageDirectory(at);
  return { layout, history: await CommitHistory.read(layout) };
}

describe('resolveAsOf', () => {
  it('takes commit numbers from 1 to the last, and names the count for one outside', async () => {
    const { layout, history: h } = await history();
    expect(h.size).toBeGreaterThanOrEqual(5);
    expect((await resolveAsOf(layout, { commit: 1 })).commit.number).toBe(1);
    expect((await resolveAsOf(layout, { commit: h.size })).commit.number).toBe(h.size);
    for (const commit of [0, -1, h.size + 1]) {
      await expect(resolveAsOf(layout, { commit })).rejects.toThrow(
        new UsageError(`${layout.directory} has no commit ${commit} (${h.size} commits; list them with check --commits)`),
      );
    }
  });

  it('finds a commit by its log timestamp, and names a timestamp no commit has', async () => {
    const { layout, history: h } = await history();
    const third = h.commit(3);
    expect((await resolveAsOf(layout, { timestamp: third.timestamp })).commit.number).toBe(3);
    await expect(resolveAsOf(layout, { timestamp: third.timestamp + 1n })).rejects.toThrow(
      new UsageError(`${layout.directory} has no a commit with timestamp ${third.timestamp + 1n} (${h.size} commits; list them with check --commits)`),
    );
  });

  it('takes the last commit at or before a time, and names a time before the first commit', async () => {
    const { layout, history: h } = await history();
    const third = h.commit(3);
    expect((await resolveAsOf(layout, { time: third.time })).commit.number).toBe(3);
    expect((await resolveAsOf(layout, { time: third.time + 1 })).commit.number).toBe(3);
    expect((await resolveAsOf(layout, { time: third.time - 1 })).commit.number).toBe(2);
    const before = h.commit(1).time - 1;
    await expect(resolveAsOf(layout, { time: before })).rejects.toThrow(
      new UsageError(`${layout.directory} has no a commit at or before ${new Date(before).toISOString()} (${h.size} commits; list them with check --commits)`),
    );
  });

  it('refuses a commit whose data files were deleted or cut since, naming each', async () => {
    const copy = join(work, 'damaged');
    cpSync(dir, copy, { recursive: true });
    const files = readdirSync(join(copy, 'channel_0')).filter((f) => f.endsWith('.dat'));
    const numbers = files.map((f) => Number(/_(\d+)\.dat$/.exec(f)![1])).sort((a, b) => a - b);
    expect(numbers.length).toBeGreaterThanOrEqual(5);
    const { layout: before, history: h } = await history(copy);
    const last = h.size;
    // The point in time of the last commit needs every file; delete the first, cut the second to 10 bytes.
    const first = numbers[0]!;
    const second = numbers[1]!;
    const point = h.pointInTime(last, before);
    expect(point.missingFiles).toEqual([]);
    rmSync(join(copy, 'channel_0', `channel_0_${first}.dat`));
    truncateSync(join(copy, 'channel_0', `channel_0_${second}.dat`), 10);
    const { layout } = await history(copy);
    const missing = (await CommitHistory.read(layout)).pointInTime(last, layout).missingFiles;
    expect(missing.map((m) => [m.fileNumber, m.sizeOnDisk])).toEqual([
      [BigInt(first), undefined],
      [BigInt(second), 10],
    ]);
    const error = await resolveAsOf(layout, { commit: last }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('STORAGE_INCONSISTENT');
    expect((error as Error).message).toBe(
      `the state as of commit ${last} (${new Date(h.commit(last).time).toISOString()}) cannot be rebuilt exactly: the history is incomplete, ` +
        `housekeeping (or someone) removed data files that held it: channel 0 file ${first} (${missing[0]!.length} bytes then, deleted since), ` +
        `channel 0 file ${second} (${missing[1]!.length} bytes then, 10 bytes now). Commits whose files are all still there are marked recoverable by check --commits.`,
    );
  });
});
