import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleTypeDictionary } from '../../src/format/dictionary-text.js';
import { aggregateTransactionLog, parseTransactionLog } from '../../src/format/transaction-log.js';
import { parseTypeDictionary } from '../../src/format/type-dictionary.js';
import { Storage } from '../../src/storage/storage.js';
import { generateStorage, type GenerateSummary } from '../../src/writer/generator/generate-storage.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { allRecords, dataFiles, get, liveTypes, objectIds, recomputeStatistics, storageFiles } from './storage-checks.js';

const ENTITIES = 2000;
const FILE_SIZE = 16 * 1024;

let base: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'gen-storage-'));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

describe.each([1, 4])('a generated storage with %i channel(s)', (channels) => {
  let dir: string;
  let summary: GenerateSummary;
  let storage: Storage;

  beforeAll(async () => {
    dir = join(base, `c${channels}`);
    summary = generateStorage({ directory: dir, entities: ENTITIES, channelCount: channels, seed: 42, fileMaximumSize: FILE_SIZE, entitiesPerStore: 256 });
    storage = await Storage.open(dir);
  });

  afterAll(async () => {
    await storage.close();
  });

  it('has exactly the requested entities and opens without warnings', () => {
    expect(summary.entities).toBe(ENTITIES);
    expect(storage.entityCount).toBe(ENTITIES);
    expect(storage.warnings).toEqual([]);
    expect(storage.channels).toHaveLength(channels);
  });

  it('rolls over to new data files and keeps older versions of updated objects', () => {
    for (let c = 0; c < channels; c++) {
      const files = dataFiles(dir, c);
      expect(files.length).toBeGreaterThan(1);
      expect(files.map((f) => f.fileNumber)).toEqual(files.map((_f, i) => i + 1));
      // Only the head file may be below the maximum size... and every file but the head reached it.
      for (const f of files.slice(0, -1)) expect(f.size).toBeGreaterThanOrEqual(FILE_SIZE);
    }
    expect(summary.records).toBe(allRecords(dir).length);
    expect(summary.records).toBeGreaterThan(ENTITIES * 1.05);
    expect(summary.files).toBe(storage.channels.reduce((n, c) => n + c.files.length, 0));
  });

  it('answers 200 for every object and resolves the root', async () => {
    const ids = objectIds(storage);
    expect(ids).toHaveLength(ENTITIES);
    expect(ids[0]).toBe(1000000000000000001n);
    expect(ids[ids.length - 1]).toBe(1000000000000000000n + BigInt(ENTITIES));
    for (const id of ids) {
      const answer = await get(storage, `object/${id}`);
      if (answer.status !== 200) throw new Error(`object ${id}: ${answer.status} ${answer.body.toString()} ${String(answer.error)}`);
    }
    expect(storage.rootObjectId).toBe(summary.rootObjectId);
    const root = await get(storage, 'root');
    expect(root.body.toString()).toBe(`{"name":"ROOT","objectId":"${summary.rootObjectId}"}`);
    const library = await storage.readEntity(storage.rootObjectId);
    expect(storage.dictionary.byId.get(library!.typeId)!.typeName).toBe('gen.Library');
  });

  it('has per-file statistics equal to a recomputation from the files', () => {
    const expected = recomputeStatistics(dir);
    const actual = new Map(storage.channels.flatMap((c) => c.files.map((f) => [f.path, { live: f.liveLength, total: f.totalLength }] as const)));
    expect(actual).toEqual(expected);
    const dead = [...expected.values()].filter((s) => s.live < s.total);
    expect(dead.length).toBeGreaterThan(0);
  });

  it('writes transaction logs that aggregate to the file sizes, with common store timestamps', () => {
    const timestamps: bigint[][] = [];
    for (let c = 0; c < channels; c++) {
      const path = join(dir, `channel_${c}`, `transactions_${c}.sft`);
      const parsed = parseTransactionLog(readFileSync(path), path);
      expect(parsed.incompleteTailOffset).toBeUndefined();
      const aggregate = aggregateTransactionLog(parsed.entries, path);
      const files = dataFiles(dir, c);
      expect([...aggregate.files.keys()]).toEqual(files.map((f) => BigInt(f.fileNumber)));
      for (const f of files) expect(aggregate.files.get(BigInt(f.fileNumber))!.length).toBe(f.size);
      expect(aggregate.headLatestLength).toBe(files[files.length - 1]!.size);
      expect(parsed.entries.filter((e) => e.type === 'creation').every((e) => e.fileLength === 0)).toBe(true);
      timestamps.push(parsed.entries.filter((e) => e.type === 'store').map((e) => e.timestamp));
    }
    for (const ts of timestamps) expect(ts).toEqual(timestamps[0]);
    expect(timestamps[0]!.length).toBe(summary.stores);
  });

  it('writes a canonical dictionary with two versions of gen.Book, both with live entities', () => {
    const text = readFileSync(join(dir, 'PersistenceTypeDictionary.ptd'), 'utf8');
    const dictionary = parseTypeDictionary(text);
    expect(assembleTypeDictionary(dictionary.entries)).toBe(text);
    const ids = dictionary.entries.map((e) => e.typeId);
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
    const books = dictionary.entries.filter((e) => e.typeName === 'gen.Book');
    expect(books.map((b) => b.typeId)).toEqual(summary.bookTypeIds);
    expect(books).toHaveLength(2);
    expect(books[0]!.fields.find((f) => f.name === 'pages')!.typeName).toBe('int');
    expect(books[1]!.fields.find((f) => f.name === 'pages')!.typeName).toBe('long');
    const live = [...liveTypes(dir).values()];
    for (const book of books) expect(live.filter((t) => t === book.typeId).length).toBeGreaterThan(10);
    // The dictionary starts with the built-in entries of a fresh 4.1 storage.
    const fresh = readFileSync(join(CONFORMANCE_DIR, 'storages', 'noroot', 'PersistenceTypeDictionary.ptd'), 'utf8');
    expect(text.startsWith(fresh)).toBe(true);
  });

  it('registers the enum constants in the roots', async () => {
    const tag = storage.dictionary.currentByName.get('gen.Tag')!;
    const roots = await get(storage, 'object/1000000000000000001');
    expect(roots.body.toString()).toContain(`"enum ${tag.typeId}"`);
  });
});

describe('determinism', () => {
  it('gives identical .dat and .ptd bytes for the same seed, different ones for another seed', () => {
    const options = { entities: 1500, channelCount: 2, fileMaximumSize: 8 * 1024, entitiesPerStore: 200 };
    generateStorage({ ...options, directory: join(base, 'a'), seed: 9 });
    generateStorage({ ...options, directory: join(base, 'b'), seed: 9, now: () => 0 });
    generateStorage({ ...options, directory: join(base, 'c'), seed: 10 });
    const a = storageFiles(join(base, 'a'));
    const b = storageFiles(join(base, 'b'));
    const c = storageFiles(join(base, 'c'));
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    for (const [name, bytes] of a) expect(bytes.equals(b.get(name)!), name).toBe(true);
    expect([...a].some(([name, bytes]) => !bytes.equals(c.get(name) ?? Buffer.alloc(0)))).toBe(true);
  });
});
