import { appendFileSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseTransactionLog } from '../../../src/format/transaction-log.js';
import { damageReport } from '../../../src/http/java/integrity.js';
import { Storage } from '../../../src/storage/storage.js';
import { bytes, record } from '../../helpers/corpora/bytes.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { copyStorage } from '../../helpers/corpora/storage-copy.js';

/**
 * The damage report of the Java services (integrity.ts) is made from what the storage tells as
 * data: a file's scan problem with the declared length of a record cut off, and the files shorter
 * than their log commits (`Storage.shortFiles`), not from the wording of warnings.
 */

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
  return parseTransactionLog(readFileSync(logPath)).entries.reduce((max, e) => (e.timestamp > max ? e.timestamp : max), 0n);
}

function storeEntry(timestamp: bigint, length: number): Uint8Array {
  return bytes().int8(18).int8(1).int64(timestamp).int64(BigInt(length)).build();
}

describe('damage report', () => {
  it('a file cut at a record boundary before its committed length: a region where it ends, from Storage.shortFiles', async () => {
    const dir = copyOf('noroot');
    const data = join(dir, 'channel_0', 'channel_0_1.dat');
    const log = join(dir, 'channel_0', 'transactions_0.sft');
    const before = statSync(data).size;
    appendFileSync(data, record(INTEGER_TYPE, NEW_ID, bytes().int32(1000).build()));
    const committed = statSync(data).size;
    appendFileSync(log, storeEntry(lastTimestamp(log) + 1n, committed));
    truncateSync(data, before);
    const storage = await Storage.open(dir);
    try {
      const file = storage.channels[0]!.files[0]!;
      expect(file.problem).toBeUndefined();
      expect(storage.shortFiles).toEqual([{ path: file.path, onDisk: before, committed }]);
      const report = await damageReport(storage);
      expect(report.regions).toEqual([
        { channel: 0, fileNumber: file.fileNumber, path: file.path, offset: before, reason: `the file ends there, the transaction log commits ${committed} bytes` },
      ]);
      expect(report.cutRecords.size).toBe(0);
    } finally {
      await storage.close();
    }
  });

  it('a record cut off inside: its object named with the length its header declares', async () => {
    const dir = copyOf('noroot');
    const data = join(dir, 'channel_0', 'channel_0_1.dat');
    const log = join(dir, 'channel_0', 'transactions_0.sft');
    const before = statSync(data).size;
    appendFileSync(data, record(INTEGER_TYPE, NEW_ID, bytes().int32(1000).int64(7n).build()));
    const committed = statSync(data).size;
    appendFileSync(log, storeEntry(lastTimestamp(log) + 1n, committed));
    truncateSync(data, before + 30);
    const storage = await Storage.open(dir);
    try {
      const file = storage.channels[0]!.files[0]!;
      expect(file.problem?.recordLength).toBe(committed - before);
      const report = await damageReport(storage);
      expect(report.regions.map((r) => r.offset)).toEqual([before]);
      expect(report.cutRecords.get(NEW_ID)).toEqual({ objectId: NEW_ID, path: file.path, fileNumber: file.fileNumber, offset: before, length: committed - before, available: 30 });
    } finally {
      await storage.close();
    }
  });
});
