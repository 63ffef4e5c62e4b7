import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TableCache } from '../../src/sql/cache/table-cache.js';
import { hashTableCode } from '../../src/sql/cache/table-cache-key.js';
import { writeModelStorage } from '../graph/model-storage.js';
import { runCliInProcess as cli } from '../helpers/serving/cli-in-process.js';
import { spawnCli } from '../security/cli.js';

/**
 * The SQL tables' cache from the command line: `sql` keeps them in --cache-dir (the test run's own
 * XDG_CACHE_HOME otherwise), `cache list` shows the kept state, `cache clear` drops it, --no-cache
 * keeps nothing; two `sql` processes building the same storage's tables at once both answer and
 * leave one whole entry, which the next run uses.
 */

const NAMES = `SELECT name FROM "gen.Node" ORDER BY name`;

/**
 * Runs a scenario of several processes until the table code stayed the same on disk all along:
 * each process files its tables under the code it loaded (its hash), so a source file saved
 * meanwhile (by anyone working in this checkout) makes the processes disagree. `attempt` names
 * the scenario's directories anew.
 */
async function withSteadyCode(scenario: (attempt: number) => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const before = hashTableCode();
    try {
      await scenario(attempt);
      return;
    } catch (error) {
      if (attempt >= 5 || hashTableCode() === before) throw error;
    }
  }
}

/** `sql` as a process of its own (the modules as they are on disk now, like the other processes'). */
async function sqlProcess(dir: string, cacheDir: string): Promise<unknown[]> {
  const run = spawnCli(['sql', dir, NAMES, '--format', 'ndjson', '--cache-dir', cacheDir]);
  const { code } = await run.exit;
  expect(code, run.stderr()).toBe(0);
  return run.stdout().trim().split('\n').map((line) => (JSON.parse(line) as { name: string }).name);
}

/**
 * The one entry of the cache, used by a new `sql` process: it answers `expected` and marks the
 * entry used without keeping another (a build would have kept a second one or replaced it).
 */
async function answeredFromCache(dir: string, cacheDir: string, expected: unknown[]): Promise<void> {
  const cache = new TableCache(cacheDir);
  const [before, ...others] = await cache.list();
  expect(others).toEqual([]);
  expect(await sqlProcess(dir, cacheDir)).toEqual(expected);
  const after = await cache.list();
  expect(after.map((e) => e.key)).toEqual([before!.key]);
  expect(after[0]!.lastUsed.getTime()).toBeGreaterThan(before!.lastUsed.getTime());
}

describe('storage-inspector cache', () => {
  let base: string;
  let dir: string;
  let cacheDir: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'sql-cache-cli-'));
    dir = join(base, 'storage');
    writeModelStorage(dir);
    cacheDir = join(base, 'cache');
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('runs with a cache of the test run, never the home directory', () => {
    expect(process.env.XDG_CACHE_HOME).toBeDefined();
    expect(process.env.XDG_CACHE_HOME!.startsWith(tmpdir())).toBe(true);
  });

  it('sql keeps the tables, cache list shows them, cache clear drops them', async () => {
    const first = await cli(['sql', dir, NAMES, '--format', 'csv', '--cache-dir', cacheDir]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('a, version 2');
    const list = await cli(['cache', 'list', '--cache-dir', cacheDir]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/1 kept SQL database,/);
    expect(list.stdout).toContain(join(base, 'storage'));
    const second = await cli(['sql', dir, NAMES, '--format', 'csv', '--cache-dir', cacheDir]);
    expect(second.stdout).toBe(first.stdout);
    expect((await cli(['cache', 'clear', '--cache-dir', cacheDir])).stdout).toMatch(/dropped 1 kept SQL database/);
    expect((await cli(['cache', 'list', '--cache-dir', cacheDir])).stdout).toMatch(/0 kept SQL databases/);
  });

  it('export keeps every table it wrote, and sql answers from them', async () => {
    await withSteadyCode(async (attempt) => {
      const shared = join(base, `export-cache-${attempt}`);
      const exported = spawnCli(['export', dir, '--format', 'parquet', '--out', join(base, `tables-${attempt}`), '--cache-dir', shared]);
      expect((await exported.exit).code, exported.stderr()).toBe(0);
      const [entry, ...more] = await new TableCache(shared).list();
      expect(more).toEqual([]);
      // _objects, _commits, the type tables and the link tables: filled by the export.
      expect(entry!.filled).toBeGreaterThanOrEqual(4);
      await answeredFromCache(dir, shared, await sqlProcess(dir, join(base, `export-check-${attempt}`)));
      // Nothing left to fill: the database taken from the cache had it all.
      expect((await new TableCache(shared).list())[0]!.filled).toBe(entry!.filled);
    });
  });

  it('serve keeps the tables its statements built, and sql answers from them', async () => {
    await withSteadyCode(async (attempt) => {
      const shared = join(base, `serve-cache-${attempt}`);
      const serve = spawnCli(['serve', dir, '--port', '0', '--no-follow', '--quiet', '--cache-dir', shared]);
      try {
        const port = await serve.port;
        const response = await fetch(`http://127.0.0.1:${port}/api/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: NAMES }) });
        expect(response.status).toBe(200);
        const served = ((await response.json()) as { rows: unknown[][] }).rows.map((r) => r[0]);
        expect(served).toContain('a, version 2');
        // Kept once no statement runs: the entry appears (a state waited for, not a time).
        const cache = new TableCache(shared);
        while ((await cache.list()).length === 0) await new Promise((resolve) => setImmediate(resolve));
        await answeredFromCache(dir, shared, served);
      } finally {
        serve.child.kill('SIGTERM');
        await serve.exit;
      }
    });
  });

  it('--no-cache keeps nothing', async () => {
    const off = join(base, 'off');
    expect((await cli(['sql', dir, 'SELECT 1', '--cache-dir', off, '--no-cache'])).code).toBe(0);
    expect(readdirSync(base)).not.toContain('off');
  });

  it('refuses an action it does not know and a size without meaning', async () => {
    expect((await cli(['cache', 'drop'])).code).toBe(2);
    expect((await cli(['cache', 'list', '--cache-max-size', 'lots'])).code).toBe(2);
  });

  it('two processes building at once both answer and leave one whole entry, used by the next run', async () => {
    await withSteadyCode(async (attempt) => {
      const shared = join(base, `shared-${attempt}`);
      const runs = [sqlProcess(dir, shared), sqlProcess(dir, shared)];
      const [one, two] = await Promise.all(runs);
      expect(one).toContain('a, version 2');
      expect(two).toEqual(one);
      const entries = await new TableCache(shared).list();
      expect(entries).toHaveLength(1);
      // Nothing half-written left behind.
      expect(readdirSync(join(shared, 'tables-v2'))).toEqual([entries[0]!.key]);
      await answeredFromCache(dir, shared, one!);
    });
  });
  it('cache list shows entries of the earlier layout as obsolete; two processes keeping at once drop them, and nothing else', async () => {
    const other = join(base, 'other-storage');
    writeModelStorage(other);
    await withSteadyCode(async (attempt) => {
      const shared = join(base, `upgraded-${attempt}`);
      // Three entries as the layout before the link files wrote them, and a file of the user's.
      for (const key of ['old-a', 'old-b', 'old-c']) {
        const entry = join(shared, 'tables-v1', key);
        mkdirSync(entry, { recursive: true, mode: 0o700 });
        writeFileSync(join(entry, 'tables.duckdb'), Buffer.alloc(2 * 1024 * 1024));
        writeFileSync(join(entry, 'meta.json'), JSON.stringify({ key, storage: `/data/${key}` }));
      }
      writeFileSync(join(shared, 'tables-v1', 'notes.txt'), 'mine');
      const list = await cli(['cache', 'list', '--cache-dir', shared]);
      expect(list.stdout).toMatch(/0 kept SQL databases/);
      expect(list.stdout).toMatch(/3 obsolete entries of an earlier layout, 6\.0 MiB: never read, dropped by the next write of the cache/);
      expect(list.stdout).toContain('obsolete (tables-v1)  /data/old-b');
      // Two storages, so that both processes write an entry (and both drop).
      const [one, two] = await Promise.all([sqlProcess(dir, shared), sqlProcess(other, shared)]);
      expect(one).toContain('a, version 2');
      expect(two).toEqual(one);
      expect(readdirSync(join(shared, 'tables-v1'))).toEqual(['notes.txt']);
      expect(await new TableCache(shared).list()).toHaveLength(2);
      expect((await cli(['cache', 'list', '--cache-dir', shared])).stdout).not.toContain('obsolete');
    });
  });
});
