/**
 * What EclipseStore writes around the records, read without touching anything: 4.2's meta
 * records in data files, compacted transaction logs (1.4–4.1 and 4.2 forms), a leftover
 * compaction swap file, files moved to a deletion directory, and the `used.lock` file.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseTransactionLog } from '../../src/format/transaction-log.js';
import { answerRequest } from '../../src/http/java/java-service.js';
import { Storage } from '../../src/storage/storage.js';
import { creationEntry, storeEntry } from '../../src/writer/log-entries.js';
import { bytes, record } from '../helpers/corpora/bytes.js';
import { CORPORA } from '../helpers/corpora/conformance.js';
import { compactionSwapFile, compactLog141, compactLog42, crc32cChunkRecord, fileHeaderRecord } from '../helpers/corpora/eclipsestore-files.js';
import { snapshotTree, diffSnapshots } from '../security/snapshot.js';
import { copyStorage } from '../helpers/corpora/storage-copy.js';

const ES = CORPORA.find((c) => c.generation.startsWith('EclipseStore'))!;
const INTEGER = 15n;
const FIRST_NEW_ID = 1000000000000100001n;

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function copyOf(name: string): string {
  const dir = copyStorage(join(ES.dir, 'storages', name));
  dirs.push(dir);
  return dir;
}

function lastTimestamp(logPath: string): bigint {
  return parseTransactionLog(readFileSync(logPath)).entries.reduce((max, e) => (e.timestamp > max ? e.timestamp : max), 0n);
}

const integerRecord = (objectId: bigint, value: number): Uint8Array => record(INTEGER, objectId, bytes().int32(value).build());

async function get(storage: Storage, url: string): Promise<{ status: number; body: string }> {
  const answer = await answerRequest(storage, { instance: storage.family.defaultInstance }, { method: 'GET', url, headers: {} });
  return { status: answer.status, body: answer.body.toString('utf8') };
}

/**
 * Appends data file 2 to channel 0 of a copy of `noroot` as EclipseStore 4.2 writes it with
 * CRC-32C chunk checksums: the file header, then per store the records and their checksum.
 */
function withChecksummedFile(stores: readonly (readonly Uint8Array[])[]): { dir: string; file: string; recordBytes: number; size: number } {
  const dir = copyOf('noroot');
  const log = join(dir, 'channel_0', 'transactions_0.sft');
  const file = join(dir, 'channel_0', 'channel_0_2.dat');
  let ts = lastTimestamp(log);
  writeFileSync(file, fileHeaderRecord());
  appendFileSync(log, creationEntry(++ts, 46, 2n));
  let recordBytes = 0;
  for (const records of stores) {
    const chunkStart = statSync(file).size;
    const chunk = Buffer.concat(records);
    recordBytes += chunk.length;
    appendFileSync(file, chunk);
    appendFileSync(file, crc32cChunkRecord(chunkStart, chunk));
    appendFileSync(log, storeEntry(++ts, statSync(file).size));
  }
  return { dir, file, recordBytes, size: statSync(file).size };
}

describe('EclipseStore 4.2 meta records', () => {
  it('skips the file header and chunk checksums and never takes them for entities', async () => {
    const ids = [FIRST_NEW_ID, FIRST_NEW_ID + 1n, FIRST_NEW_ID + 2n];
    const { dir, recordBytes, size } = withChecksummedFile([[integerRecord(ids[0]!, 7), integerRecord(ids[1]!, -8)], [integerRecord(ids[2]!, 9)]]);
    const storage = await Storage.open(dir);
    try {
      expect(storage.warnings).toEqual([]);
      expect(storage.family.name).toBe('eclipsestore');
      expect(storage.entityCount).toBe(27 + 3);
      for (const [i, id] of ids.entries()) {
        expect((await get(storage, `/store-data/object/${id}`)).body).toContain(`"simplified":true,"data":["${[7, -8, 9][i]}"]`);
      }
      const file = storage.channels[0]!.files.find((f) => f.fileNumber === 2n)!;
      expect(file).toMatchObject({ totalLength: size, liveLength: recordBytes, metaLength: 46 + 2 * 20, problem: undefined });
      // Java counts meta records in the total length, not in the live (data) length.
      expect((await get(storage, '/store-data/maintenance/filesStatistics')).body).toContain(
        `"fileNumber":"2","file":"${file.path}","fileCount":"1","liveDataLength":"${recordBytes}","totalDataLength":"${size}"}`,
      );
    } finally {
      await storage.close();
    }
  });

  it('stops at a file header in the middle of a file, naming the offset, and keeps what came before', async () => {
    const first = integerRecord(FIRST_NEW_ID, 1);
    const { dir, file } = withChecksummedFile([[first, fileHeaderRecord(), integerRecord(FIRST_NEW_ID + 1n, 2)]]);
    const storage = await Storage.open(dir);
    try {
      expect(await storage.readEntity(FIRST_NEW_ID)).toBeDefined();
      expect(await storage.readEntity(FIRST_NEW_ID + 1n)).toBeUndefined();
      const offset = 46 + first.length;
      expect(storage.warnings).toEqual([
        `${file}: offset ${offset}: file header meta record at offset ${offset}, not at the start of the file; the rest of this file is not indexed`,
      ]);
    } finally {
      await storage.close();
    }
  });

  it('stops at a checksum record of the wrong size', async () => {
    const dir = copyOf('noroot');
    const data = join(dir, 'channel_0', 'channel_0_1.dat');
    const log = join(dir, 'channel_0', 'transactions_0.sft');
    const end = statSync(data).size;
    appendFileSync(data, bytes().int64(-24n).uint16(0x215e).uint16(0x4667).int32(0).int32(0).int32(0).build());
    appendFileSync(log, storeEntry(lastTimestamp(log) + 1n, statSync(data).size));
    const storage = await Storage.open(dir);
    try {
      expect(storage.entityCount).toBe(27);
      expect(storage.warnings).toEqual([`${data}: offset ${end}: chunk checksum meta record of 24 bytes, expected 20; the rest of this file is not indexed`]);
    } finally {
      await storage.close();
    }
  });

  it('takes a new file that holds only its header, before the log names it, as normal', async () => {
    const dir = copyOf('noroot');
    writeFileSync(join(dir, 'channel_0', 'channel_0_2.dat'), fileHeaderRecord());
    const storage = await Storage.open(dir);
    try {
      expect(storage.warnings).toEqual([]);
      expect(storage.entityCount).toBe(27);
    } finally {
      await storage.close();
    }
  });
});

/** Every answer that depends on the log: statistics (paths made relative) and every object. */
async function observable(storage: Storage): Promise<string[]> {
  const statistics = (await get(storage, '/store-data/maintenance/filesStatistics')).body;
  const out = [statistics.split(storage.directory).join('<dir>').replace(/"creationTime":"[^"]*"/, '"creationTime":"*"')];
  out.push((await get(storage, '/store-data/root')).body);
  const ids: bigint[] = [];
  for (const channel of storage.channels) channel.objects.forEach((low, high) => ids.push((BigInt(high) << 32n) | BigInt(low >>> 0)));
  ids.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  for (const id of ids) out.push((await get(storage, `/store-data/object/${id}`)).body);
  return out;
}

describe('compacted transaction logs', () => {
  const compactions = [
    ['EclipseStore 1.4 to 4.1', compactLog141],
    ['EclipseStore 4.2', compactLog42],
  ] as const;

  it.each(compactions)('reads a log compacted like %s exactly like the full log', async (_name, compact) => {
    const original = copyOf('graph');
    const compacted = copyOf('graph');
    for (const channel of ['channel_0', 'channel_1']) {
      const index = channel.slice(-1);
      const exists = (n: bigint): boolean => existsSync(join(compacted, channel, `${channel}_${n}.dat`));
      const log = join(compacted, channel, `transactions_${index}.sft`);
      const smaller = compact(log, exists);
      expect(smaller.length).toBeLessThan(statSync(log).size);
      writeFileSync(log, smaller);
    }
    const [a, b] = await Promise.all([Storage.open(original), Storage.open(compacted)]);
    try {
      expect(b.warnings).toEqual(a.warnings);
      expect(b.entityCount).toBe(a.entityCount);
      expect(await observable(b)).toEqual(await observable(a));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('reads a 1.4–4.1 compaction of an empty head file, whose store entry repeats the latest timestamp', async () => {
    const dir = copyOf('noroot');
    const log = join(dir, 'channel_0', 'transactions_0.sft');
    appendFileSync(log, creationEntry(lastTimestamp(log) + 1n, 0, 2n));
    writeFileSync(join(dir, 'channel_0', 'channel_0_2.dat'), new Uint8Array(0));
    writeFileSync(log, compactLog141(log, () => true));
    const kinds = parseTransactionLog(readFileSync(log)).entries.map((e) => `${e.type}:${e.fileLength}:${e.timestamp}`);
    expect(kinds[3]).toBe(`store:0:${kinds[1]!.split(':')[2]}`);
    const storage = await Storage.open(dir);
    try {
      expect(storage.warnings).toEqual([]);
      expect(storage.entityCount).toBe(27);
      expect(storage.channels[0]!.files.map((f) => [f.fileNumber, f.totalLength])).toEqual([
        [1n, 2552],
        [2n, 0],
      ]);
    } finally {
      await storage.close();
    }
  });
});

describe('a compaction swap file', () => {
  function interrupted(logContent: (full: Buffer) => Uint8Array, swapContent?: (swap: Uint8Array) => Uint8Array): { dir: string; log: string; swap: string } {
    const dir = copyOf('graph');
    const log = join(dir, 'channel_0', 'transactions_0.sft');
    const swap = join(dir, 'channel_0', 'transactions_0_compaction.swp');
    const compacted = compactLog42(log, (n) => existsSync(join(dir, 'channel_0', `channel_0_${n}.dat`)));
    const file = compactionSwapFile(compacted);
    writeFileSync(swap, swapContent === undefined ? file : swapContent(file));
    writeFileSync(log, logContent(readFileSync(log)));
    return { dir, log, swap };
  }

  it('is the log when it is complete and the log was cut during the rewrite', async () => {
    const reference = copyOf('graph');
    const { dir, log, swap } = interrupted((full) => full.subarray(0, 26 * 3 + 5));
    const before = snapshotTree(dir);
    const [a, b] = await Promise.all([Storage.open(reference), Storage.open(dir)]);
    try {
      expect(b.warnings).toEqual([`${log}: being compacted, or a compaction was interrupted; read from ${swap} as EclipseStore would restore it`]);
      expect(await observable(b)).toEqual(await observable(a));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    expect(diffSnapshots(before, snapshotTree(dir))).toEqual([]);
  });

  it('is ignored when it is incomplete (the log was never touched)', async () => {
    const { dir } = interrupted((full) => full, (swap) => swap.subarray(0, swap.length - 3));
    const storage = await Storage.open(dir);
    try {
      expect(storage.warnings).toEqual([]);
    } finally {
      await storage.close();
    }
  });

  it('is ignored when its checksum is wrong', async () => {
    const { dir } = interrupted(
      (full) => full,
      (swap) => {
        const bad = Uint8Array.from(swap);
        bad[bad.length - 1]! ^= 1;
        return bad;
      },
    );
    const storage = await Storage.open(dir);
    try {
      expect(storage.warnings).toEqual([]);
    } finally {
      await storage.close();
    }
  });

  it('is no news when the log already holds its content (only the deletion was outstanding)', async () => {
    const dir = copyOf('graph');
    const log = join(dir, 'channel_0', 'transactions_0.sft');
    const compacted = compactLog42(log, (n) => existsSync(join(dir, 'channel_0', `channel_0_${n}.dat`)));
    writeFileSync(log, compacted);
    writeFileSync(join(dir, 'channel_0', 'transactions_0_compaction.swp'), compactionSwapFile(compacted));
    const storage = await Storage.open(dir);
    try {
      expect(storage.warnings).toEqual([]);
    } finally {
      await storage.close();
    }
  });
});

describe('a deletion directory', () => {
  it('does not disturb reading when housekeeping moved deleted files there instead of deleting them', async () => {
    const reference = copyOf('graph');
    const dir = copyOf('graph');
    // The log of channel 0 marks files 1..7 deleted; EclipseStore 4.1 moves them to
    // <deletion directory>/channel_0/channel_0_<n>.dat_<timestamp>.bak. Here the deletion
    // directory lies inside the storage directory, and one file went to the channel directory itself.
    mkdirSync(join(dir, 'deleted', 'channel_0'), { recursive: true });
    for (let n = 1; n <= 6; n++) writeFileSync(join(dir, 'deleted', 'channel_0', `channel_0_${n}.dat_2025-11-23_10-00-0${n}_123.bak`), integerRecord(FIRST_NEW_ID, n));
    writeFileSync(join(dir, 'channel_0', 'channel_0_7.dat_2025-11-23_10-00-07_123.bak'), integerRecord(FIRST_NEW_ID, 7));
    const before = snapshotTree(dir);
    const [a, b] = await Promise.all([Storage.open(reference), Storage.open(dir)]);
    try {
      expect(b.warnings).toEqual([]);
      expect(await b.readEntity(FIRST_NEW_ID)).toBeUndefined();
      expect(await observable(b)).toEqual(await observable(a));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    expect(diffSnapshots(before, snapshotTree(dir))).toEqual([]);
  });
});

describe('the lock file used.lock', () => {
  it('is reported absent, and opening and reading a storage never creates it', async () => {
    const dir = copyOf('noroot');
    const storage = await Storage.open(dir);
    try {
      expect(await storage.readLockFile()).toEqual({ path: join(dir, 'used.lock'), state: 'absent' });
      expect(existsSync(join(dir, 'used.lock'))).toBe(false);
    } finally {
      await storage.close();
    }
  });

  it("shows its owner and whether it still holds the storage by Java's rule, without changing it", async () => {
    const dir = copyOf('noroot');
    const lock = join(dir, 'used.lock');
    writeFileSync(lock, '1763892000000;1763892010000;4242@build-host');
    const before = snapshotTree(dir);
    const storage = await Storage.open(dir);
    try {
      const common = { path: lock, lastWriteMillis: 1763892000000, expirationMillis: 1763892010000, processIdentity: '4242@build-host', processId: 4242, host: 'build-host' };
      // Held until one update interval (here 10 s) after the expiration has passed.
      expect(await storage.readLockFile(1763892005000)).toEqual({ ...common, state: 'held' });
      expect(await storage.readLockFile(1763892020000)).toEqual({ ...common, state: 'held' });
      expect(await storage.readLockFile(1763892020001)).toEqual({ ...common, state: 'expired' });
      // A held lock does not keep us from reading (we never take it).
      expect((await get(storage, '/store-data/root')).status).toBe(200);
    } finally {
      await storage.close();
    }
    expect(diffSnapshots(before, snapshotTree(dir))).toEqual([]);
  });

  it('says what is wrong with a lock file it cannot parse', async () => {
    const dir = copyOf('noroot');
    writeFileSync(join(dir, 'used.lock'), 'locked by somebody');
    const storage = await Storage.open(dir);
    try {
      expect(await storage.readLockFile()).toMatchObject({ state: 'unreadable', problem: 'no timestamps in the lock file (18 bytes)' });
    } finally {
      await storage.close();
    }
  });
});
