import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDuck } from '../../src/sql/duck-module.js';
import { openSandbox, type Sandbox } from '../../src/sql/sandbox.js';
import { checkStatement } from '../../src/sql/statement-check.js';

/**
 * The SQL sandbox layer by layer: each one refuses on its own, so that a test fails when any one
 * of them is removed or weakened (the hostile corpus in hostile-sql.test.ts goes through all of
 * them at once, where one layer's refusal hides another's gap).
 *
 * 1. the statement check (statement-check.ts), from DuckDB's parse: statement kind, functions,
 *    tables — here on a connection with no other protection;
 * 2. the read-only transaction every user statement runs in (sql-engine.ts);
 * 3. DuckDB's own locks after the build (sandbox.ts): no file access but the answers directory,
 *    no configuration changes.
 */

let sandbox: Sandbox;
let locked: DuckDBConnection;

beforeAll(async () => {
  const duck = await loadDuck();
  sandbox = await openSandbox(duck, { memoryLimitBytes: 256 * 1024 ** 2 });
  const build = await sandbox.instance.connect();
  await build.run('CREATE TABLE _objects AS SELECT range AS oid FROM range(10)');
  await build.run('CREATE VIEW Book AS SELECT * FROM _objects');
  await sandbox.lock(build);
  build.closeSync();
  locked = await sandbox.instance.connect();
});
afterAll(() => {
  locked.closeSync();
  sandbox.close();
});

async function count(connection: DuckDBConnection): Promise<string> {
  return String((await connection.runAndReadAll('SELECT count(*) FROM _objects')).getRows()[0]![0]);
}

describe('layer 1: the statement check, alone', () => {
  let bare: DuckDBConnection;
  beforeAll(async () => {
    // An unlocked instance: nothing but the check stands between these statements and DuckDB.
    const duck = await loadDuck();
    const instance = await duck.DuckDBInstance.create(':memory:');
    bare = await instance.connect();
    await bare.run('CREATE TABLE _objects AS SELECT range AS oid FROM range(10)');
  });
  const allowed = { own: new Set(['_objects', 'book']), reserved: new Set(['duckdb_settings', 'duckdb_logs']) };

  it.each([
    ['a write', 'DELETE FROM _objects', /only read-only statements/],
    ['a write behind EXPLAIN ANALYZE', 'EXPLAIN ANALYZE DELETE FROM _objects', /EXPLAIN is followed by one read-only query/],
    ['a comment before EXPLAIN', '/* x */ EXPLAIN ANALYZE DELETE FROM _objects', /only read-only statements/],
    ['ATTACH', "ATTACH ':memory:' AS other", /only read-only statements/],
    ['two statements', 'SELECT 1; SELECT 2', /one statement per request, 2 given/],
    ['a function off the list', "SELECT current_setting('memory_limit')", /current_setting\(\) is not allowed/],
    ['a table function off the list', "SELECT * FROM enable_logging('QueryLog')", /table function enable_logging\(\) is not allowed/],
    ['a scalar function used as a table function', 'SELECT * FROM upper(\'x\')', /table function upper\(\) is not allowed/],
    ['a list function that builds from a number', 'SELECT range(1000000000)', /function range\(\) is not allowed/],
    ['a table that is not the storage\'s', 'SELECT * FROM duckdb_settings', /"duckdb_settings" is not one of the storage's tables/],
    ['a file', "SELECT * FROM 'data.csv'", /"data.csv" is not one of the storage's tables/],
    ['another catalog', 'SELECT * FROM system.main._objects', /is not one of the storage's tables/],
    ['a CTE named like a system view', 'WITH duckdb_logs AS (SELECT 1) SELECT * FROM duckdb_logs', /"duckdb_logs" is not one of the storage's tables/],
    ['a parameter', 'SELECT $1', /parameters/],
  ])('refuses %s', async (_what, statement, message) => {
    await expect(checkStatement(bare, statement, allowed)).rejects.toThrow(message);
    expect(await count(bare)).toBe('10');
  });

  it('lets a query over the storage\'s tables through, naming the tables it reads', async () => {
    const checked = await checkStatement(bare, 'WITH b AS (SELECT * FROM BOOK) SELECT count(*) FROM b JOIN main._Objects o USING (oid)', allowed);
    expect(checked.kind).toBe('select');
    expect([...checked.tables].sort()).toEqual(['_objects', 'book']);
    const explained = await checkStatement(bare, '  explain (analyse)\n SELECT 1', allowed);
    expect(explained).toMatchObject({ kind: 'explain', text: 'EXPLAIN ANALYZE SELECT 1' });
  });

  it('points at the refused name in the user\'s own text', async () => {
    const error = await checkStatement(bare, 'EXPLAIN SELECT *\n  FROM nosuch', allowed).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'refused', position: 'EXPLAIN SELECT *\n  FROM '.length });
  });
});

describe('layer 2: the read-only transaction, alone', () => {
  it.each(['DELETE FROM _objects', 'CREATE TABLE sneaky AS SELECT 1', 'DROP TABLE _objects', 'INSERT INTO _objects VALUES (1)', 'UPDATE _objects SET oid = 0'])(
    'refuses %s with no statement check in front of it',
    async (statement) => {
      const connection = await sandbox.instance.connect();
      try {
        await connection.run('BEGIN TRANSACTION READ ONLY');
        await expect(connection.run(statement)).rejects.toThrow(/read-only/);
        await connection.run('ROLLBACK');
        expect(await count(connection)).toBe('10');
      } finally {
        connection.closeSync();
      }
    },
  );
});

describe('layer 3: DuckDB\'s own locks, alone', () => {
  it.each([
    ["SELECT * FROM read_text('/etc/hostname')", /Permission Error|disabled|not allowed/i],
    ["SELECT * FROM read_blob('tables.duckdb')", /Permission Error|disabled|not allowed/i],
    ["SET memory_limit = '100GB'", /locked|configuration/i],
    ['SET enable_external_access = true', /locked|configuration|cannot be/i],
    ["ATTACH '/tmp/sneaky.duckdb'", /Permission Error|disabled|not allowed/i],
    ["INSTALL httpfs", /Permission Error|disabled|not allowed|locked/i],
  ])('refuses %s with no statement check in front of it', async (statement, message) => {
    await expect(locked.run(statement)).rejects.toThrow(message);
    expect(await count(locked)).toBe('10');
  });
});
