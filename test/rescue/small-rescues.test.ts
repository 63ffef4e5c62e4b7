import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError, UsageError } from '../../src/errors.js';
import { allMemberValues, layoutEntity } from '../../src/format/entity-layout.js';
import { findOlderVersions, findReferrerRecords, findReferrers } from '../../src/rescue/older-versions.js';
import { rescueStorage, type RescueOptions, type RescueReport } from '../../src/rescue/rescue-storage.js';
import { openStorageSource } from '../../src/storage/open-source.js';
import { DirectorySource } from '../../src/storage/source/directory-source.js';
import { CommitHistory } from '../../src/storage/history/commit-history.js';
import { scanStorageDirectory } from '../../src/storage/source/storage-dir.js';
import { Storage } from '../../src/storage/storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';
import { sqliteFile } from '../helpers/corpora/afs-sql.js';
import { dictionaryOf, mapDataFile } from '../robustness/damage-lab.js';

/**
 * Whole rescues of tiny storages written here, one store at a time, so that each branch of
 * rescue-storage.ts and older-versions.ts is reached in milliseconds: an object whose newest
 * version is damaged and an older one is not (kept in the newest older version), one whose every
 * version is damaged (lost, its referrers' references replaced, or listed with keepDangling),
 * damage found by EclipseStore 4.2's chunk checksums alone, and the options of a rescue.
 */

let work: string;
let counter = 0;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-small-rescue-'));
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** Object ids of the tiny storage: `holder` refers to `kept` and `lost`, `bystander` to nobody. */
interface Tiny {
  readonly dir: string;
  readonly kept: bigint;
  readonly lost: bigint;
  readonly holder: bigint;
  readonly bystander: bigint;
}

/**
 * One channel, type `t.Node { Object next; int n; }`. Stores: 1) kept n=1, lost n=1, holder → lost,
 * bystander n=7; 2) kept n=2, holder → lost; 3) kept n=3; 4) lost n=4. Each store's records lie
 * after the previous store's in channel_0_1.dat (one file unless `fileMaximumSize` says otherwise).
 */
function tinyStorage(options: { checksums?: 'crc32c'; fileMaximumSize?: number } = {}): Tiny {
  const dir = join(work, `tiny-${++counter}`);
  const writer = StorageWriter.create(dir, { ...options, now: () => 1_700_000_000_000 + counter * 1000 });
  const node = writer.defineType('t.Node', reflectiveMembers('t.Node', [{ name: 'next', type: 'java.lang.Object' }, { name: 'n', type: 'int' }]));
  const [kept, lost, holder, bystander] = [writer.newObjectId(), writer.newObjectId(), writer.newObjectId(), writer.newObjectId()];
  const store = (records: [bigint, bigint | null, number][]): void => {
    const s = writer.beginStore();
    for (const [id, next, n] of records) s.add(node, id, [next, n]);
    writer.store(s);
  };
  writer.setRoot(holder);
  store([[kept, null, 1], [lost, null, 1], [holder, lost, 5], [bystander, null, 7]]);
  store([[kept, null, 2], [holder, kept, 6]]);
  store([[kept, null, 3]]);
  store([[lost, kept, 4]]);
  writer.close();
  return { dir, kept, lost, holder, bystander };
}

/** The records of an object in the storage's data files (oldest first), with the file they lie in. */
function recordsOf(dir: string, objectId: bigint): { file: string; offset: number; length: number }[] {
  const dictionary = dictionaryOf(readFileSync(join(dir, 'PersistenceTypeDictionary.ptd'), 'utf8'));
  const files = readdirSync(join(dir, 'channel_0'))
    .filter((f) => f.endsWith('.dat'))
    .sort((a, b) => Number(/_(\d+)\.dat$/.exec(a)![1]) - Number(/_(\d+)\.dat$/.exec(b)![1]));
  return files.flatMap((f) => {
    const file = join(dir, 'channel_0', f);
    return mapDataFile(readFileSync(file), dictionary).records.filter((r) => r.objectId === objectId).map((r) => ({ file, offset: r.offset, length: r.length }));
  });
}

/** Damages a record so that it cannot be read (its type id names no type). */
function unknownType(record: { file: string; offset: number }): void {
  const bytes = readFileSync(record.file);
  bytes.writeBigInt64LE(999_999n, record.offset + 8);
  writeFileSync(record.file, bytes);
}

/** Flips a bit of the int `n` of a record (the record still decodes; only a chunk checksum notices). */
function flipContent(record: { file: string; offset: number; length: number }): void {
  const bytes = readFileSync(record.file);
  bytes[record.offset + record.length - 4]! ^= 1;
  writeFileSync(record.file, bytes);
}

/** `[next, n]` of an object in a (rescued) storage. */
async function valuesIn(dir: string, objectId: bigint): Promise<[string, number] | undefined> {
  const storage = await Storage.open(dir);
  try {
    const entity = await storage.readEntity(objectId);
    if (entity === undefined) return undefined;
    const values = allMemberValues(layoutEntity(storage.dictionary.byId.get(entity.typeId)!, entity.content));
    return [String(values[0]), Number(values[1])];
  } finally {
    await storage.close();
  }
}

async function rescue(dir: string, options: Partial<RescueOptions> = {}): Promise<RescueReport> {
  return rescueStorage(dir, { out: `${dir}-rescued-${++counter}`, ...options });
}

describe('an object whose newest version is damaged', () => {
  it('is kept in its newest readable older version, with the reason naming where the newest lies', async () => {
    const t = tinyStorage();
    const [, second, third] = recordsOf(t.dir, t.kept);
    unknownType(third!);
    const phases = new Map<string, [number, number]>();
    const report = await rescue(t.dir, { onProgress: (phase, done, total) => void phases.set(phase, [done, total]) });
    expect(report.olderVersions.map((o) => [o.objectId, o.typeName])).toEqual([[t.kept, 't.Node']]);
    expect(report.olderVersions[0]!.reason).toContain(`(${third!.file} at offset ${third!.offset})`);
    expect(report.lost).toEqual([]);
    // The second version (n=2), not the first.
    expect(await valuesIn(report.out, t.kept)).toEqual(['0', 2]);
    expect(second!.offset).toBeLessThan(third!.offset);
    const [done, total] = phases.get('looking for older versions')!;
    expect([done, total]).toEqual([readFileSync(third!.file).length, readFileSync(third!.file).length]);
  });
});

describe('older versions in a data file cut inside a record', () => {
  it('are looked for only up to where the file is cut', async () => {
    const t = tinyStorage();
    const versions = recordsOf(t.dir, t.kept);
    unknownType(versions[2]!);
    const [newest] = recordsOf(t.dir, t.lost).slice(-1);
    truncateSync(newest!.file, newest!.offset + 30); // the fourth store's record cut after its header
    const report = await rescue(t.dir);
    expect(report.olderVersions.map((o) => o.objectId).sort()).toEqual([t.kept, t.lost].sort());
    expect(await valuesIn(report.out, t.kept)).toEqual(['0', 2]);
    expect(await valuesIn(report.out, t.lost)).toEqual(['0', 1]);
    expect(report.unreadableRegions.map((r) => [r.file, r.from])).toEqual([[newest!.file, newest!.offset]]);
  });
});

describe('an object every version of which is damaged', () => {
  it('is lost, and the newest version of its referrer is rewritten with the reference replaced', async () => {
    const t = tinyStorage();
    for (const r of recordsOf(t.dir, t.lost)) unknownType(r);
    const report = await rescue(t.dir);
    expect(report.lost.map((l) => [l.objectId, l.typeName])).toEqual([[t.lost, undefined]]);
    expect(report.olderVersions).toEqual([]);
    // The holder's newest version refers to `kept` (n=6); only its first referred to `lost`.
    expect(await valuesIn(report.out, t.holder)).toEqual([String(t.kept), 6]);
    expect(await valuesIn(report.out, t.lost)).toBeUndefined();
    expect(report.keepDangling).toBe(false);
  });

  it('with keepDangling: the newest readable versions that refer to it are listed, nothing replaced', async () => {
    const t = tinyStorage();
    // The newest `lost` refers to `kept`; make `kept` lost instead: its three versions damaged.
    for (const r of recordsOf(t.dir, t.kept)) unknownType(r);
    const report = await rescue(t.dir, { keepDangling: true });
    expect(report.lost.map((l) => l.objectId)).toEqual([t.kept]);
    expect(report.keepDangling).toBe(true);
    expect(report.dangling.map((d) => [d.referrer, d.referrerType, d.missing])).toEqual([
      [t.holder, 't.Node', t.kept],
      [t.lost, 't.Node', t.kept],
    ]);
    expect(report.danglingCount).toBe(2);
    expect(report.replacedCount).toBe(0);
    expect(await valuesIn(report.out, t.holder)).toEqual([String(t.kept), 6]);
  });

  it('without keepDangling: every referrer of it is rewritten, and one that refers elsewhere is not', async () => {
    const t = tinyStorage();
    for (const r of recordsOf(t.dir, t.kept)) unknownType(r);
    const report = await rescue(t.dir);
    expect(report.replaced.map((r) => r.lost).sort()).toEqual([t.kept, t.kept]);
    expect(report.replacedCount).toBe(2);
    expect(await valuesIn(report.out, t.holder)).toEqual(['0', 6]);
    expect(await valuesIn(report.out, t.lost)).toEqual(['0', 4]);
    expect(await valuesIn(report.out, t.bystander)).toEqual(['0', 7]);
  });
});

describe('damage that only the chunk checksums of EclipseStore 4.2 find', () => {
  it('a newest version in a chunk that fails its checksum is replaced by the older version', async () => {
    const t = tinyStorage({ checksums: 'crc32c' });
    const versions = recordsOf(t.dir, t.kept);
    flipContent(versions[2]!); // n=3 becomes n=2: readable, only the checksum tells
    const phases: string[] = [];
    const report = await rescue(t.dir, { onProgress: (phase) => void (phases.includes(phase) || phases.push(phase)) });
    expect(phases).toEqual(['verifying chunk checksums', 'indexing', 'copying', 'looking for older versions']);
    expect(report.checksums).toBe('crc32c');
    expect(report.olderVersions.map((o) => o.objectId)).toEqual([t.kept]);
    expect(await valuesIn(report.out, t.kept)).toEqual(['0', 2]);
  });

  it('an older version in a chunk that fails its checksum is passed over for an earlier one', async () => {
    const t = tinyStorage({ checksums: 'crc32c' });
    const versions = recordsOf(t.dir, t.kept);
    flipContent(versions[2]!);
    flipContent(versions[1]!); // the second store's chunk: holder's second version lies there too
    const report = await rescue(t.dir);
    expect(report.olderVersions.map((o) => o.objectId).sort()).toEqual([t.kept, t.holder].sort());
    expect(await valuesIn(report.out, t.kept)).toEqual(['0', 1]);
    expect(await valuesIn(report.out, t.holder)).toEqual([String(t.lost), 5]);
  });

  it('with keepDangling, a referrer whose newest version lies in a damaged chunk is not listed as referring', async () => {
    const t = tinyStorage({ checksums: 'crc32c' });
    // Every store's chunk of `kept` fails: `holder` (stores 1 and 2) is lost with it; `lost` (store 4) refers to `kept`.
    for (const r of recordsOf(t.dir, t.kept)) flipContent(r);
    const report = await rescue(t.dir, { keepDangling: true });
    expect(report.lost.map((l) => l.objectId)).toEqual(expect.arrayContaining([t.kept, t.holder]));
    expect(report.dangling.filter((d) => d.missing === t.kept).map((d) => d.referrer)).toEqual([t.lost]);
  });

  it('without keepDangling, a referrer whose newest version lies in a damaged chunk is not rewritten into the rescue', async () => {
    const t = tinyStorage({ checksums: 'crc32c' });
    for (const r of recordsOf(t.dir, t.kept)) flipContent(r); // `holder` lies in the damaged chunks of stores 1 and 2
    const report = await rescue(t.dir);
    expect(report.lost.map((l) => l.objectId)).toEqual(expect.arrayContaining([t.kept, t.holder]));
    expect(await valuesIn(report.out, t.holder)).toBeUndefined();
    expect(await valuesIn(report.out, t.lost)).toEqual(['0', 4]);
  });

  it('the new storage is written with the source’s checksums unless told otherwise', async () => {
    const t = tinyStorage({ checksums: 'crc32c' });
    const same = await rescue(t.dir);
    expect(same.checksums).toBe('crc32c');
    const none = await rescue(t.dir, { checksums: 'none' });
    expect(none.checksums).toBe('none');
    const reopened = await Storage.open(same.out);
    const plain = await Storage.open(none.out);
    try {
      expect([reopened.entityCount, plain.entityCount]).toEqual([plain.entityCount, reopened.entityCount]);
    } finally {
      await reopened.close();
      await plain.close();
    }
    // A 4.2 data file opens with its file header; a 4.1 one with the first record.
    const first = (dir: string): number => Number(readFileSync(join(dir, 'channel_0', 'channel_0_1.dat')).readBigInt64LE(0));
    expect(first(none.out)).toBeGreaterThan(0);
    expect(first(same.out)).not.toBe(first(none.out));
  });
});

describe('what a rescue reports and where it writes', () => {
  it('names the source, the target, the channels and no point in time', async () => {
    const t = tinyStorage();
    // A file of the user's beside the dictionary, and bytes after the last commit (a store cut off
    // while written: a problem of the storage, but no committed bytes are missing).
    writeFileSync(join(t.dir, 'README.txt'), 'our storage');
    appendFileSync(join(t.dir, 'channel_0', 'channel_0_1.dat'), Buffer.alloc(64, 0xab));
    const out = join(work, 'report-out');
    const phases: string[] = [];
    const targets: (string | undefined)[] = [];
    const report = await rescueStorage(t.dir, {
      out,
      onProgress: (phase) => void (phases.includes(phase) || phases.push(phase)),
      onTemporaryTarget: (target) => void targets.push(target?.path),
    });
    expect([report.source, report.out, report.channels, report.asOf, report.kind, report.checksums]).toEqual([t.dir, out, 1, undefined, undefined, 'none']);
    expect([report.missingData, report.lost, report.olderVersions, report.unreadableRegions]).toEqual([[], [], [], []]);
    expect(report.hasRoots).toBe(true);
    expect(report.keptObjects).toBeGreaterThan(4);
    expect(phases).toEqual(['indexing', 'copying']); // no chunk checksums to verify in a 4.1 storage
    expect(targets).toHaveLength(2);
    expect(targets[0]).toMatch(/\.report-out\.rescue-/);
    expect(targets[1]).toBeUndefined();
    expect(existsSync(targets[0]!)).toBe(false);
    expect(await valuesIn(out, t.kept)).toEqual(['0', 3]);
  });

  it('refuses a target inside the storage, or the storage itself, before writing anything', async () => {
    const t = tinyStorage();
    const before = readdirSync(t.dir).sort();
    await expect(rescueStorage(t.dir, { out: t.dir })).rejects.toThrow(new UsageError(`--out ${t.dir} lies inside the storage ${t.dir}: rescue never writes into the storage it reads`));
    const inside = join(t.dir, 'not', 'yet', 'there');
    await expect(rescueStorage(t.dir, { out: inside })).rejects.toThrow(/lies inside the storage/);
    await expect(rescueStorage(t.dir, { out: join(t.dir, 'channel_0') })).rejects.toThrow(/lies inside the storage/);
    expect(readdirSync(t.dir).sort()).toEqual(before);
    // Next to it is fine, even with a name that starts like it.
    const beside = await rescueStorage(t.dir, { out: `${t.dir}x/new` });
    expect(beside.out).toBe(`${t.dir}x/new`);
  });

  it('refuses a storage without its type dictionary, and leaves no hidden directory behind', async () => {
    const t = tinyStorage();
    rmSync(join(t.dir, 'PersistenceTypeDictionary.ptd'));
    writeFileSync(join(t.dir, 'notes.txt'), 'another file in the storage directory');
    const out = join(work, 'no-dictionary', 'out');
    const error = await rescueStorage(t.dir, { out }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('STORAGE_NOT_A_STORAGE');
    expect((error as StorageError).message).toBe(
      `${t.dir}: the type dictionary PersistenceTypeDictionary.ptd is missing; nothing can be decoded without it (restore it from a backup)`,
    );
    expect(readdirSync(join(work, 'no-dictionary'))).toEqual([]);
  });

  it('refuses a type dictionary larger than maxDictionaryBytes', async () => {
    const t = tinyStorage();
    await expect(rescue(t.dir, { maxDictionaryBytes: 1000 })).rejects.toThrow(/dictionary/i);
    await expect(rescue(t.dir, { maxDictionaryBytes: 10_000_000 })).resolves.toMatchObject({ lost: [] });
  });

  it('writes a commit per batchBytes of records', async () => {
    const t = tinyStorage();
    const one = await rescue(t.dir);
    const many = await rescue(t.dir, { batchBytes: 1 });
    const stores = (dir: string): number => readFileSync(join(dir, 'channel_0', 'transactions_0.sft')).length;
    expect(stores(many.out)).toBeGreaterThan(stores(one.out));
    expect(many.keptObjects).toBe(one.keptObjects);
  });
});

describe('a rescue as of an earlier commit', () => {
  it('rebuilds that commit, and bytes gone from the newest state are not its missing data', async () => {
    const t = tinyStorage();
    const [last] = recordsOf(t.dir, t.lost).slice(-1);
    truncateSync(last!.file, last!.offset); // the fourth store's record is gone
    const latest = await rescue(t.dir);
    expect(latest.missingData.map((m) => m.missingBytes)).toEqual([{ from: last!.offset, to: last!.offset + last!.length }]);
    const size = (await CommitHistory.read(await scanStorageDirectory(t.dir))).size;
    const earlier = await rescue(t.dir, { asOf: { commit: size - 1 } });
    expect(earlier.asOf?.number).toBe(size - 1);
    expect(earlier.missingData).toEqual([]);
    expect(await valuesIn(earlier.out, t.kept)).toEqual(['0', 3]);
    const older = await rescue(t.dir, { asOf: { commit: size - 2 } });
    expect(await valuesIn(older.out, t.kept)).toEqual(['0', 2]);
  });
});

describe('a storage that is not a directory', () => {
  it('is rescued from the source given (an SQLite database), its kind in the report, the target not compared with a directory', async () => {
    const db = join(work, 'graph.db');
    cpSync(sqliteFile('graph'), db);
    const out = join(work, 'from-sqlite');
    // Not compared as a directory with the target: the database file itself as --out is refused for what it is.
    await expect(rescueStorage(openStorageSource(db, { table: 'storage' }), { out: db })).rejects.toThrow(`--out ${db} exists and is not a directory`);
    const report = await rescueStorage(openStorageSource(db, { table: 'storage' }), { out });
    expect([report.kind, report.lost, report.missingData]).toEqual(['sqlite', [], []]);
    const rescued = await Storage.open(out);
    try {
      expect(rescued.entityCount).toBe(report.keptObjects);
    } finally {
      await rescued.close();
    }
  });

  it('a directory given as a source is rescued like its path', async () => {
    const t = tinyStorage();
    const report = await rescueStorage(new DirectorySource(t.dir), { out: join(work, 'from-source') });
    expect([report.source, report.kind]).toEqual([t.dir, undefined]);
    expect(await valuesIn(report.out, t.kept)).toEqual(['0', 3]);
  });
});

describe('the passes over older versions and referrers (older-versions.ts)', () => {
  it('findOlderVersions: the newest version that is not the newest, of the ids asked for only', async () => {
    const t = tinyStorage();
    const versions = recordsOf(t.dir, t.kept);
    const storage = await Storage.open(t.dir);
    try {
      const found = await findOlderVersions(storage, new Set([t.kept]));
      expect([...found.keys()]).toEqual([t.kept]);
      expect([found.get(t.kept)!.file, found.get(t.kept)!.offset, found.get(t.kept)!.channel]).toEqual([versions[1]!.file, versions[1]!.offset, 0]);
      expect(found.get(t.kept)!.record.length).toBe(versions[1]!.length);
      // bystander has a single version: nothing older.
      expect((await findOlderVersions(storage, new Set([t.bystander]))).size).toBe(0);
      // A version in a place that counts as damaged is passed over.
      const older = await findOlderVersions(storage, new Set([t.kept]), undefined, (file, offset) => (file === versions[1]!.file && offset === versions[1]!.offset ? 'damaged' : undefined));
      expect(older.get(t.kept)!.offset).toBe(versions[0]!.offset);
    } finally {
      await storage.close();
    }
  });

  it('findReferrers and findReferrerRecords: the newest readable versions that refer to the ids, and only those', async () => {
    const t = tinyStorage();
    const storage = await Storage.open(t.dir);
    try {
      // Newest versions: holder → kept, lost → kept; kept, bystander refer to nobody.
      const referrers = await findReferrers(storage, new Set([t.kept]));
      expect(referrers.map((r) => [r.referrer, r.referrerType, r.missing])).toEqual([
        [t.holder, 't.Node', t.kept],
        [t.lost, 't.Node', t.kept],
      ]);
      const records = await findReferrerRecords(storage, new Set([t.kept]));
      expect(records.map((r) => r.record.readBigInt64LE(16))).toEqual([t.holder, t.lost]);
      expect(records.map((r) => [r.channel, r.record.length])).toEqual([
        [0, recordsOf(t.dir, t.holder)[1]!.length],
        [0, recordsOf(t.dir, t.lost)[1]!.length],
      ]);
      expect(await findReferrerRecords(storage, new Set([t.bystander]))).toEqual([]);
      const holderAt = recordsOf(t.dir, t.holder)[1]!;
      const damagedHolder = (file: string, offset: number): string | undefined => (file === holderAt.file && offset === holderAt.offset ? 'damaged' : undefined);
      expect((await findReferrerRecords(storage, new Set([t.kept]), damagedHolder)).map((r) => r.record.readBigInt64LE(16))).toEqual([t.lost]);
      expect((await findReferrers(storage, new Set([t.kept]), damagedHolder)).map((r) => r.referrer)).toEqual([t.lost]);
    } finally {
      await storage.close();
    }
  });
});
