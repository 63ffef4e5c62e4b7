import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BuiltTables } from '../../../src/sql/built-tables.js';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { Storage } from '../../../src/storage/storage.js';
import { StorageWriter } from '../../../src/writer/storage-writer.js';
import { enumMembers, reflectiveMembers } from '../../../src/writer/type-definitions.js';

/**
 * The base pass stages the big numbers apart and moves them into `_values` only when something
 * needs `_values` whole (fills/table-build.ts `BigNumbersApart`, built-tables.ts
 * `valuesComplete`): a table the build makes itself (an enum's) that has a big-number member gets
 * them before it is made; a type table filled for a statement joins them where they are, moving
 * nothing; `_values` and the BigDecimal view hold every one. A move that fails makes the engine
 * build again, it does not fail every later statement.
 */

/** The build's move of the big numbers into `_values` (table-build.ts), whatever columns it names. */
const isTheMove = (sql: string): boolean => sql.startsWith('INSERT INTO _values') && sql.endsWith('FROM __big_numbers_apart.big_numbers');

/** Counts the moves the engines run from now on (the statements themselves run for real); `restore` ends the count. */
function countMoves(): { readonly count: () => number; readonly restore: () => void } {
  const run = DuckDBConnection.prototype.run;
  let moves = 0;
  const spy = vi.spyOn(DuckDBConnection.prototype, 'run').mockImplementation(function (this: DuckDBConnection, sql, ...rest) {
    if (isTheMove(sql)) moves++;
    return run.call(this, sql, ...rest);
  });
  return { count: () => moves, restore: () => spy.mockRestore() };
}

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
  await Promise.all(engines.map((engine) => engine.close()));
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

describe('big numbers left apart until _values is read', () => {
  it('a statement on a type table joins them where they are and moves nothing; one on _values moves them, once', async () => {
    const prices = await pricesOnly();
    const moves = countMoves();
    const e = new SqlEngine({ storage: prices.storage });
    try {
      const query = 'SELECT _oid, price FROM "t.Item" ORDER BY _oid';
      const expected = prices.items.map((id, i) => [String(id), ['3.10', '4.20', '5.30'][i]!]);
      expect(await cells(e, query)).toEqual(expected);
      expect(moves.count()).toBe(0);
      expect(await cells(e, `SELECT text FROM _values WHERE text IN ('3.10', '4.20', '5.30') ORDER BY text`)).toEqual([['3.10'], ['4.20'], ['5.30']]);
      expect(moves.count()).toBe(1);
      expect(await cells(e, `SELECT count(*) FROM "java.math.BigDecimal" WHERE text IN ('3.10', '4.20', '5.30')`)).toEqual([['3']]);
      expect(await cells(e, query)).toEqual(expected);
      expect(moves.count()).toBe(1);
    } finally {
      moves.restore();
      await e.close();
      await prices.storage.close();
    }
  });

  it('a move asked for while a type fill joins them apart waits for that join', async () => {
    const prices = await pricesOnly();
    // The type fill's join held until the statement on `_values` has asked for the move (states, not times).
    const run = DuckDBConnection.prototype.run;
    const order: string[] = [];
    let joining!: () => void;
    const joinStarted = new Promise<void>((resolve) => (joining = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const spy = vi.spyOn(DuckDBConnection.prototype, 'run').mockImplementation(function (this: DuckDBConnection, sql, ...rest) {
      if (sql.startsWith('INSERT INTO "t.Item"')) {
        joining();
        return released.then(() => run.call(this, sql, ...rest)).finally(() => order.push('join'));
      }
      if (isTheMove(sql)) order.push('move');
      return run.call(this, sql, ...rest);
    });
    const asked = vi.spyOn(BuiltTables.prototype, 'valuesComplete');
    const e = new SqlEngine({ storage: prices.storage });
    try {
      const expected = prices.items.map((id, i) => [String(id), ['3.10', '4.20', '5.30'][i]!]);
      const item = cells(e, 'SELECT _oid, price FROM "t.Item" ORDER BY _oid');
      await joinStarted;
      const values = cells(e, `SELECT text FROM _values WHERE text IN ('3.10', '4.20', '5.30') ORDER BY text`);
      await vi.waitFor(() => expect(asked).toHaveBeenCalled());
      release();
      expect(await item).toEqual(expected);
      expect(await values).toEqual([['3.10'], ['4.20'], ['5.30']]);
      expect(order).toEqual(['join', 'move']);
    } finally {
      spy.mockRestore();
      asked.mockRestore();
      await e.close();
      await prices.storage.close();
    }
  });
});

/** A storage whose only big numbers are the Items' prices: no table the build makes needs them, so they are moved after it. */
let pricesMade = 0;
async function pricesOnly(): Promise<{ storage: Storage; items: bigint[] }> {
  const dir = join(work, `prices-only-${++pricesMade}`);
  const writer = StorageWriter.create(dir, { now: () => 1_700_000_000_000 });
  const decimal = writer.dictionary.require('java.math.BigDecimal');
  const item = writer.defineType('t.Item', reflectiveMembers('t.Item', [{ name: 'price', type: 'java.math.BigDecimal' }]));
  const store = writer.beginStore();
  const ids: bigint[] = [];
  for (const text of ['3.10', '4.20', '5.30']) {
    const price = writer.newObjectId();
    store.add(decimal, price, [text]);
    const id = writer.newObjectId();
    store.add(item, id, [price]);
    ids.push(id);
  }
  writer.setRoot(ids[0]!);
  writer.store(store);
  writer.close();
  return { storage: await Storage.open(dir), items: ids };
}

describe('a move of the big numbers that fails', () => {
  it('fails no statement for good: the statement waiting for it, and the next ones, get tables built again', async () => {
    const prices = await pricesOnly();
    // The move fails for reasons of the machine (DuckDB out of memory, a full disk), which a test
    // cannot bring about on cue: DuckDB's answer to the move's INSERT is replaced by such an
    // error once; everything else runs for real.
    const run = DuckDBConnection.prototype.run;
    let failures = 0;
    const spy = vi.spyOn(DuckDBConnection.prototype, 'run').mockImplementation(function (this: DuckDBConnection, sql, ...rest) {
      if (failures === 0 && isTheMove(sql)) {
        failures++;
        return Promise.reject(new Error('Out of Memory Error: failed to allocate data of size 256.0 KiB (16.0 MiB/16.0 MiB used)'));
      }
      return run.call(this, sql, ...rest);
    });
    const e = new SqlEngine({ storage: prices.storage });
    try {
      // The BigDecimal view reads `_values`: the move is made for it.
      const query = `SELECT text, count(*) FROM "java.math.BigDecimal" WHERE text IN ('3.10', '4.20', '5.30') GROUP BY text ORDER BY text`;
      let first: string[][] | string;
      try {
        first = await cells(e, query).catch((error: Error) => error.message);
      } finally {
        spy.mockRestore();
      }
      expect(failures).toBe(1);
      const expected = [
        ['3.10', '1'],
        ['4.20', '1'],
        ['5.30', '1'],
      ];
      // Before, this statement and every later one failed with the move's error for as long as
      // the storage stayed the same.
      const later = await cells(e, query).catch((error: Error) => error.message);
      expect({ first, later }).toEqual({ first: expected, later: expected });
      expect(await cells(e, 'SELECT _oid, price FROM "t.Item" ORDER BY _oid')).toEqual(prices.items.map((id, i) => [String(id), ['3.10', '4.20', '5.30'][i]!]));
    } finally {
      await e.close();
      await prices.storage.close();
    }
  });

  it('a move that keeps failing is told by its cause, without the private directory, and a later statement builds again', async () => {
    const prices = await pricesOnly();
    // The sandboxes' private directories made in a directory of this test's, to name one in the failure.
    const temp = join(work, `tmp-${pricesMade}`);
    mkdirSync(temp);
    const tmpdirBefore = process.env.TMPDIR;
    process.env.TMPDIR = temp;
    const run = DuckDBConnection.prototype.run;
    let failures = 0;
    const seen = new Set<string>();
    const spy = vi.spyOn(DuckDBConnection.prototype, 'run').mockImplementation(function (this: DuckDBConnection, sql, ...rest) {
      if (isTheMove(sql)) {
        failures++;
        // This build's directory: the one made since the last move (an earlier build's may not be removed yet).
        const made = readdirSync(temp).filter((name) => name.startsWith('storage-inspector-sql-') && !seen.has(name));
        for (const name of made) seen.add(name);
        expect(made).toHaveLength(1);
        return Promise.reject(new Error(`IO Error: Could not write file "${join(temp, made[0]!, 'tables.duckdb.wal')}": No space left on device`));
      }
      return run.call(this, sql, ...rest);
    });
    const e = new SqlEngine({ storage: prices.storage });
    try {
      const query = `SELECT text FROM _values WHERE text IN ('3.10', '4.20', '5.30') ORDER BY text`;
      let failed: Error | undefined;
      try {
        await cells(e, query).catch((error: Error) => (failed = error));
      } finally {
        spy.mockRestore();
      }
      // Three builds, then the cause: not "the storage keeps changing", not the user's statement's fault.
      expect(failures).toBe(3);
      expect(failed?.message).toBe('the SQL tables could not be built: IO Error: Could not write file "<sql-tables>/tables.duckdb.wal": No space left on device');
      expect(failed?.name).toBe('Error');
      expect(await cells(e, query)).toEqual([['3.10'], ['4.20'], ['5.30']]);
      // The broken builds' databases are gone, the working one's only is left.
      expect(readdirSync(temp).filter((name) => name.startsWith('storage-inspector-sql-'))).toHaveLength(1);
    } finally {
      if (tmpdirBefore === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpdirBefore;
      await e.close();
      await prices.storage.close();
    }
  });

  it('is waited for by statements at once, one of them cancelled meanwhile: the others and later ones get every row', async () => {
    // The cancel interrupts the cancelled statement's own connection, never the one the move
    // runs on; here the cancel comes while the move is held back before DuckDB gets it. The
    // statement on the type table, asked for while the move is under way, waits for it.
    const prices = await pricesOnly();
    // The move held until the statements below wait for it (a state, not a time).
    const run = DuckDBConnection.prototype.run;
    let started!: () => void;
    const moveStarted = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const spy = vi.spyOn(DuckDBConnection.prototype, 'run').mockImplementation(function (this: DuckDBConnection, sql, ...rest) {
      if (!isTheMove(sql)) return run.call(this, sql, ...rest);
      started();
      return released.then(() => run.call(this, sql, ...rest));
    });
    const e = new SqlEngine({ storage: prices.storage });
    try {
      const query = 'SELECT _oid, price FROM "t.Item" ORDER BY _oid';
      const expected = prices.items.map((id, i) => [String(id), ['3.10', '4.20', '5.30'][i]!]);
      const cancel = new AbortController();
      const first = e.query(`SELECT count(*) FROM _values WHERE text IN ('3.10', '4.20', '5.30')`, { limit: 100, signal: cancel.signal }).then(
        () => 'answered',
        (error: Error) => error.message,
      );
      await moveStarted;
      const second = cells(e, query);
      const third = cells(e, 'SELECT count(*) FROM "java.math.BigDecimal" WHERE text IN (\'3.10\', \'4.20\', \'5.30\')');
      cancel.abort();
      expect(await first).toBe('the statement was cancelled');
      release();
      expect(await second).toEqual(expected);
      expect(await third).toEqual([['3']]);
      expect(await cells(e, query)).toEqual(expected);
    } finally {
      spy.mockRestore();
      await e.close();
      await prices.storage.close();
    }
  });
});
