import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dataFileBytes } from '../helpers/corpora/data-files.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { writerFamily } from '../../src/writer/writer-family.js';

/**
 * `storeInBackground` (convert's copy: the data writes in the thread pool while the next batch is
 * filled) writes what `store` writes: the same data files byte for byte, files rolled over at the
 * same stores, and the writer's state moved on once the promise settles.
 */

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function record(objectId: bigint, contentLength: number, fill: number): Buffer {
  const bytes = Buffer.alloc(24 + contentLength, fill);
  bytes.writeBigInt64LE(BigInt(bytes.length), 0);
  bytes.writeBigInt64LE(1000001n, 8);
  bytes.writeBigInt64LE(objectId, 16);
  return bytes;
}

/** Ten stores of 40 records over 2 channels, files closed at 4 KiB: written one way or the other. */
async function write(background: boolean): Promise<{ dir: string; sizes: number[] }> {
  const dir = join(mkdtempSync(join(tmpdir(), 'store-in-background-')), 'storage');
  made.push(join(dir, '..'));
  const writer = StorageWriter.createForRecords(dir, writerFamily('microstream').baseDictionaryText, { channelCount: 2, fileMaximumSize: 4096 });
  const builder = writer.beginStore();
  const sizes: number[] = [];
  for (let store = 0; store < 10; store++) {
    for (let i = 0; i < 40; i++) builder.addRecord(record(1000000000000000000n + BigInt(store * 40 + i), 100 + ((store * 7 + i) % 50), store * 40 + i));
    if (background) await writer.storeInBackground(builder);
    else writer.store(builder);
    builder.clear();
    sizes.push(writer.channels.reduce((n, c) => n + c.headLength, 0));
  }
  writer.close();
  return { dir, sizes };
}

describe('storeInBackground', () => {
  it('writes the data files store writes, rolling files over at the same stores', async () => {
    const plain = await write(false);
    const background = await write(true);
    const expected = dataFileBytes(plain.dir);
    const got = dataFileBytes(background.dir);
    // Several files per channel: the rollover at 4 KiB is part of what is compared.
    expect([...expected.keys()].filter((k) => k.startsWith('channel_0/')).length).toBeGreaterThan(2);
    expect([...got.keys()]).toEqual([...expected.keys()]);
    for (const [name, bytes] of expected) expect(got.get(name)!.equals(bytes), name).toBe(true);
    // The writer's state moved on after each store as store moves it.
    expect(background.sizes).toEqual(plain.sizes);
    expect(background.sizes[9]).toBeGreaterThan(0);
  });

  it('refuses another store and closing while a store is written', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'store-in-background-')), 'storage');
    made.push(join(dir, '..'));
    const writer = StorageWriter.createForRecords(dir, writerFamily('microstream').baseDictionaryText, { channelCount: 2 });
    const builder = writer.beginStore();
    builder.addRecord(record(1000000000000000001n, 10, 1));
    const writing = writer.storeInBackground(builder);
    const other = writer.beginStore();
    other.addRecord(record(1000000000000000002n, 10, 2));
    expect(() => writer.store(other)).toThrow('a store is being written');
    expect(() => writer.close()).toThrow('a store is being written');
    const result = await writing;
    expect(result.records).toBe(1);
    writer.store(other);
    writer.close();
    expect(dataFileBytes(dir).get('channel_0/channel_0_1.dat')).toEqual(record(1000000000000000002n, 10, 2));
  });
});
