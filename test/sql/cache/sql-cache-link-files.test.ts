import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_LAYOUT, TableCache, type CachedTables } from '../../../src/sql/cache/table-cache.js';
import { exportTables, LINK_FILL_STEP, type ExportManifest } from '../../../src/sql/output/table-export.js';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { registeredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * The link tables kept in a cache entry as the Parquet files an export wrote of them
 * (entry-link-files.ts `KeptLinkFile`): the first export with a cache keeps `_elements.parquet` and
 * `_references.parquet` beside the entry's database, a second export copies them byte for byte
 * (no pass over the records for them), a statement from the kept entry reads them through views
 * in its locked sandbox (taking a file only for a statement that names its table) and answers as
 * a fresh fill of the tables does, and a link file of the
 * entry damaged (one byte turned over, its size unchanged) or missing makes the entry no entry:
 * the tables built again, the answer the same, the entry replaced by a whole one (an export
 * finding one damaged writes the link tables by its pass and keeps them anew). `cache clear`
 * also drops the entries of the layout before (`tables-v1`), which no run reads.
 */

const GRAPH = join(CONFORMANCE_DIR, 'storages', 'graph');
const LINK_TABLES = ['_elements', '_references'];
/** Every row of both link tables in one order (the answer compared whole). */
const LINK_ROWS = [
  'SELECT owner, position, key_text, key_oid, value_text, value_oid, member FROM _elements ORDER BY ALL',
  'SELECT from_oid, to_oid, member FROM _references ORDER BY ALL',
];

interface Answer {
  readonly cached: boolean | undefined;
  readonly rows: unknown[][][];
  readonly problems: string[];
}

/** A `sql` run as the command makes it (`cache` undefined: `--no-cache`): the storage opened, the statements, kept, closed. */
async function statements(cache: TableCache | undefined): Promise<Answer> {
  const { storage, context, close } = await registeredStorage(GRAPH);
  const problems: string[] = [];
  let cached: boolean | undefined;
  const engine = new SqlEngine({ storage, cache, graph: () => context.graph.ready(), onProblem: (m) => problems.push(m), onBuilt: (f) => (cached = f.cached) });
  try {
    const rows: unknown[][][] = [];
    for (const sql of LINK_ROWS) rows.push((await engine.query(sql, { limit: 1_000_000 })).rows);
    await engine.settle();
    return { cached, rows, problems };
  } finally {
    await engine.close();
    await close();
  }
}

/** An `export --format parquet` with `cache` into `out`: its manifest and the steps it told. */
async function exported(cache: TableCache, out: string): Promise<{ manifest: ExportManifest; steps: string[] }> {
  const { storage, registry, context, close } = await registeredStorage(GRAPH);
  registry.startAll();
  const steps: string[] = [];
  try {
    const manifest = await exportTables({ storage, graph: () => context.graph.ready(), out, format: 'parquet', cache, onStep: (step) => steps.push(step), onProblem: () => undefined });
    return { manifest, steps };
  } finally {
    await close();
  }
}

describe('the link tables kept in the cache as Parquet files', () => {
  let base: string;
  let cache: TableCache;
  let fresh: Answer;

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'sql-cache-link-files-'));
    cache = new TableCache(join(base, 'cache'));
    // The tables as a statement fills them, nothing kept.
    fresh = await statements(undefined);
  }, 120_000);
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const entryDir = (): string => {
    const names = readdirSync(join(cache.directory, CACHE_LAYOUT)).filter((n) => !n.startsWith('.'));
    expect(names).toHaveLength(1);
    return join(cache.directory, CACHE_LAYOUT, names[0]!);
  };
  const meta = (): CachedTables => JSON.parse(readFileSync(join(entryDir(), 'meta.json'), 'utf8')) as CachedTables;

  it('keeps the exported files, and a second export copies the same bytes', { timeout: 180_000 }, async () => {
    const first = await exported(cache, join(base, 'first'));
    expect(first.steps).toContain(LINK_FILL_STEP);
    const kept = meta();
    expect(kept.filled).toContain(':links');
    expect(kept.linkFiles?.map((f) => f.table).sort()).toEqual(LINK_TABLES);
    for (const table of LINK_TABLES) {
      const file = `${table}.parquet`;
      const written = readFileSync(join(base, 'first', file));
      // The entry holds the export's file itself, private to the user.
      expect(readFileSync(join(entryDir(), file)).equals(written), table).toBe(true);
      expect(statSync(join(entryDir(), file)).mode & 0o777).toBe(0o600);
      expect(kept.linkFiles!.find((f) => f.table === table)!.rows).toBe(first.manifest.tables.find((t) => t.name === table)!.rows);
    }
    const second = await exported(cache, join(base, 'second'));
    expect(second.steps).not.toContain(LINK_FILL_STEP);
    expect(meta().filled).toEqual(kept.filled);
    for (const table of LINK_TABLES) {
      const file = `${table}.parquet`;
      expect(readFileSync(join(base, 'second', file)).equals(readFileSync(join(base, 'first', file))), table).toBe(true);
      expect(second.manifest.tables.find((t) => t.name === table)!.rows).toBe(first.manifest.tables.find((t) => t.name === table)!.rows);
    }
    // The entry's size counts its link files (the size cap weighs the whole entry).
    const [info] = await cache.list();
    expect(info!.bytes).toBe(kept.bytes + kept.linkFiles!.reduce((n, f) => n + f.bytes, 0));
  });

  it('answers a statement from the kept files as a fresh fill of the tables does', { timeout: 120_000 }, async () => {
    expect(meta().linkFiles).toHaveLength(2);
    const fromCache = await statements(cache);
    expect(fromCache.cached).toBe(true);
    expect(fromCache.problems).toEqual([]);
    expect(fresh.rows[0]!.length).toBeGreaterThan(500);
    expect(fresh.rows[1]!.length).toBeGreaterThan(500);
    expect(fromCache.rows).toEqual(fresh.rows);
    // Nothing new was filled: the entry is the export's.
    expect(meta().linkFiles).toHaveLength(2);
  });

  it('takes a kept link file only for a statement that names its table', { timeout: 120_000 }, async () => {
    // The engine's private directory made in a temporary directory of this test's own.
    const temporary = join(base, 'private');
    mkdirSync(temporary);
    const before = process.env.TMPDIR;
    process.env.TMPDIR = temporary;
    const { storage, context, close } = await registeredStorage(GRAPH);
    let cached: boolean | undefined;
    const problems: string[] = [];
    const engine = new SqlEngine({ storage, cache, graph: () => context.graph.ready(), onProblem: (m) => problems.push(m), onBuilt: (f) => (cached = f.cached) });
    /** The link files taken into the engine's private directory so far. */
    const taken = (): string[] => {
      const dirs = readdirSync(temporary).filter((n) => n.startsWith('storage-inspector-sql-'));
      expect(dirs).toHaveLength(1);
      const links = join(temporary, dirs[0]!, 'links');
      return existsSync(links) ? readdirSync(links).sort() : [];
    };
    try {
      // Neither link table named: nothing of their files copied (nor hashed).
      const values = await engine.query('SELECT count(*) AS n FROM _values', { limit: 10 });
      expect(cached).toBe(true);
      expect(Number(values.rows[0]![0])).toBeGreaterThan(0);
      expect(taken()).toEqual([]);
      // `_elements` named: its file alone taken, and read as a fresh fill answers.
      expect((await engine.query(LINK_ROWS[0]!, { limit: 1_000_000 })).rows).toEqual(fresh.rows[0]);
      expect(taken()).toEqual(['_elements.parquet']);
      expect((await engine.query(LINK_ROWS[1]!, { limit: 1_000_000 })).rows).toEqual(fresh.rows[1]);
      expect(taken()).toEqual(['_elements.parquet', '_references.parquet']);
      expect(problems).toEqual([]);
    } finally {
      await engine.close();
      await close();
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  });

  it('treats an entry whose link file is damaged or missing as no entry', { timeout: 180_000 }, async () => {
    // One byte in the middle of the kept _elements file turned over, its size unchanged.
    const elements = join(entryDir(), '_elements.parquet');
    const size = statSync(elements).size;
    const at = Math.floor(size / 2);
    const fd = openSync(elements, 'r+');
    try {
      const byte = Buffer.alloc(1);
      readSync(fd, byte, 0, 1, at);
      byte[0] = byte[0]! ^ 0x10;
      writeSync(fd, byte, 0, 1, at);
    } finally {
      closeSync(fd);
    }
    const damaged = await statements(cache);
    expect(damaged.cached).toBe(false);
    expect(damaged.rows).toEqual(fresh.rows);
    // Replaced by a whole entry (the tables filled by the statements, no link files).
    expect((await statements(cache)).cached).toBe(true);

    // The link files kept again by an export, then one of them removed from the entry.
    rmSync(join(cache.directory), { recursive: true, force: true });
    await exported(cache, join(base, 'third'));
    expect(meta().linkFiles).toHaveLength(2);
    rmSync(join(entryDir(), '_references.parquet'));
    const missing = await statements(cache);
    expect(missing.cached).toBe(false);
    expect(missing.rows).toEqual(fresh.rows);
    expect((await statements(cache)).cached).toBe(true);
  });

  it('writes the link tables anew in an export whose kept link file is damaged, and keeps them again', { timeout: 180_000 }, async () => {
    rmSync(join(cache.directory), { recursive: true, force: true });
    const first = await exported(cache, join(base, 'fourth'));
    // One byte of the kept _references file turned over, its size unchanged: found only when taken.
    const references = join(entryDir(), '_references.parquet');
    const bytes = readFileSync(references);
    bytes[Math.floor(bytes.length / 2)] = bytes[Math.floor(bytes.length / 2)]! ^ 0x10;
    writeFileSync(references, bytes);
    const again = await exported(cache, join(base, 'fifth'));
    // Written by the pass, as without a cache: the same rows.
    expect(again.steps).toContain(LINK_FILL_STEP);
    for (const table of LINK_TABLES) expect(again.manifest.tables.find((t) => t.name === table)!.rows, table).toBe(first.manifest.tables.find((t) => t.name === table)!.rows);
    // Kept again whole: a statement reads them from the cache as a fresh fill answers.
    expect(meta().linkFiles).toHaveLength(2);
    const fromCache = await statements(cache);
    expect(fromCache.cached).toBe(true);
    expect(fromCache.rows).toEqual(fresh.rows);
  });

  it('clear drops the entries of the layout before the link files too, which no run reads', async () => {
    const old = join(cache.directory, 'tables-v1', 'some-key');
    mkdirSync(old, { recursive: true, mode: 0o700 });
    writeFileSync(join(old, 'meta.json'), '{}', { mode: 0o600 });
    expect(await cache.list()).toHaveLength(1);
    expect(await cache.clear()).toBe(2);
    expect(existsSync(join(cache.directory, 'tables-v1'))).toBe(false);
    expect(await cache.list()).toEqual([]);
  });
});
