import { appendFileSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseTransactionLog } from '../../src/format/transaction-log.js';
import { Storage } from '../../src/storage/storage.js';
import { bytes, record } from '../helpers/corpora/bytes.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { copyStorage } from '../helpers/corpora/storage-copy.js';

const INTEGER_TYPE = 15n;
const NEW_ID = 1000000000000009998n;

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function copyOf(name: string): string {
  const dir = copyStorage(join(CONFORMANCE_DIR, 'storages', name));
  dirs.push(dir);
  return dir;
}

function lastTimestamp(logPath: string): bigint {
  const entries = parseTransactionLog(readFileSync(logPath)).entries;
  return entries.reduce((max, e) => (e.timestamp > max ? e.timestamp : max), 0n);
}

function storeEntry(timestamp: bigint, length: number): Uint8Array {
  return bytes().int8(18).int8(1).int64(timestamp).int64(BigInt(length)).build();
}

describe('Storage.open', () => {
  it('ignores bytes of the head file beyond the last committed store', async () => {
    const dir = copyOf('noroot');
    const data = join(dir, 'channel_0', 'channel_0_1.dat');
    const before = statSync(data).size;
    appendFileSync(data, record(INTEGER_TYPE, NEW_ID, bytes().int32(1000).build()));
    const storage = await Storage.open(dir);
    try {
      expect(await storage.readEntity(NEW_ID)).toBeUndefined();
      expect(storage.channels[0]!.files[0]!.totalLength).toBe(before);
    } finally {
      await storage.close();
    }
  });

  it('serves a record once its store is logged', async () => {
    const dir = copyOf('noroot');
    const data = join(dir, 'channel_0', 'channel_0_1.dat');
    const log = join(dir, 'channel_0', 'transactions_0.sft');
    appendFileSync(data, record(INTEGER_TYPE, NEW_ID, bytes().int32(1000).build()));
    appendFileSync(log, storeEntry(lastTimestamp(log) + 1n, statSync(data).size));
    const storage = await Storage.open(dir);
    try {
      const entity = await storage.readEntity(NEW_ID);
      expect(entity?.typeId).toBe(INTEGER_TYPE);
      expect(Buffer.from(entity!.content).readInt32LE(0)).toBe(1000);
      expect(storage.entityCount).toBe(28);
    } finally {
      await storage.close();
    }
  });

  it('answers a record read again from memory, and not once its file was cut short', async () => {
    const dir = copyOf('noroot');
    const data = join(dir, 'channel_0', 'channel_0_1.dat');
    const log = join(dir, 'channel_0', 'transactions_0.sft');
    const before = statSync(data).size;
    appendFileSync(data, record(INTEGER_TYPE, NEW_ID, bytes().int32(1000).build()));
    appendFileSync(log, storeEntry(lastTimestamp(log) + 1n, statSync(data).size));
    const storage = await Storage.open(dir);
    try {
      const first = await storage.readEntity(NEW_ID);
      const hits = storage.recordCache!.hits;
      const again = await storage.readEntity(NEW_ID);
      expect(storage.recordCache!.hits).toBe(hits + 1);
      expect(Buffer.from(again!.content).equals(Buffer.from(first!.content))).toBe(true);
      expect(again).toMatchObject({ objectId: NEW_ID, typeId: INTEGER_TYPE, offset: first!.offset, file: first!.file });
      // The committed record is cut off on disk: it is not answered from memory either.
      truncateSync(data, before);
      await storage.refresh();
      expect(await storage.readEntity(NEW_ID)).toBeUndefined();
      expect(storage.conditions.map((c) => c.code)).toEqual(['STORAGE_TRUNCATED']);
    } finally {
      await storage.close();
    }
    const uncached = await Storage.open(dir, { recordCacheBytes: 0 });
    try {
      expect(uncached.recordCache).toBeUndefined();
    } finally {
      await uncached.close();
    }
  });

  it('rolls back a store that reached only some channels', async () => {
    const dir = copyOf('arrays');
    const ch0 = join(dir, 'channel_0');
    const data = join(ch0, 'channel_0_1.dat');
    const log = join(ch0, 'transactions_0.sft');
    // Object ids ending in an even number live in channel 0 of a 2-channel storage.
    appendFileSync(data, record(INTEGER_TYPE, NEW_ID, bytes().int32(7).build()));
    appendFileSync(log, storeEntry(lastTimestamp(log) + 1n, statSync(data).size));
    const storage = await Storage.open(dir);
    try {
      expect(await storage.readEntity(NEW_ID)).toBeUndefined();
    } finally {
      await storage.close();
    }
  });

  it('skips gaps and reports a record that runs past the valid length with file and offset', async () => {
    const dir = copyOf('noroot');
    const data = join(dir, 'channel_0', 'channel_0_1.dat');
    const log = join(dir, 'channel_0', 'transactions_0.sft');
    const gap = bytes().int64(-16n).int64(0n).build();
    const good = record(INTEGER_TYPE, NEW_ID, bytes().int32(5).build());
    const start = statSync(data).size;
    appendFileSync(data, gap);
    appendFileSync(data, good);
    // A record claiming 100 bytes of which only 30 exist.
    appendFileSync(data, bytes().int64(100n).int64(INTEGER_TYPE).int64(NEW_ID + 1n).int32(0).int16(0).build());
    appendFileSync(log, storeEntry(lastTimestamp(log) + 1n, statSync(data).size));
    const storage = await Storage.open(dir);
    try {
      expect((await storage.readEntity(NEW_ID))?.typeId).toBe(INTEGER_TYPE);
      expect(await storage.readEntity(NEW_ID + 1n)).toBeUndefined();
      const badOffset = start + gap.length + good.length;
      expect(storage.warnings.join('\n')).toContain(`channel_0_1.dat: offset ${badOffset}: record of 100 bytes runs past the valid length`);
    } finally {
      await storage.close();
    }
  });

  it('rejects a storage whose channels disagree on having a log', async () => {
    const dir = copyOf('arrays');
    rmSync(join(dir, 'channel_1', 'transactions_1.sft'));
    await expect(Storage.open(dir)).rejects.toThrow(/mixed \(inconsistent\) transactions file existences/);
  });

  it('reads a storage without logs at the files\' full sizes', async () => {
    const dir = copyOf('noroot');
    rmSync(join(dir, 'channel_0', 'transactions_0.sft'));
    writeFileSync(join(dir, 'channel_0', 'channel_0_1.dat.bak'), 'ignored');
    const storage = await Storage.open(dir);
    try {
      expect(storage.entityCount).toBe(27);
      expect(storage.rootObjectId).toBe(0n);
    } finally {
      await storage.close();
    }
  });

  it('opens several storages at the same time without mixing up their reads', async () => {
    const expected: Record<string, number> = { graph: 1263, collections: 356, evolution: 55, arrays: 120, primitives: 88, noroot: 27 };
    for (let round = 0; round < 3; round++) {
      const opened = await Promise.all(Object.keys(expected).map((name) => Storage.open(join(CONFORMANCE_DIR, 'storages', name))));
      try {
        expect(opened.map((s) => s.entityCount)).toEqual(Object.values(expected));
        expect(opened.flatMap((s) => s.warnings)).toEqual([]);
      } finally {
        await Promise.all(opened.map((s) => s.close()));
      }
    }
  });
});
