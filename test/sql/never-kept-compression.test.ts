import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TableCache } from '../../src/sql/cache/table-cache.js';
import { tablesOfCurrentState } from '../../src/sql/current-tables.js';
import { SqlEngine } from '../../src/sql/sql-engine.js';
import { Storage } from '../../src/storage/storage.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';

/**
 * A statement's engine without a cache never keeps its database, which DuckDB then writes
 * uncompressed (sandbox.ts `neverKept`); with a cache, and for our exports (file access on), the
 * database stays compressed. The answers are the same either way, and a cached run's entry is
 * whole: a second engine answers from it.
 */

const MEMORY = 256 * 1024 ** 2;
const STATEMENT = 'SELECT * FROM "conformance.bookstore.Book" ORDER BY _oid';

let storage: Storage;
let base: string;
beforeAll(async () => {
  storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', 'graph'));
  base = mkdtempSync(join(tmpdir(), 'si-never-kept-'));
});
afterAll(async () => {
  await storage.close();
  rmSync(base, { recursive: true, force: true });
});

/** The compression setting of the build's DuckDB, for these options. */
async function compressionOf(options: { cache?: TableCache; allowFiles?: boolean }): Promise<string> {
  const { built } = await tablesOfCurrentState({ storage, ...options }, MEMORY);
  try {
    const connection = await built.sandbox.instance.connect();
    try {
      return String((await connection.runAndReadAll("SELECT current_setting('force_compression')::VARCHAR")).getRows()[0]![0]);
    } finally {
      connection.closeSync();
    }
  } finally {
    await built.sandbox.close();
  }
}

async function answer(engine: SqlEngine): Promise<unknown> {
  try {
    return JSON.parse(JSON.stringify((await engine.query(STATEMENT, { limit: 1000 })).rows, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
  } finally {
    await engine.close();
  }
}

describe('the private database of a build that is never kept', () => {
  it('is uncompressed without a cache, compressed with one and for our exports', async () => {
    expect(await compressionOf({})).toBe('uncompressed');
    expect(await compressionOf({ allowFiles: true })).toBe('auto');
    expect(await compressionOf({ cache: new TableCache(join(base, 'settings-cache')) })).toBe('auto');
  });

  it('answers as a cached build does, whose entry a second engine answers from', async () => {
    const cache = new TableCache(join(base, 'cache'));
    const uncached = await answer(new SqlEngine({ storage }));
    expect(Array.isArray(uncached) && uncached.length > 0).toBe(true);
    const builds: boolean[] = [];
    const onBuilt = (figures: { cached: boolean }): void => void builds.push(figures.cached);
    const first = new SqlEngine({ storage, cache, onBuilt });
    expect(await first.query(STATEMENT, { limit: 1000 }).then((r) => JSON.parse(JSON.stringify(r.rows, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))))).toEqual(uncached);
    await first.settle();
    await first.close();
    expect(await answer(new SqlEngine({ storage, cache, onBuilt }))).toEqual(uncached);
    expect(builds).toEqual([false, true]);
  });
});
