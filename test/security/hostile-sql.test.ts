import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { ALLOWED_FUNCTIONS, ALLOWED_TABLE_FUNCTIONS } from '../../src/sql/sandbox/allowed-functions.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { graphsBuilt, registeredStorage } from '../helpers/serving/registered-storage.js';
import { listenOnLoopback } from '../helpers/serving/loopback.js';

/**
 * The hostile-SQL corpus: every statement an attacker with the right to send SQL tried (issue
 * 40) and the classes around them — every EXPLAIN form, comments and line ends before keywords,
 * writes, settings, files, logs, catalogs, and every DuckDB function not on the allow-list —
 * sent to a server listening on a loopback port. Each must be refused, the process must live on
 * with /health answering, and the tables everyone queries must be unchanged (row counts and a
 * checksum of `_objects`, no table added).
 */

const GRAPH = join(CONFORMANCE_DIR, 'storages', 'graph');

let base: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const registered = await registeredStorage(GRAPH);
  const app = buildApp(registered.storage, { instance: 'microstream', api: registered.registry, sql: { timeoutMs: 5000 } });
  await graphsBuilt(registered.registry);
  base = `http://127.0.0.1:${await listenOnLoopback(app)}`;
  close = async () => {
    await app.close();
    await registered.close();
  };
});
afterAll(async () => close());

async function sql(statement: string): Promise<{ status: number; body: { detail?: string; rows?: unknown[][] } }> {
  const response = await fetch(`${base}/api/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: statement, limit: 10_000 }) });
  return { status: response.status, body: (await response.json()) as { detail?: string; rows?: unknown[][] } };
}

/** What everyone sees: the tables, each one's row count, and a checksum of `_objects`. */
async function state(): Promise<string> {
  const tables = await sql('SHOW TABLES');
  expect(tables.status).toBe(200);
  const names = tables.body.rows!.map((r) => String(r[0])).sort();
  const counts: string[] = [];
  for (const name of names) {
    const answer = await sql(`SELECT count(*) FROM "${name.replaceAll('"', '""')}"`);
    expect(answer.status, name).toBe(200);
    counts.push(`${name}=${String(answer.body.rows![0]![0])}`);
  }
  const sum = await sql('SELECT sum(hash(oid, type_id, type_name, reachable, bytes, channel, file, "offset")) FROM _objects');
  expect(sum.status).toBe(200);
  return `${counts.join(' ')} objects#${String(sum.body.rows![0]![0])}`;
}

async function healthy(): Promise<void> {
  const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(10_000) });
  expect(response.status).toBe(200);
}

const HOSTILE = [
  // Process abort (issue 40.1): logging into a file, then any statement.
  "SELECT * FROM enable_logging(storage='file', storage_path='/nonexistent')",
  "SELECT * FROM enable_logging('QueryLog')",
  'SELECT * FROM duckdb_logs()',
  'SELECT * FROM duckdb_logs',
  'SELECT * FROM truncate_duckdb_logs()',
  // Writes through EXPLAIN and comments (40.2).
  'EXPLAIN (ANALYZE) DELETE FROM _objects',
  'EXPLAIN ANALYZE DELETE FROM _objects',
  'EXPLAIN /* /* */ */ ANALYZE DELETE FROM _objects',
  'EXPLAIN /* x */ ANALYZE UPDATE _objects SET bytes = 0',
  '-- x\rDELETE FROM _objects',
  '-- x\r\nDROP TABLE _objects CASCADE',
  '/* a */ DROP TABLE _objects CASCADE',
  'EXPLAIN ANALYZE CREATE TABLE sneaky AS SELECT 1',
  'explain analyse INSERT INTO _objects SELECT * FROM _objects',
  'EXPLAIN ANALYZE COPY _objects TO \'answers/x.csv\'',
  "COPY (SELECT * FROM range(10000000)) TO 'x.csv'",
  'CREATE TABLE sneaky AS SELECT 1',
  'CREATE VIEW sneaky AS SELECT 1',
  'CREATE MACRO sneaky(x) AS x',
  'CREATE SEQUENCE sneaky',
  'DROP VIEW Book',
  'ALTER TABLE _objects RENAME TO gone',
  'UPDATE _objects SET bytes = 0',
  'INSERT INTO _objects SELECT * FROM _objects',
  'DELETE FROM Book',
  'TRUNCATE _objects',
  'SELECT 1; DELETE FROM _objects',
  'WITH d AS (DELETE FROM _objects RETURNING *) SELECT * FROM d',
  // Settings, attachments, extensions, transactions, catalog.
  "ATTACH ':memory:' AS other",
  "ATTACH 'sneaky.duckdb'",
  'DETACH tables',
  'USE system',
  "SET memory_limit = '100GB'",
  'SET enable_external_access = true',
  'RESET lock_configuration',
  "SET VARIABLE x = 'y'",
  "PRAGMA memory_limit = '100GB'",
  'PRAGMA show_tables',
  'CALL pragma_version()',
  'CALL enable_logging()',
  'INSTALL httpfs',
  'LOAD httpfs',
  'CHECKPOINT',
  'FORCE CHECKPOINT',
  'VACUUM',
  'ANALYZE',
  'BEGIN TRANSACTION',
  'COMMIT',
  "EXPORT DATABASE 'dump'",
  "IMPORT DATABASE 'dump'",
  "CREATE SECRET s (TYPE s3, KEY_ID 'x', SECRET 'y')",
  'PREPARE p AS SELECT 1',
  'EXECUTE p',
  // Global state and disclosure through functions (40.3, 40.11).
  "SELECT current_setting('allowed_directories')",
  "SELECT current_setting('temp_directory')",
  'SELECT * FROM duckdb_settings()',
  'SELECT * FROM duckdb_databases()',
  'SELECT * FROM duckdb_temporary_files()',
  "SELECT getenv('HOME')",
  "SELECT getvariable('x')",
  'SELECT * FROM read_blob(\'tables.duckdb\')',
  "SELECT * FROM read_text('/etc/passwd')",
  "SELECT * FROM read_csv('/etc/passwd')",
  "SELECT * FROM '/etc/passwd'",
  "FROM 'answers/x.parquet'",
  "SELECT * FROM glob('*')",
  "SELECT * FROM query('DROP TABLE _objects')",
  "SELECT * FROM query_table('_objects')",
  "SELECT json_execute_serialized_sql(json_serialize_sql('SELECT 1'))",
  "SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))",
  "SELECT write_log('x')",
  "SELECT nextval('s')",
  'SELECT * FROM system.main.duckdb_views()',
  'SELECT * FROM system.main.duckdb_tables',
  'SELECT * FROM duckdb_tables',
  'SELECT * FROM temp.main.sneaky',
  'SELECT * FROM tables.main._objects',
  // A CTE may not take a system view's name to be read where it is not in scope.
  'SELECT * FROM (WITH duckdb_settings AS (SELECT 1) SELECT * FROM duckdb_settings), duckdb_settings',
  // Memory amplifiers and waits (40.4).
  "SELECT length(repeat('x', 1500000000))",
  'SELECT repeat(chr(120), 4000000) FROM range(250)',
  "SELECT lpad('x', 1500000000, 'y')",
  "SELECT printf('%1500000000d', 1)",
  "SELECT format('{:>1500000000}', 'x')",
  'SELECT range(1000000000)',
  'SELECT list_resize([1], 1000000000)',
  'SELECT sleep_ms(100000)',
  'SELECT pg_sleep(100)',
  'SELECT * FROM repeat_row(1, num_rows := 1000000000)',
  // Parameters.
  'SELECT $1',
  'SELECT ?',
];

describe('the hostile-SQL corpus', () => {
  let before: string;
  beforeAll(async () => {
    before = await state();
  });

  it.each(HOSTILE)('refuses %s and changes nothing', async (statement) => {
    const answer = await sql(statement);
    expect(answer.status, answer.body.detail).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    // Nothing of the server's temporary directory is shown.
    expect(answer.body.detail ?? '').not.toMatch(/storage-inspector-sql-|\/tmp\//);
    await healthy();
    // The next statement of anyone still answers (the abort came with the second statement).
    expect((await sql('SELECT count(*) FROM Book')).status).toBe(200);
  });

  it('leaves the tables everyone queries as they were', async () => {
    expect(await state()).toBe(before);
  });
});

describe('every DuckDB function not on the allow-list', () => {
  let tableFunctions: string[] = [];
  let scalarFunctions: string[] = [];
  beforeAll(async () => {
    // The functions this DuckDB has, asked of a plain instance of its own (not the sandbox).
    const duck = await DuckDBInstance.create(':memory:', { autoload_known_extensions: 'false', autoinstall_known_extensions: 'false' });
    const connection = await duck.connect();
    const reader = await connection.runAndReadAll(
      "SELECT DISTINCT function_name, function_type IN ('table', 'table_macro') FROM duckdb_functions() WHERE function_type IN ('table', 'table_macro', 'scalar', 'aggregate', 'macro') ORDER BY 1",
    );
    for (const [name, table] of reader.getRows()) {
      const text = String(name);
      if (table === true && !ALLOWED_TABLE_FUNCTIONS.has(text)) tableFunctions.push(text);
      if (table !== true && !ALLOWED_FUNCTIONS.has(text.toLowerCase()) && /^[a-z_][a-z0-9_]*$/i.test(text)) scalarFunctions.push(text);
    }
    scalarFunctions = [...new Set(scalarFunctions)];
    tableFunctions = [...new Set(tableFunctions)];
    connection.closeSync();
    duck.closeSync();
  });

  it('refuses each table function that is not allowed, before DuckDB binds it', async () => {
    expect(tableFunctions).toContain('enable_logging');
    expect(tableFunctions.length).toBeGreaterThan(50);
    for (const name of tableFunctions) {
      const answer = await sql(`SELECT * FROM ${name}()`);
      expect(answer.status, name).toBe(400);
      expect(answer.body.detail, name).toMatch(/is not allowed here/);
    }
    await healthy();
  });

  it('refuses each scalar, aggregate or macro function that is not allowed', async () => {
    expect(scalarFunctions).toContain('current_setting');
    expect(scalarFunctions).toContain('repeat');
    for (const name of scalarFunctions) {
      const answer = await sql(`SELECT ${name}()`);
      expect(answer.status, name).toBe(400);
      expect(answer.body.detail, name).toMatch(/is not allowed here/);
    }
    await healthy();
  });
});

describe('what stays allowed', () => {
  it.each([
    'SELECT count(*) FROM Book',
    'EXPLAIN SELECT * FROM Book',
    'EXPLAIN ANALYZE SELECT count(*) FROM Book',
    'EXPLAIN (ANALYZE) SELECT count(*) FROM Book',
    'DESCRIBE Book',
    'SHOW TABLES',
    'SHOW ALL TABLES',
    'SUMMARIZE Book',
    'WITH b AS (SELECT * FROM Book) SELECT count(*) FROM b',
    'FROM Book LIMIT 1',
    'SELECT * FROM range(3)',
    'SELECT * FROM unnest([1, 2, 3])',
    "SELECT upper(type_name), list_transform([1, 2], x -> x + 1), row_number() OVER (ORDER BY oid) FROM _objects LIMIT 2",
    "SELECT table_name FROM information_schema.tables WHERE table_name = 'sneaky'",
    'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT sum(n) FROM r',
  ])('runs %s', async (statement) => {
    const answer = await sql(statement);
    expect(answer.status, answer.body.detail).toBe(200);
  });
});
