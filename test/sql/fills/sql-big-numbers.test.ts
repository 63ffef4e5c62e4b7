import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { Storage } from '../../../src/storage/storage.js';
import { StorageWriter } from '../../../src/writer/storage-writer.js';
import { enumMembers, reflectiveMembers } from '../../../src/writer/type-definitions.js';

/**
 * The base pass stages the big numbers apart and moves them into `_values` after the build,
 * beside the first statement's fill (fills/table-build.ts): a table the build makes itself (an
 * enum's) that has a big-number member gets them before it is made; a type table filled for a
 * statement joins them once they are there; `_values` and the BigDecimal view hold every one.
 */

let work: string;
let storage: Storage;
const engines: SqlEngine[] = [];
const items: bigint[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'si-sql-big-numbers-'));
  const dir = join(work, 'storage');
  const writer = StorageWriter.create(dir, { now: () => 1_700_000_000_000 });
  const decimal = writer.dictionary.require('java.math.BigDecimal');
  const rate = writer.defineType('t.Rate', enumMembers('t.Rate', ['LOW', 'HIGH'], [{ name: 'amount', type: 'java.math.BigDecimal' }]));
  const item = writer.defineType(
    't.Item',
    reflectiveMembers('t.Item', [
      { name: 'price', type: 'java.math.BigDecimal' },
      { name: 'rate', type: 't.Rate' },
    ]),
  );
  const store = writer.beginStore();
  const amounts = ['1.50', '20.25'].map((text) => {
    const id = writer.newObjectId();
    store.add(decimal, id, [text]);
    return id;
  });
  // In the order the dictionary lays the members out (references first).
  const constants = writer.storeEnum(store, rate, (ordinal, nameId) => rate.fields.map((field) => ({ name: nameId, ordinal, amount: amounts[ordinal]! })[field.name]!));
  for (const [i, text] of ['3.10', '4.20', '5.30'].entries()) {
    const price = writer.newObjectId();
    store.add(decimal, price, [text]);
    const id = writer.newObjectId();
    store.add(item, id, [price, constants[i % 2]!]);
    items.push(id);
  }
  writer.setRoot(items[0]!);
  writer.store(store);
  writer.close();
  storage = await Storage.open(dir);
});

afterAll(async () => {
  for (const engine of engines) engine.close();
  await storage?.close();
  rmSync(work, { recursive: true, force: true });
});

function engine(): SqlEngine {
  const made = new SqlEngine({ storage });
  engines.push(made);
  return made;
}

async function cells(e: SqlEngine, sql: string): Promise<string[][]> {
  return (await e.query(sql, { limit: 100 })).rows.map((row) => row.map(String));
}

describe('big numbers staged apart by the build', () => {
  it('are in the table of an enum that has a big-number member', async () => {
    expect(await cells(engine(), 'SELECT name, ordinal, amount FROM "t.Rate" ORDER BY ordinal')).toEqual([
      ['LOW', '0', '1.50'],
      ['HIGH', '1', '20.25'],
    ]);
  });

  it('are joined into a type table filled for the first statement', async () => {
    expect(await cells(engine(), 'SELECT _oid, price, rate FROM "t.Item" ORDER BY _oid')).toEqual([
      [String(items[0]), '3.10', 'LOW'],
      [String(items[1]), '4.20', 'HIGH'],
      [String(items[2]), '5.30', 'LOW'],
    ]);
  });

  it('are in _values and the BigDecimal view, once each', async () => {
    const e = engine();
    const texts = `('1.50', '20.25', '3.10', '4.20', '5.30')`;
    const once = [['1.50', '1'], ['20.25', '1'], ['3.10', '1'], ['4.20', '1'], ['5.30', '1']];
    expect(await cells(e, `SELECT text, count(*) FROM "java.math.BigDecimal" WHERE text IN ${texts} GROUP BY text ORDER BY text`)).toEqual(once);
    expect(await cells(e, `SELECT text, count(*) FROM _values WHERE text IN ${texts} GROUP BY text ORDER BY text`)).toEqual(once);
    const [all, distinct] = (await cells(e, 'SELECT count(*), count(DISTINCT oid) FROM _values'))[0]!;
    expect(all).toBe(distinct);
  });
});
