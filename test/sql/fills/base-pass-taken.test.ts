import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { ObjectIndex } from '../../../src/storage/index/object-index.js';
import { Storage } from '../../../src/storage/storage.js';
import { StorageWriter } from '../../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../../src/writer/type-definitions.js';

/**
 * The base pass (fills/base-pass.ts) decodes the big numbers (and enums, LocalDate, LocalTime,
 * LocalDateTime); of every other type it needs only to know that it has objects. Once it has met
 * a type's first latest record it takes no other record of that type: the index is not asked
 * whether they are latest (a lookup that misses the processor's caches, for millions of records).
 * Nor does it hand their records to its handler as record objects until it knows their type: a
 * type whose records make no rows there is learnt where the first one lies. The tables, the
 * object count and the answers are those of a pass that met every record.
 */

const STORES = 6;
const PER_STORE = 150;

let work: string;
let storage: Storage;
let records = 0;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'si-sql-base-pass-'));
  const dir = join(work, 'storage');
  // Small files: each store begins a new one, and the pass learns the types in the first.
  const writer = StorageWriter.create(dir, { now: () => 1_700_000_000_000, fileMaximumSize: 1024 });
  const decimal = writer.dictionary.require('java.math.BigDecimal');
  const string = writer.dictionary.require('java.lang.String');
  const item = writer.defineType(
    't.Item',
    reflectiveMembers('t.Item', [
      { name: 'price', type: 'java.math.BigDecimal' },
      { name: 'name', type: 'java.lang.String' },
      { name: 'n', type: 'int' },
    ]),
  );
  let first: bigint | undefined;
  for (let s = 0; s < STORES; s++) {
    const store = writer.beginStore();
    for (let i = 0; i < PER_STORE; i++) {
      const k = s * PER_STORE + i;
      const price = writer.newObjectId();
      store.add(decimal, price, [`${k}.${String(k % 100).padStart(2, '0')}`]);
      const name = writer.newObjectId();
      store.add(string, name, [`item ${k}`]);
      const id = writer.newObjectId();
      store.add(item, id, [price, name, k]);
      first ??= id;
      records += 3;
    }
    if (s === 0) writer.setRoot(first!);
    writer.store(store);
  }
  writer.close();
  storage = await Storage.open(dir);
});

afterAll(async () => {
  vi.restoreAllMocks();
  await storage?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the base pass', () => {
  it('asks the index about the records it decodes and about the first of every other type only', async () => {
    expect(readdirSync(join(work, 'storage', 'channel_0')).filter((f) => f.endsWith('.dat')).length).toBeGreaterThanOrEqual(STORES);
    let objects = -1;
    let handed = -1;
    const engine = new SqlEngine({ storage, onBuilt: (f) => (objects = f.objects), onBuildProgress: (p) => (handed = p.records) });
    try {
      const asked = vi.spyOn(ObjectIndex.prototype, 'isLatest');
      await engine.schema();
      const calls = asked.mock.calls.length;
      asked.mockRestore();
      // Every big number (one a row), and the items and names of the first file, where the pass
      // learnt their types (with the few objects the writer stores itself); not the items and
      // names of the other five files.
      expect(calls).toBeGreaterThanOrEqual(STORES * PER_STORE);
      expect(calls).toBeLessThan(STORES * PER_STORE + 3 * PER_STORE);
      expect(calls).toBeLessThan(records / 2);
      // Records handed to the pass's handler as record objects: those of the types it decodes met
      // before it learnt them (here a few in the writer's first store), none of the items or names
      // (each a record object with two bigints, until the end of its chunk).
      expect(handed).toBeGreaterThan(0);
      expect(handed).toBeLessThan(PER_STORE / 10);
      // The same tables and object count as a pass that met every record.
      expect(objects).toBe(storage.entityCount);
      const count = async (sql: string): Promise<string[]> => (await engine.query(sql, { limit: 10 })).rows[0]!.map(String);
      expect(await count('SELECT count(*) FROM _objects')).toEqual([String(objects)]);
      expect(await count('SELECT count(*), sum(n), sum(price), count(name), min(name) FROM "t.Item"')).toEqual([
        String(STORES * PER_STORE),
        String(((STORES * PER_STORE - 1) * STORES * PER_STORE) / 2),
        expectedPriceSum(),
        String(STORES * PER_STORE),
        'item 0',
      ]);
      expect(await count('SELECT count(*) FROM "java.lang.String" WHERE value LIKE \'item %\'')).toEqual([String(STORES * PER_STORE)]);
    } finally {
      await engine.close();
    }
  });
});

/** The sum of the prices `k.kk` (k % 100 after the point), as DuckDB prints a DECIMAL(18, 2) sum. */
function expectedPriceSum(): string {
  let cents = 0;
  for (let k = 0; k < STORES * PER_STORE; k++) cents += k * 100 + (k % 100);
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}
