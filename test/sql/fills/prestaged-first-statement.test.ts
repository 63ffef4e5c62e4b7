import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadDuck } from '../../../src/sql/duck-module.js';
import { PrestagedTypes } from '../../../src/sql/fills/prestaged-types.js';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { planTypeTable } from '../../../src/sql/tables/column-model.js';
import { Storage } from '../../../src/storage/storage.js';
import { StorageWriter } from '../../../src/writer/storage-writer.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { recordOffset } from '../../helpers/corpora/bytes.js';

/**
 * The types the first statement of a build names are staged by the build's own pass over the
 * records (fills/prestaged-types.ts), so that the statement's fill only joins them to `_values`
 * and reads no record again. Every answer is the one a fill that walks the records gives (an
 * engine whose schema was asked for first builds without a statement, and walks), and so are
 * the problems told of damaged records: once each.
 */

const BOOK = 'conformance.bookstore.Book';
let storage: Storage;
const engines: SqlEngine[] = [];

beforeAll(async () => {
  storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', 'graph'));
});
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(async () => {
  await Promise.all(engines.map((engine) => engine.close()));
  await storage.close();
});

function engineOf(over: Storage = storage, onProblem?: (message: string) => void): SqlEngine {
  const engine = new SqlEngine({ storage: over, timeoutMs: 0, ...(onProblem === undefined ? {} : { onProblem }) });
  engines.push(engine);
  return engine;
}

/** Files' reads over the storage (each pass over the records reads every data file once). */
function countReads(over: Storage = storage): () => number {
  const reads = vi.spyOn(over.source, 'chunks');
  return () => reads.mock.calls.length;
}

async function rows(engine: SqlEngine, sql: string): Promise<string> {
  return JSON.stringify((await engine.query(sql, { limit: 100_000 })).rows);
}

describe('the first statement of a build', () => {
  it('has its types staged and the values it needs made by the build: no other pass reads the records, and its fill takes them', async () => {
    const reads = countReads();
    const taken = vi.spyOn(PrestagedTypes.prototype, 'takeFor');
    const walked = engineOf();
    await walked.schema();
    const build = reads();
    expect(build).toBeGreaterThan(0);
    const sql = `SELECT title, price, genre FROM "${BOOK}" ORDER BY _oid`;
    const expected = await rows(walked, sql);
    // Built without a statement: nothing staged, and the fill walked every file again, and so
    // did a value fill for the titles (Strings, which the base pass leaves for later).
    expect(taken).not.toHaveBeenCalled();
    const walkedReads = reads();
    expect(walkedReads).toBe(3 * build);

    const staged = engineOf();
    expect(await rows(staged, sql)).toBe(expected);
    // The build's pass alone.
    expect(reads() - walkedReads).toBe(build);
    expect(taken).toHaveBeenCalledTimes(1);
    expect([...taken.mock.results[0]!.value.keys()].map((plan: { typeName: string }) => plan.typeName)).toEqual([BOOK]);
    // The staged rows are gone with their catalog once taken.
    expect(await rows(staged, "SELECT count(*) FROM information_schema.tables WHERE table_name LIKE '__prestaged%'")).toBe('[["0"]]');
  });

  it('that reads `_values` has every value made by the build, and answers as a value fill does', async () => {
    const reads = countReads();
    const sql = 'SELECT type_id, count(*), min(text), max(text) FROM _values GROUP BY type_id ORDER BY type_id';
    const walked = engineOf();
    await walked.schema();
    const build = reads();
    const expected = await rows(walked, sql);
    expect(reads()).toBe(2 * build);
    const staged = engineOf();
    expect(await rows(staged, sql)).toBe(expected);
    expect(reads()).toBe(3 * build);
    // A later statement on Book: each engine's fill walks for Book, and neither makes a value fill.
    expect(await rows(staged, `SELECT title FROM "${BOOK}" ORDER BY _oid`)).toBe(await rows(walked, `SELECT title FROM "${BOOK}" ORDER BY _oid`));
    expect(reads()).toBe(5 * build);
  });

  it('answers as a fill that walks the records, whatever it names and however, and so do the statements after it', async () => {
    const firsts = [
      'SELECT * FROM book ORDER BY _oid',
      `SELECT _oid, title FROM "${BOOK}" ORDER BY _oid`,
      'SELECT b.title, a.name FROM Book b JOIN Author a ON a._oid = b.author ORDER BY b._oid',
      'WITH cheap AS (SELECT * FROM BOOK WHERE price < 20) SELECT count(*), sum(price) FROM cheap',
      'SELECT count(*) FROM Book, _values WHERE _values.oid = Book._oid',
      'SUMMARIZE Customer',
    ];
    const after = ['SELECT * FROM Book ORDER BY _oid', 'SELECT * FROM Author ORDER BY _oid', 'SELECT * FROM Customer ORDER BY _oid'];
    for (const first of firsts) {
      const walked = engineOf();
      await walked.schema();
      const staged = engineOf();
      expect(await rows(staged, first), first).toBe(await rows(walked, first));
      for (const next of after) expect(await rows(staged, next), `${first}, then ${next}`).toBe(await rows(walked, next));
    }
  });
});

describe('rows staged and not taken', () => {
  it('are left for a fill that asks for other members, and dropped with their catalog', async () => {
    const duck = await loadDuck();
    const instance = await duck.DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      const hint = { tables: new Set(['book']), columns: new Set(['title']) };
      const prestaged = (await PrestagedTypes.make(duck, connection, () => instance.connect(), storage, hint))!;
      const plan = prestaged.planOf(BOOK)!;
      prestaged.close();
      const title = plan.columns.findIndex((c) => c.name === 'title');
      const others = new Set(plan.columns.flatMap((_, i) => (i === title ? [] : [i])));
      // Another plan of the same type (not the build's), or other members: not taken.
      const another = planTypeTable(BOOK, storage.dictionary.entries.filter((e) => e.typeName === BOOK), storage.dictionary);
      expect(prestaged.takeFor([another], new Map([[another, others]])).size).toBe(0);
      expect(prestaged.takeFor([plan], new Map([[plan, new Set()]])).size).toBe(0);
      const names = async (): Promise<unknown[]> => (await connection.runAndReadAll("SELECT table_name FROM duckdb_tables() WHERE database_name = '__prestaged'")).getRows().map((r) => r[0]);
      expect(await names()).toHaveLength(1);
      expect([...prestaged.takeFor([plan], new Map([[plan, others]])).keys()]).toEqual([plan]);
      // Taken once.
      expect(prestaged.takeFor([plan], new Map([[plan, others]])).size).toBe(0);
      await prestaged.drop(() => instance.connect());
      expect(await names()).toEqual([]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});

describe('damaged records of a type the first statement names', () => {
  let work: string;
  let damaged: Storage;
  let dataFile: string;
  const at: Record<string, number> = {};
  const ids: Record<string, bigint> = {};

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'si-sql-prestaged-'));
    const dir = join(work, 'storage');
    const writer = StorageWriter.create(dir, { now: () => 1_700_000_000_000 });
    // An int and a list: neither a fixed layout nor one list alone, so laid out by the handler.
    const scored = writer.defineType('t.Scored', [
      { kind: 'primitive', typeName: 'int', name: 'score' },
      { kind: 'list', typeName: '[list]', name: 'marks', elements: [{ kind: 'primitive', typeName: 'int', name: 'v' }] },
    ]);
    const store = writer.beginStore();
    for (const name of ['good', 'bad', 'worse', 'fine']) {
      ids[name] = writer.newObjectId();
      store.add(scored, ids[name]!, [7, [1, 2, 3]]);
    }
    writer.setRoot(ids.good!);
    writer.store(store);
    writer.close();
    dataFile = join(dir, 'channel_0', 'channel_0_1.dat');
    const data = readFileSync(dataFile);
    // The list's element count (after the int and the list's byte length) one more than its bytes hold.
    for (const name of ['bad', 'worse']) {
      const offset = recordOffset(data, ids[name]!);
      data.writeBigInt64LE(4n, offset + 24 + 4 + 8);
      // Where the problem is told: the list member's offset.
      at[name] = offset + 24 + 4;
    }
    writeFileSync(dataFile, data);
    damaged = await Storage.open(dir);
  });
  afterAll(async () => {
    await damaged?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('are told once each, as a walking fill tells them, and get no row', async () => {
    const told = async (schemaFirst: boolean): Promise<{ problems: string[]; answer: string }> => {
      const problems: string[] = [];
      const engine = engineOf(damaged, (message) => problems.push(message));
      if (schemaFirst) await engine.schema();
      const answer = await rows(engine, 'SELECT _oid, score, marks FROM "t.Scored" ORDER BY _oid');
      // A second statement on the table tells nothing again.
      await rows(engine, 'SELECT count(*) FROM "t.Scored"');
      return { problems, answer };
    };
    const staged = await told(false);
    const walked = await told(true);
    expect(staged.answer).toBe(walked.answer);
    expect(JSON.parse(staged.answer).map((row: unknown[]) => String(row[0]))).toEqual([String(ids.good), String(ids.fine)]);
    expect(staged.problems).toEqual(walked.problems);
    for (const name of ['bad', 'worse']) {
      const found = staged.problems.filter((p) => p.includes(`offset ${at[name]}`));
      expect(found, name).toHaveLength(1);
      expect(found[0]).toContain(dataFile);
    }
  });
});
