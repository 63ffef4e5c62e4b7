import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { Storage } from '../../../src/storage/storage.js';
import { StorageWriter } from '../../../src/writer/storage-writer.js';
import { recordOffset } from '../../helpers/corpora/bytes.js';

/**
 * `_elements` over a `[list]` whose elements have no members: each takes 0 bytes, so a 16-byte
 * list may claim up to 2^31 - 1 of them. They hold no key, value or reference: the link pass adds
 * no rows for them (it made one per element, 2^31 - 1 of them here), and the type's table still
 * shows the element count.
 */

let work: string;
let storage: Storage;
let engine: SqlEngine;
let bag: bigint;
let pair: bigint;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'si-sql-empty-elements-'));
  const dir = join(work, 'storage');
  const writer = StorageWriter.create(dir, { now: () => 1_700_000_000_000 });
  const bagType = writer.defineType('t.Bag', [{ kind: 'list', typeName: '[list]', name: 'marks', elements: [] }]);
  const pairType = writer.defineType('t.Pair', [{ kind: 'list', typeName: '[list]', name: 'ints', elements: [{ kind: 'primitive', typeName: 'int', name: 'v' }] }]);
  [bag, pair] = [writer.newObjectId(), writer.newObjectId()];
  const store = writer.beginStore();
  store.add(bagType, bag, [[[], [], []]]);
  store.add(pairType, pair, [[5, 6]]);
  writer.setRoot(bag);
  writer.store(store);
  writer.close();
  // The bag's list: its 16-byte header claims 3 elements; make that the most Java can hold.
  const file = join(dir, 'channel_0', 'channel_0_1.dat');
  const data = readFileSync(file);
  const at = recordOffset(data, bag);
  expect(data.readBigInt64LE(at + 24)).toBe(16n);
  expect(data.readBigInt64LE(at + 32)).toBe(3n);
  data.writeBigInt64LE(2n ** 31n - 1n, at + 32);
  writeFileSync(file, data);
  storage = await Storage.open(dir);
  engine = new SqlEngine({ storage });
});

afterAll(async () => {
  await engine?.close();
  await storage?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('_elements over elements without members', () => {
  it('has no rows for them, the other lists rows as before, and the count in the type table', async () => {
    const rows = await engine.query(`SELECT owner, position, value_text, member FROM _elements WHERE owner IN (${bag}, ${pair}) ORDER BY owner, position`, { limit: 10 });
    expect(rows.rows.map((r) => r.map(String))).toEqual([
      [String(pair), '0', '5', 'ints'],
      [String(pair), '1', '6', 'ints'],
    ]);
    const marks = await engine.query('SELECT marks FROM "t.Bag"', { limit: 10 });
    expect(marks.rows.map((r) => String(r[0]))).toEqual(['2147483647']);
  });
});
