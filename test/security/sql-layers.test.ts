import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDuck } from '../../src/sql/duck-module.js';
import { openSandbox, type Sandbox } from '../../src/sql/sandbox/sandbox.js';
import { checkStatement } from '../../src/sql/sandbox/statement-check.js';

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

  it('keeps EXPLAIN and EXPLAIN ANALYZE apart, and runs the user\'s own text otherwise', async () => {
    expect(await checkStatement(bare, 'EXPLAIN SELECT 1', allowed)).toMatchObject({ kind: 'explain', text: 'EXPLAIN SELECT 1', shift: 0 });
    expect(await checkStatement(bare, '\n EXPLAIN   ANALYZE SELECT 1', allowed)).toMatchObject({ kind: 'explain', text: 'EXPLAIN ANALYZE SELECT 1', shift: 'EXPLAIN ANALYZE '.length - '\n EXPLAIN   ANALYZE '.length });
    expect(await checkStatement(bare, '  SELECT 1 ', allowed)).toMatchObject({ kind: 'select', text: '  SELECT 1 ', shift: 0 });
  });

  it('tells a statement that does not parse from one that is refused', async () => {
    await expect(checkStatement(bare, 'SELEC 1', allowed)).rejects.toMatchObject({ kind: 'invalid', message: expect.stringMatching(/syntax error/i) });
    await expect(checkStatement(bare, ';', allowed)).rejects.toMatchObject({ kind: 'invalid', message: 'no statement given' });
    await expect(checkStatement(bare, 'SELECT 1; SELECT 2', allowed)).rejects.toMatchObject({ kind: 'refused', message: 'one statement per request, 2 given' });
    await expect(checkStatement(bare, 'SELECT ?', allowed)).rejects.toMatchObject({ kind: 'invalid', message: 'the statement has parameters ($1, ?); write the values into it' });
    await expect(checkStatement(bare, 'DROP TABLE _objects', allowed)).rejects.toMatchObject({ kind: 'refused' });
  });

  it('allows the storage\'s tables in the main schema, its own CTEs and the catalog\'s table list only', async () => {
    const tables = async (sql: string): Promise<string[]> => [...(await checkStatement(bare, sql, allowed)).tables].sort();
    expect(await tables('SELECT * FROM main._objects')).toEqual(['_objects']);
    expect(await tables('WITH x AS (SELECT 1) SELECT * FROM x')).toEqual([]);
    expect(await tables('WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r')).toEqual([]);
    expect(await tables('SELECT table_name FROM information_schema.tables')).toEqual([]);
    // Allowed, and nothing filled for it: a table has its columns before its rows (SHOW of a table is a DESCRIBE).
    expect(await tables('SHOW _objects')).toEqual([]);
    expect(await tables('SELECT * FROM (SHOW _objects), _objects')).toEqual(['_objects']);
    expect(await tables('SHOW TABLES')).toEqual([]);
    for (const [sql, named] of [
      ['SELECT * FROM other._objects', '"other"."_objects"'],
      ['SELECT * FROM tables.main._objects', '"tables"."main"."_objects"'],
      ['WITH x AS (SELECT 1) SELECT * FROM main.x', '"main"."x"'],
      ['SELECT * FROM system.information_schema.tables', '"system"."information_schema"."tables"'],
      ['SELECT * FROM information_schema.schemata', '"information_schema"."schemata"'],
      ['SHOW nosuch', '"nosuch"'],
      ['SELECT * FROM "we""ird"', '"we""ird"'],
    ] as const) {
      await expect(checkStatement(bare, sql, allowed), sql).rejects.toMatchObject({
        kind: 'refused',
        message: `${named} is not one of the storage's tables; only they are read here (GET /api/v1/sql/schema lists them)`,
      });
    }
  });

  it('allows a function of the list however it is qualified as a built-in, and no other schema\'s', async () => {
    await expect(checkStatement(bare, "SELECT upper('x'), main.lower('Y'), system.main.length('z')", allowed)).resolves.toMatchObject({ kind: 'select' });
    await expect(checkStatement(bare, "SELECT other.upper('x')", allowed)).rejects.toMatchObject({ kind: 'refused', message: 'the function other.upper() is not allowed here (docs/security.md lists what is)' });
    await expect(checkStatement(bare, "SELECT tables.main.upper('x')", allowed)).rejects.toMatchObject({ kind: 'refused', message: 'the function tables.main.upper() is not allowed here (docs/security.md lists what is)' });
    await expect(checkStatement(bare, 'SELECT * FROM range(3) r, unnest([1, 2])', allowed)).resolves.toMatchObject({ kind: 'select' });
  });

  it('points at the refused name in the user\'s own text', async () => {
    // DuckDB counts UTF-8 bytes: characters before the name that take several bytes do not shift the position.
    const accents = await checkStatement(bare, "SELECT 'äöü€' AS x FROM nosuch", allowed).catch((e: unknown) => e);
    expect(accents).toMatchObject({ kind: 'refused', position: "SELECT 'äöü€' AS x FROM ".length });
    const fn = await checkStatement(bare, "SELECT 1, current_setting('x')", allowed).catch((e: unknown) => e);
    expect(fn).toMatchObject({ kind: 'refused', position: 'SELECT 1, '.length });
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
