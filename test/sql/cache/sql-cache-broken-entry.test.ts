import { closeSync, mkdtempSync, openSync, readdirSync, realpathSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleSqlEngines } from '../../../src/http/api-v1/sql/sql-engines.js';
import { buildApp } from '../../../src/http/app.js';
import { TableCache } from '../../../src/sql/cache/table-cache.js';
import { writeModelStorage } from '../../graph/model-storage.js';
import { registeredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * A kept database found broken (its bytes overwritten, its size unchanged: the entry looks whole)
 * is a cache miss, not the user's error: POST /api/v1/sql of a server with a cache answers from
 * tables built again, and the entry is replaced by them (the next server takes them from the
 * cache again). Before, DuckDB's refusal to open the copy failed every statement of every user
 * as their invalid statement, naming the file in the server's private temporary directory
 * ('IO Error: The file "/tmp/storage-inspector-sql-…/tables.duckdb" exists, but it is not a valid
 * DuckDB database file!'), until the cache was cleared or the storage changed. The warning that
 * says so names neither that directory nor the cache's.
 */

const NAMES = `SELECT name FROM "gen.Node" ORDER BY name`;

interface Served {
  readonly status: number;
  readonly body: string;
  readonly problems: readonly string[];
  readonly cached: boolean | undefined;
}

/** One server with the cache, one statement over HTTP, the tables kept, closed. */
async function serveOnce(dir: string, cache: TableCache): Promise<Served> {
  const { storage, registry, context, close } = await registeredStorage(dir);
  const problems: string[] = [];
  let cached: boolean | undefined;
  // The engine's own options (sql-engine.ts), passed on by the server's SQL options as they are
  // (`serve` logs the warnings instead: test/cli/sql-warnings-logged.test.ts).
  const sql = { cache, onProblem: (m: string) => problems.push(m), onBuilt: (f: { cached: boolean }) => (cached = f.cached) };
  const app = buildApp(storage, { instance: 'microstream', api: registry, sql });
  try {
    const answer = await app.inject({ method: 'POST', url: '/api/v1/sql', payload: JSON.stringify({ sql: NAMES }), headers: { 'content-type': 'application/json' } });
    // As `serve` does when it stops: the copy into the cache is done before the engine closes.
    await settleSqlEngines([context]);
    return { status: answer.statusCode, body: answer.body, problems, cached };
  } finally {
    await app.close();
    await close();
  }
}

describe('a broken entry of the SQL cache', () => {
  let base: string;
  let dir: string;
  let cache: TableCache;
  let first: Served;

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'sql-cache-broken-'));
    dir = join(base, 'storage');
    writeModelStorage(dir);
    cache = new TableCache(join(base, 'cache'));
    first = await serveOnce(dir, cache);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('is built again and answered from, the entry replaced, nothing of the server named', async () => {
    expect(first.status).toBe(200);
    expect(first.cached).toBe(false);
    const names = (JSON.parse(first.body) as { rows: unknown[][] }).rows.map((r) => r[0]);
    expect(names).toContain('a, version 2');
    const [entry] = await cache.list();
    const database = join(cache.directory, 'tables-v2', entry!.key, 'tables.duckdb');
    const size = statSync(database).size;
    // DuckDB's file header and its two database headers (4 KiB each) overwritten.
    const fd = openSync(database, 'r+');
    try {
      writeSync(fd, Buffer.alloc(3 * 4096, 0x41), 0, 3 * 4096, 0);
    } finally {
      closeSync(fd);
    }
    expect(statSync(database).size).toBe(size);

    const broken = await serveOnce(dir, cache);
    expect(broken.body).not.toContain(realpathSync(tmpdir()));
    expect(broken.status).toBe(200);
    expect(broken.cached).toBe(false);
    expect(JSON.parse(broken.body)).toMatchObject({ rows: JSON.parse(first.body).rows });
    expect(broken.problems).toHaveLength(1);
    expect(broken.problems[0]).toMatch(/^the cached SQL tables could not be opened, they are built again: .*<sql-tables>\/tables\.duckdb/);
    for (const path of [realpathSync(tmpdir()), cache.directory, base]) expect(broken.problems[0]).not.toContain(path);

    const again = await serveOnce(dir, cache);
    expect(again.status).toBe(200);
    expect(again.cached).toBe(true);
    expect(again.problems).toEqual([]);
    expect(JSON.parse(again.body)).toMatchObject({ rows: JSON.parse(first.body).rows });
    expect(readdirSync(join(cache.directory, 'tables-v2')).filter((n) => !n.startsWith('.'))).toEqual([entry!.key]);
  });
});
