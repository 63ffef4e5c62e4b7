import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltTables } from '../../src/sql/built-tables.js';
import { SqlEngine } from '../../src/sql/sql-engine.js';
import { TableCache } from '../../src/sql/cache/table-cache.js';
import { Storage } from '../../src/storage/storage.js';
import { writeModelStorage } from '../graph/model-storage.js';

/**
 * Tables taken from the cache (sql/cache/table-cache.ts) sit in the same sandbox as a new build: the
 * kept database is copied into the engine's private directory and opened there, never where it
 * lies, and DuckDB is locked as after a build (no file access but the answers directory, locked
 * configuration). Neither a user's statement nor DuckDB itself reaches the cache directory.
 */

let base: string;
let storage: Storage;
let cache: TableCache;
let engine: SqlEngine;
let cached: boolean | undefined;
let keptFile: string;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sql-cache-sandbox-'));
  writeModelStorage(join(base, 'storage'));
  storage = await Storage.open(join(base, 'storage'));
  cache = new TableCache(join(base, 'cache'));
  const first = new SqlEngine({ storage, cache });
  await first.query('SELECT count(*) FROM _values', { limit: 1 });
  await first.settle();
  await first.close();
  const [entry] = await cache.list();
  keptFile = join(cache.directory, 'tables-v2', entry!.key, 'tables.duckdb');
  engine = new SqlEngine({ storage, cache, onBuilt: (f) => (cached = f.cached) });
  await engine.query('SELECT 1', { limit: 1 });
});
afterAll(async () => {
  await engine.close();
  await storage.close();
  rmSync(base, { recursive: true, force: true });
});

// The engine's current build, kept by its builds (src/sql/engine-builds.ts).
const builtOf = (e: SqlEngine): BuiltTables => (e as unknown as { builds: { built: BuiltTables } }).builds.built;

describe('tables taken from the cache', () => {
  it('are a copy in the private directory, not the kept file', () => {
    expect(cached).toBe(true);
    const sandbox = builtOf(engine).sandbox;
    expect(sandbox.seeded).toBe(true);
    expect(sandbox.databaseFile.startsWith(sandbox.tempDirectory + sep)).toBe(true);
    expect(sandbox.databaseFile.startsWith(cache.directory)).toBe(false);
  });

  it.each([
    ['read the kept database as a file', () => `SELECT * FROM read_blob('${keptFile}')`],
    ['attach the kept database', () => `ATTACH '${keptFile}' AS kept (READ_ONLY)`],
    ['list the cache directory', () => `SELECT * FROM glob('${cache.directory}/**')`],
  ])('refuse a statement that tries to %s', async (_what, sql) => {
    await expect(engine.query(sql(), { limit: 10 })).rejects.toMatchObject({ kind: 'refused' });
  });

  it('are locked in DuckDB itself: no file outside the answers directory, no setting changed', async () => {
    const connection = await builtOf(engine).sandbox.instance.connect();
    try {
      await expect(connection.run(`SELECT * FROM read_blob('${keptFile}')`)).rejects.toThrow(/Permission Error|disabled|not allowed/i);
      await expect(connection.run(`ATTACH '${keptFile}' AS kept (READ_ONLY)`)).rejects.toThrow(/Permission Error|disabled|not allowed/i);
      await expect(connection.run('SET enable_external_access = true')).rejects.toThrow(/lock/i);
      const settings = await connection.runAndReadAll(`SELECT current_setting('enable_external_access'), current_setting('lock_configuration')`);
      expect(settings.getRows()[0]).toEqual([false, true]);
    } finally {
      connection.closeSync();
    }
  });

  it('leave the kept entry as it was', async () => {
    const [entry] = await cache.list();
    expect(readdirSync(join(cache.directory, 'tables-v2', entry!.key)).sort()).toEqual(['meta.json', 'tables.duckdb']);
  });
});
