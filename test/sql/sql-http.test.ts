import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { CONFORMANCE_DIR, loadCases } from '../helpers/corpora/conformance.js';
import { graphsBuilt, registeredStorage } from '../helpers/serving/registered-storage.js';

/**
 * POST /api/v1/sql and GET /api/v1/sql/schema as a client sees them: the answer shape of the
 * contract, CSV and NDJSON streams, problem answers for refused and hostile statements (each of
 * the issue's), the timeout, auth like every route, --no-sql, and the OpenAPI document.
 */

const GRAPH = join(CONFORMANCE_DIR, 'storages', 'graph');

async function served(options: { sql?: Parameters<typeof buildApp>[1]['sql']; auth?: Parameters<typeof buildApp>[1]['auth'] } = {}) {
  const { storage, registry, close } = await registeredStorage(GRAPH);
  const app = buildApp(storage, { instance: 'microstream', api: registry, sql: options.sql ?? {}, auth: options.auth });
  await graphsBuilt(registry);
  return {
    app,
    sql: (body: unknown, headers: Record<string, string> = {}) => app.inject({ method: 'POST', url: '/api/v1/sql', payload: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } }),
    close: async () => {
      await app.close();
      await close();
    },
  };
}

/** An object as MicroStream 4.1's REST adapter answered it for the graph storage (the corpus's recorded cases). */
const recorded = new Map<string, { typeId: string; data: unknown[] }>();
for (const c of loadCases(join(CONFORMANCE_DIR, 'cases', 'graph.jsonl')).cases) {
  const m = /^\/microstream\/object\/(\d+)$/.exec(c.request);
  if (m !== null && c.status === 200 && c.body !== undefined) recorded.set(m[1]!, JSON.parse(c.body) as { typeId: string; data: unknown[] });
}
const javaText = (oid: unknown): string => String(recorded.get(String(oid))!.data[0]);

let server: Awaited<ReturnType<typeof served>>;
beforeAll(async () => {
  server = await served({ sql: { timeoutMs: 1500 } });
});
afterAll(async () => server.close());

describe('POST /api/v1/sql', () => {
  it('answers columns with types, rows with 64-bit values as strings, rowCount, truncated and elapsedMs', async () => {
    const asked = performance.now();
    const response = await server.sql({ sql: 'SELECT _oid, title, price, published, pages, available FROM Book ORDER BY _oid', limit: 2 });
    const waited = performance.now() - asked;
    expect(response.statusCode).toBe(200);
    const body = response.json() as { columns: { name: string; type: string }[]; rows: unknown[][]; rowCount: number; truncated: boolean; elapsedMs: number };
    expect(body.columns).toEqual([
      { name: '_oid', type: 'BIGINT' },
      { name: 'title', type: 'VARCHAR' },
      { name: 'price', type: 'DECIMAL(18,2)' },
      { name: 'published', type: 'TIMESTAMP' },
      { name: 'pages', type: 'INTEGER' },
      { name: 'available', type: 'BOOLEAN' },
    ]);
    expect(body.rowCount).toBe(2);
    expect(body.truncated).toBe(true);
    // The statement's own time (Book's fill included, the first statement naming it): within what the request took.
    expect(Number.isFinite(body.elapsedMs) && body.elapsedMs > 0 && body.elapsedMs <= waited).toBe(true);
    // The first Book as MicroStream answered it: Book{isbn, title, author, genre, price, published, …, pages, rating, weightKg, available}.
    const books = [...recorded.entries()].filter(([, o]) => o.typeId === '1000073').sort(([a], [b]) => (BigInt(a) < BigInt(b) ? -1 : 1));
    const [javaOid, java] = books[0]!;
    const [oid, title, price, published, pages, available] = body.rows[0]!;
    expect(oid).toBe(javaOid);
    expect(body.rows[1]![0]).toBe(books[1]![0]);
    expect(title).toBe(javaText(java.data[1]));
    expect(price).toBe(javaText(java.data[4]));
    // Java's Date text has whole seconds: the instant ours names is within that second.
    const javaPublished = Date.parse(javaText(java.data[5]));
    expect(Date.parse(published as string) - javaPublished).toBeGreaterThanOrEqual(0);
    expect(Date.parse(published as string) - javaPublished).toBeLessThan(1000);
    expect(pages).toBe(Number(java.data[9]));
    expect(available).toBe(java.data[12] === 'true');
  });

  it('streams CSV and NDJSON whole, with the same values', async () => {
    const json = (await server.sql({ sql: 'SELECT _oid, title, price FROM "conformance.bookstore.Book" ORDER BY _oid', limit: 10000 })).json() as { rows: unknown[][] };
    const csv = await server.sql({ sql: 'SELECT _oid, title, price FROM "conformance.bookstore.Book" ORDER BY _oid' }, { accept: 'text/csv' });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe('_oid,title,price');
    expect(lines.length - 1).toBe(json.rows.length);
    const ndjson = await server.sql({ sql: 'SELECT _oid, title, price FROM "conformance.bookstore.Book" ORDER BY _oid' }, { accept: 'application/x-ndjson' });
    const objects = ndjson.body.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objects.map((o) => [o._oid, o.title, o.price])).toEqual(json.rows);
  });

  it.each([
    ["SELECT * FROM read_csv('/etc/passwd')", 400],
    ["COPY (SELECT 1) TO '/tmp/x.csv'", 400],
    ["ATTACH '/tmp/x.db'", 400],
    ['INSTALL httpfs', 400],
    ['LOAD httpfs', 400],
    ["SET memory_limit = '100GB'", 400],
    ['SELECT 1; SELECT 2', 400],
    ['CREATE TABLE t (a INT)', 400],
    ['DROP TABLE _objects', 400],
    ["SELECT * FROM read_text('/etc/passwd')", 400],
    ['SELECT count(*) FROM generate_series(1, 1000000000000)', 408],
    ['SELECT count(*) FROM _objects a, _objects b, _objects c, _objects d', 408],
  ])('refuses or stops %s with a problem answer (%i)', async (sql, status) => {
    const response = await server.sql({ sql });
    expect(response.statusCode).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = response.json() as { status: number; detail: string };
    expect(problem.status).toBe(status);
    expect(problem.detail.length).toBeGreaterThan(0);
    // Nothing changed: the tables are all still there.
    expect((await server.sql({ sql: 'SELECT count(*) AS n FROM _objects' })).json()).toMatchObject({ rows: [['1263']] });
  });

  it('says where a statement is wrong', async () => {
    const response = await server.sql({ sql: 'SELECT *\n  FROM nosuchtable' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ detail: expect.stringMatching(/nosuchtable/), position: 'SELECT *\n  FROM '.length });
    const column = await server.sql({ sql: 'SELECT nocolumn FROM Book' });
    expect(column.json()).toMatchObject({ position: 'SELECT '.length });
  });

  it('validates the body', async () => {
    expect((await server.sql({ sql: '' })).statusCode).toBe(400);
    expect((await server.sql({ sql: 'SELECT 1', limit: 0 })).statusCode).toBe(400);
    expect((await server.sql({ sql: 'SELECT 1', limit: 10001 })).statusCode).toBe(400);
  });

  it('marks answers cut at the limit as truncated', async () => {
    const body = (await server.sql({ sql: 'SELECT oid FROM _objects', limit: 5 })).json() as { rowCount: number; truncated: boolean };
    expect(body).toMatchObject({ rowCount: 5, truncated: true });
  });
});

describe('GET /api/v1/sql/schema', () => {
  it('lists the type tables with alias, type ids and columns, and the system tables', async () => {
    const response = await server.app.inject({ url: '/api/v1/sql/schema' });
    expect(response.statusCode).toBe(200);
    const { tables } = response.json() as { tables: { name: string; alias: string | null; kind: string; typeIds: string[]; columns: { name: string; type: string; objectId: boolean }[] }[] };
    expect(tables.filter((t) => t.kind === 'system').map((t) => t.name)).toEqual(expect.arrayContaining(['_objects', '_references', '_elements']));
    const book = tables.find((t) => t.name === 'conformance.bookstore.Book')!;
    expect(book.alias).toBe('Book');
    expect(book.columns.slice(0, 2)).toEqual([
      { name: '_oid', type: 'BIGINT', objectId: true },
      { name: '_type_id', type: 'BIGINT', objectId: false },
    ]);
    expect(book.columns.find((c) => c.name === 'author')).toEqual({ name: 'author', type: 'BIGINT', objectId: true });
    expect(book.columns.find((c) => c.name === 'title')).toEqual({ name: 'title', type: 'VARCHAR', objectId: false });
  });

  it('is in the OpenAPI document, which stays valid', async () => {
    const document = (await server.app.inject({ url: '/api/v1/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/api/v1/sql', '/api/v1/sql/schema', '/api/v1/storages/{storage}/sql']));
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, compileErrors(result)).toBe(true);
  });
});

describe('switches and guards', () => {
  it('is off with --no-sql', async () => {
    const off = await served({ sql: false });
    try {
      expect((await off.sql({ sql: 'SELECT 1' })).statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });

  it('is behind the same auth as every route', async () => {
    const guarded = await served({ auth: { tokenDigests: [createHash('sha256').update('secret-token').digest()], basicDigests: [] } });
    try {
      expect((await guarded.sql({ sql: 'SELECT 1' })).statusCode).toBe(401);
      expect((await guarded.sql({ sql: 'SELECT 1' }, { authorization: 'Bearer secret-token' })).statusCode).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});

describe('statements that would write behind a read-only type', () => {
  it.each([
    'EXPLAIN ANALYZE CREATE TABLE sneaky AS SELECT 1',
    '/* hi */ explain analyse DELETE FROM _objects',
    'EXPLAIN ANALYZE DROP TABLE _objects',
    "PRAGMA memory_limit = '100GB'",
    'CALL pragma_version()',
    "SELECT * FROM query('DROP TABLE _objects')",
  ])('refuses %s and changes nothing', async (sql) => {
    const response = await server.sql({ sql });
    expect(response.statusCode).toBe(400);
    expect((await server.sql({ sql: 'SELECT count(*) AS n FROM _objects' })).json()).toMatchObject({ rows: [['1263']] });
    expect((await server.sql({ sql: "SELECT count(*) FROM information_schema.tables WHERE table_name = 'sneaky'" })).json()).toMatchObject({ rows: [['0']] });
  });

  it('runs EXPLAIN and EXPLAIN ANALYZE of a query', async () => {
    expect((await server.sql({ sql: 'EXPLAIN SELECT * FROM Book' })).statusCode).toBe(200);
    expect((await server.sql({ sql: 'EXPLAIN ANALYZE SELECT count(*) FROM Book' })).statusCode).toBe(200);
  });
});
