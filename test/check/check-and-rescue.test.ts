import { cpSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/check/check-storage.js';
import type { Problem } from '../../src/check/problem.js';
import { parseTransactionLog } from '../../src/format/transaction-log.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { cutInside } from '../../src/writer/store-plan.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';
import { mapDataFile, dictionaryOf } from '../robustness/damage-lab.js';
import { checkAndRescue, type RescueOutcome } from '../robustness/rescue-lab.js';
import { corpusStorage } from '../security/server.js';

/**
 * The damage laboratory for `check` and `rescue`: each kind of damage a real storage suffers,
 * made to copies of corpus storages (written by MicroStream 4.1) and of generated ones. For each:
 * `check` exits 1 and names the file and offset, with what MicroStream would say; `rescue` writes
 * a storage on which `check` exits 0 and which answers every recovered object as the damaged
 * original did (see rescue-lab.ts); the original's files are unchanged.
 */

let work: string;
let generated2: string;
let generated4: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-check-rescue-'));
  generated2 = join(work, 'generated-2');
  generated4 = join(work, 'generated-4');
  generateStorage({ directory: generated2, entities: 3000, channelCount: 2, seed: 5, fileMaximumSize: 16 * 1024, entitiesPerStore: 200 });
  generateStorage({ directory: generated4, entities: 3000, channelCount: 4, seed: 6, fileMaximumSize: 16 * 1024, entitiesPerStore: 200 });
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** A corpus storage by name, or one of the generated ones (`generated-2`, `generated-4`). */
function sourceOf(name: string): string {
  return name === 'generated-2' ? generated2 : name === 'generated-4' ? generated4 : corpusStorage(name);
}

let counter = 0;

/** A fresh copy of a storage, damaged by `damage`, then checked and rescued. */
async function damaged(source: string, damage: (dir: string) => void): Promise<RescueOutcome & { dir: string }> {
  const dir = join(work, `case-${++counter}`);
  cpSync(source, dir, { recursive: true });
  damage(dir);
  const outcome = await checkAndRescue(dir, `${dir}-rescued`);
  return { ...outcome, dir };
}

/** The problems of a report at a file (relative to the storage) and offset. */
function at(report: CheckReport, dir: string, file: string, offset?: number): Problem[] {
  return report.problems.filter((p) => p.file !== undefined && relative(dir, p.file) === file && (offset === undefined || p.offset === offset));
}

/** What every case must show beyond its own expectations. */
function expectRescued(outcome: RescueOutcome): void {
  expect(outcome.before.exitCode).toBe(1);
  expect(outcome.after.problems.filter((p) => p.severity === 'refuses-start')).toEqual([]);
  expect(outcome.after.exitCode, JSON.stringify(outcome.after.problems.slice(0, 3))).toBe(0);
  expect(outcome.mismatches.slice(0, 5), `${outcome.mismatches.length} of ${outcome.compared} answers differ`).toEqual([]);
  expect(outcome.compared).toBeGreaterThan(100);
  expect(outcome.originalChanged).toEqual([]);
  expect(outcome.rescue.hasRoots).toBe(true);
}

function records(source: string, file: string) {
  const dictionary = dictionaryOf(readFileSync(join(source, 'PersistenceTypeDictionary.ptd'), 'utf8'));
  return mapDataFile(readFileSync(join(source, file)), dictionary).records;
}

describe('a data file the log names is missing', () => {
  it.each([
    ['graph', 'channel_0/channel_0_12.dat'],
    ['generated-4', 'channel_2/channel_2_3.dat'],
  ])('%s: %s removed', async (name, file) => {
    const o = await damaged(sourceOf(name), (dir) => rmSync(join(dir, file)));
    const [problem] = at(o.before, o.dir, file, 0);
    expect(problem?.code).toBe('DATA_FILE_MISSING');
    expect(problem?.java?.message).toMatch(/^Non-deleted non-empty data file not found: channel \d, file \d+$/);
    expect(problem?.java?.exception).toBe('one.microstream.storage.exceptions.StorageException');
    expect(o.served).toBe(false);
    expect(o.rescue.missingData.map((m) => [relative(o.dir, m.file!), m.missingBytes?.from])).toEqual([[file, 0]]);
    expectRescued(o);
  });
});

describe('a data file truncated inside committed records', () => {
  it.each([
    ['graph, a file before the head file', 'graph', 'channel_1/channel_1_9.dat', 0.5],
    ['graph, the head file of channel 1', 'graph', 'channel_1/channel_1_16.dat', 0.7],
    ['collections (4 channels), inside a 30 kB record', 'collections', 'channel_3/channel_3_2.dat', 0.5],
  ])('%s', async (_name, corpus, file, fraction) => {
    const source = corpusStorage(corpus);
    const list = records(source, file).filter((r) => r.length > 60);
    const record = list[Math.floor(list.length * fraction)]!;
    const cut = record.offset + 30; // the header is still complete: the object is known
    const o = await damaged(source, (dir) => truncateSync(join(dir, file), cut));
    const [problem] = at(o.before, o.dir, file, cut);
    expect(problem?.code).toBe('DATA_FILE_TOO_SHORT');
    expect(problem?.java?.message).toMatch(new RegExp(`^\\d Length ${cut} of file \\d+ is inconsinstent with the transactions entry's length of \\d+$`));
    // The record cut in half: its object is kept in an older version or listed as lost.
    expect([...o.rescue.olderVersions.map((v) => v.objectId), ...o.rescue.lost.map((l) => l.objectId)]).toContain(record.objectId);
    expect(o.rescue.unreadableRegions.map((r) => [relative(o.dir, r.file), r.from])).toEqual([[file, record.offset]]);
    expectRescued(o);
  });
});

describe('overwritten bytes in a transaction log entry', () => {
  const source = corpusStorage('graph');
  const log = 'channel_1/transactions_1.sft';
  const entries = parseTransactionLog(readFileSync(join(source, log))).entries;
  const store = entries.filter((e) => e.type === 'store')[5]!;
  it.each([
    ['type byte', 1, 0x07, /^Unknown transactions entry type: 7$/],
    ['length byte', 0, 0x00, /^Zero length transactions entry\.$/],
    ['file length', 17, 0x80, /^1 Inconsistent file length of file \d+: -\d+ < \d+$/],
  ])('the %s of a store entry', async (_name, field, value, message) => {
    const o = await damaged(source, (dir) => {
      const bytes = readFileSync(join(dir, log));
      bytes[store.offset + field] = value;
      writeFileSync(join(dir, log), bytes);
    });
    const [problem] = at(o.before, o.dir, log, store.offset);
    expect(problem?.code).toBe('LOG_INVALID');
    expect(problem?.java?.message).toMatch(message);
    expectRescued(o);
  });
});

describe('a record header with an impossible length', () => {
  it.each([
    ['graph', 'channel_1/channel_1_10.dat'],
    ['generated-2', 'channel_1/channel_1_2.dat'],
  ])('%s: the fourth record of %s', async (name, file) => {
    const source = sourceOf(name);
    const record = records(source, file)[3]!;
    const o = await damaged(source, (dir) => {
      const bytes = readFileSync(join(dir, file));
      bytes.writeInt32LE(0x100, record.offset + 4); // high word: 2^40 more bytes
      writeFileSync(join(dir, file), bytes);
    });
    const [problem] = at(o.before, o.dir, file, record.offset);
    expect(problem?.code).toBe('RECORD_LENGTH_IMPOSSIBLE');
    expect(problem?.severity).toBe('data-lost');
    expect(problem?.meaning).toContain(`a record header claims ${BigInt(record.length) + (0x100n << 32n)} bytes`);
    expect(o.rescue.unreadableRegions.map((r) => [relative(o.dir, r.file), r.from])).toEqual([[file, record.offset]]);
    expectRescued(o);
  });
});

describe('an unknown type id', () => {
  it.each([
    ['graph', 'channel_0/channel_0_14.dat'],
    ['generated-4', 'channel_3/channel_3_4.dat'],
  ])('%s: a record near the end of %s', async (name, file) => {
    const source = sourceOf(name);
    const record = records(source, file).at(-2)!;
    const o = await damaged(source, (dir) => {
      const bytes = readFileSync(join(dir, file));
      bytes.writeBigInt64LE(999_999n, record.offset + 8);
      writeFileSync(join(dir, file), bytes);
    });
    const problem = o.before.problems.find((p) => p.code === 'UNKNOWN_TYPE_ID');
    expect(problem === undefined ? undefined : [relative(o.dir, problem.file!), problem.offset]).toEqual([file, record.offset]);
    expect(problem?.java?.message).toBe('TypeId not resolvable via type dictionary: 999999');
    const kept = o.rescue.olderVersions.some((v) => v.objectId === record.objectId);
    const lost = o.rescue.lost.some((l) => l.objectId === record.objectId);
    expect(kept || lost).toBe(true);
    expectRescued(o);
  });
});

describe('a store that reached only some channels', () => {
  it('generated (2 channels): the store entry of channel 0 written, not that of channel 1', async () => {
    const dir = join(work, 'partial-store');
    cpSync(generated2, dir, { recursive: true });
    const writer = await StorageWriter.open(dir);
    const note = writer.defineType('gen.Note', reflectiveMembers('gen.Note', [{ name: 'text', type: 'java.lang.String' }, { name: 'priority', type: 'int' }]));
    const store = writer.beginStore();
    for (let i = 0; i < 10; i++) store.add(note, writer.newObjectId(), [null, i]);
    const plan = writer.planStore(store);
    // Every write up to and including channel 0's store entry, nothing of channel 1's.
    writer.applyStore(plan, cutInside(plan, { kind: 'log', channel: 1, occurrence: 'last' }, 0));
    writer.close();
    const head0 = plan.writes.filter((w) => w.kind === 'data' && w.channel === 0)[0]!;
    const outcome = await checkAndRescue(dir, `${dir}-rescued`);
    const [problem] = at(outcome.before, dir, relative(dir, head0.path), head0.position);
    expect(problem?.code).toBe('STORE_INCOMPLETE_ACROSS_CHANNELS');
    expect(problem?.severity).toBe('data-lost');
    expect(outcome.served).toBe(true);
    expectRescued(outcome);
  });
});

describe('a stale lock file', () => {
  it('graph: a lock copied with the files from a running application (or left by a crash)', async () => {
    const now = Date.now();
    const o = await damaged(corpusStorage('graph'), (dir) => writeFileSync(join(dir, 'used.lock'), `${now - 2000};${now + 3_600_000};app-node-7`));
    const [problem] = at(o.before, o.dir, 'used.lock', 0);
    expect(problem?.code).toBe('LOCK_FILE_HELD');
    expect(problem?.java?.message).toBe('Storage already in use by: app-node-7');
    expect(o.rescue.keptObjects).toBe(1263);
    expectRescued(o);
  });
});

describe('a dictionary missing a type', () => {
  it('graph without conformance.bookstore.Country', async () => {
    const source = corpusStorage('graph');
    const text = readFileSync(join(source, 'PersistenceTypeDictionary.ptd'), 'utf8');
    const entry = /^(\d+) conformance\.bookstore\.Country\{[\s\S]*?^\}\n/m.exec(text)!;
    const o = await damaged(source, (dir) => writeFileSync(join(dir, 'PersistenceTypeDictionary.ptd'), text.replace(entry[0], '')));
    const problem = o.before.problems.find((p) => p.code === 'UNKNOWN_TYPE_ID');
    expect(problem?.java?.message).toBe(`TypeId not resolvable via type dictionary: ${BigInt(entry[1]!)}`);
    expect(problem?.file).toMatch(/channel_\d\/channel_\d_\d+\.dat$/);
    expect(problem?.offset).toBeGreaterThanOrEqual(0);
    // Every country is lost (no older version has a known type either), and so are the references to them.
    expect(o.rescue.lost.length).toBe(problem?.count);
    expect(o.rescue.lost.every((l) => l.typeId === BigInt(entry[1]!))).toBe(true);
    expect(o.rescue.replacedCount).toBeGreaterThan(0);
    expect(o.rescue.danglingCount).toBe(0);
    expectRescued(o);
  });
});
