import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChannelLogReader } from '../../src/storage/log-reader.js';
import { bytes } from '../helpers/corpora/bytes.js';

const creation = (ts: bigint, file: bigint): Uint8Array => bytes().int8(26).int8(0).int64(ts).int64(0n).int64(file).build();
const store = (ts: bigint, length: bigint): Uint8Array => bytes().int8(18).int8(1).int64(ts).int64(length).build();

describe('ChannelLogReader', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const logFile = (...parts: Uint8Array[]): string => {
    const dir = mkdtempSync(join(tmpdir(), 'log-reader-'));
    dirs.push(dir);
    const path = join(dir, 'transactions_0.sft');
    writeFileSync(path, Buffer.concat(parts));
    return path;
  };

  it('reads what is appended, an entry cut short left for the next call', async () => {
    const path = logFile(creation(1n, 1n), store(2n, 100n), store(3n, 200n).subarray(0, 7));
    const reader = new ChannelLogReader(path);
    expect(await reader.readNew(26 + 18 + 7)).toBe(true);
    expect([reader.offset, reader.incompleteTailOffset, reader.aggregate()?.headLatestLength]).toEqual([44, 44, 100]);
    appendFileSync(path, store(3n, 200n).subarray(7));
    expect(await reader.readNew(26 + 18 + 18)).toBe(true);
    expect([reader.offset, reader.incompleteTailOffset, reader.aggregate()?.headLatestLength]).toEqual([62, undefined, 200]);
  });

  it('asks to be replaced after a read that failed part way (its entries may have been applied)', async () => {
    // The second store goes back in time: the first one was applied before the failure.
    const path = logFile(creation(1n, 1n), store(5n, 100n), store(4n, 200n));
    const reader = new ChannelLogReader(path);
    await expect(reader.readNew(62)).rejects.toThrow(/offset 44: inconsistent timestamp/);
    expect(await reader.readNew(62)).toBe(false);
  });
});
