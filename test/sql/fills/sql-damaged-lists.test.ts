import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { Storage } from '../../../src/storage/storage.js';
import { StorageWriter } from '../../../src/writer/storage-writer.js';
import { recordOffset } from '../../helpers/corpora/bytes.js';

/**
 * Records whose one member is a list of fixed-size elements (a primitive array, an ArrayList's or
 * a HashMap's entries) are filled where they lie (entity-rows.ts `appendSingleListEntity`, the link
 * pass's visitor). One whose list header claims another element count than its bytes hold is
 * damaged: it gets no row in its type's table, `_elements` or `_references`, and is reported
 * (naming its file and offset) as the general path reports it; the others' rows are as written.
 */

let work: string;
let storage: Storage;
let engine: SqlEngine;
const problems: string[] = [];
const ids: Record<string, bigint> = {};
let dataFile: string;
const damagedAt: Record<string, number> = {};
const typeIds: Record<string, bigint> = {};

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'si-sql-damaged-lists-'));
  const dir = join(work, 'storage');
  const writer = StorageWriter.create(dir, { now: () => 1_700_000_000_000 });
  const ints = writer.defineType('t.Ints', [{ kind: 'list', typeName: '[list]', name: 'ints', elements: [{ kind: 'primitive', typeName: 'int', name: 'v' }] }]);
  const map = writer.defineType('t.Map', [
    {
      kind: 'list',
      typeName: '[list]',
      name: 'entries',
      elements: [
        { kind: 'reference', typeName: 'java.lang.Object', name: 'key' },
        { kind: 'reference', typeName: 'java.lang.Object', name: 'value' },
      ],
    },
  ]);
  const list = writer.defineType('t.List', [{ kind: 'list', typeName: '[list]', name: 'items', elements: [{ kind: 'reference', typeName: 'java.lang.Object', name: 'item' }] }]);
  Object.assign(typeIds, { ints: ints.typeId, map: map.typeId, list: list.typeId });
  for (const name of ['intsGood', 'intsBad', 'intsEmpty', 'mapGood', 'mapBad', 'listGood', 'listBad']) ids[name] = writer.newObjectId();
  const store = writer.beginStore();
  store.add(ints, ids.intsGood!, [[7, -8, 9]]);
  store.add(ints, ids.intsBad!, [[1, 2, 3]]);
  store.add(ints, ids.intsEmpty!, [[]]);
  store.add(map, ids.mapGood!, [[[ids.intsGood!, null]]]);
  store.add(map, ids.mapBad!, [[[ids.intsGood!, ids.intsEmpty!], [ids.intsBad!, ids.intsGood!]]]);
  store.add(list, ids.listGood!, [[ids.intsGood!, ids.mapGood!, null]]);
  store.add(list, ids.listBad!, [[ids.intsGood!]]);
  writer.setRoot(ids.listGood!);
  writer.store(store);
  writer.close();
  // Each bad list's header: one element more or fewer than its bytes hold.
  dataFile = join(dir, 'channel_0', 'channel_0_1.dat');
  const data = readFileSync(dataFile);
  for (const [name, count] of [['intsBad', 4n], ['mapBad', 1n], ['listBad', 2n]] as const) {
    const at = recordOffset(data, ids[name]!);
    data.writeBigInt64LE(count, at + 32);
    damagedAt[name] = at + 24;
  }
  writeFileSync(dataFile, data);
  storage = await Storage.open(dir);
  engine = new SqlEngine({ storage, onProblem: (m) => problems.push(m) });
});

afterAll(async () => {
  await engine?.close();
  await storage?.close();
  rmSync(work, { recursive: true, force: true });
});

const text = (rows: readonly (readonly unknown[])[]): string[][] => rows.map((r) => r.map((v) => (v === null ? 'NULL' : String(v))));

describe('records of one damaged list of fixed-size elements', () => {
  it('get no row in their type tables, and are reported with file and offset', async () => {
    const intsRows = await engine.query('SELECT _oid, ints FROM "t.Ints" ORDER BY _oid', { limit: 10 });
    expect(text(intsRows.rows)).toEqual([
      [String(ids.intsGood), '3'],
      [String(ids.intsEmpty), '0'],
    ]);
    const mapRows = await engine.query('SELECT _oid, entries FROM "t.Map" ORDER BY _oid', { limit: 10 });
    expect(text(mapRows.rows)).toEqual([[String(ids.mapGood), '1']]);
    const listRows = await engine.query('SELECT _oid, items FROM "t.List" ORDER BY _oid', { limit: 10 });
    expect(text(listRows.rows)).toEqual([[String(ids.listGood), '3']]);
    const reported = [
      ['intsBad', `t.Ints (type id ${typeIds.ints}): list ints has 4 elements of 4 bytes but 12 bytes`],
      ['mapBad', `t.Map (type id ${typeIds.map}): list entries has 1 elements of 16 bytes but 32 bytes`],
      ['listBad', `t.List (type id ${typeIds.list}): list items has 2 elements of 8 bytes but 8 bytes`],
    ] as const;
    for (const [name, message] of reported) {
      const found = problems.filter((p) => p.includes(message));
      expect(found, message).toHaveLength(1);
      expect(found[0]).toContain(dataFile);
      expect(found[0]).toContain(`offset ${damagedAt[name]}`);
    }
  });

  it('give no _elements or _references rows; the others give theirs', async () => {
    const owners = Object.values(ids).join(', ');
    const elements = await engine.query(`SELECT owner, position, key_oid, value_text, value_oid, member FROM _elements WHERE owner IN (${owners}) ORDER BY owner, position`, { limit: 20 });
    expect(text(elements.rows)).toEqual([
      [String(ids.intsGood), '0', 'NULL', '7', 'NULL', 'ints'],
      [String(ids.intsGood), '1', 'NULL', '-8', 'NULL', 'ints'],
      [String(ids.intsGood), '2', 'NULL', '9', 'NULL', 'ints'],
      [String(ids.mapGood), '0', String(ids.intsGood), 'NULL', 'NULL', 'entries'],
      [String(ids.listGood), '0', 'NULL', 'NULL', String(ids.intsGood), 'items'],
      [String(ids.listGood), '1', 'NULL', 'NULL', String(ids.mapGood), 'items'],
      [String(ids.listGood), '2', 'NULL', 'NULL', 'NULL', 'items'],
    ]);
    const references = await engine.query(`SELECT from_oid, to_oid, member FROM _references WHERE from_oid IN (${owners}) ORDER BY from_oid, to_oid`, { limit: 20 });
    expect(text(references.rows)).toEqual([
      [String(ids.mapGood), String(ids.intsGood), 'entries'],
      [String(ids.listGood), String(ids.intsGood), 'items'],
      [String(ids.listGood), String(ids.mapGood), 'items'],
    ]);
  });
});
