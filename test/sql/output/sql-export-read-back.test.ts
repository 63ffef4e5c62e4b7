import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TableCache } from '../../../src/sql/cache/table-cache.js';
import { exportTables, ExportTargetError, LINK_FILL_STEP, type ExportManifest } from '../../../src/sql/output/table-export.js';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import type { Storage } from '../../../src/storage/storage.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';
import { memoryDuck } from '../memory-duck.js';

/**
 * Every file of a Parquet export read back through DuckDB and compared with its table's rows as
 * a statement sees them (the table filled the way a statement fills it, written by DuckDB's COPY):
 * the same columns and types, the same rows (a hash of all of them in order). The export writes
 * `_elements` and `_references` by a pass of their own into a database in memory (built-tables.ts
 * `copyLinkTables`), apart from the tables statements read; with a cache the files it wrote are
 * kept in the entry (once; the next export copies them, statements read them through views).
 * From the tables when a kept database has them filled. And an export racing another to the same --out: the one renamed
 * into place first stays whole, the other is told so.
 */

const GRAPH = join(CONFORMANCE_DIR, 'storages', 'graph');
const memory = memoryDuck();

let base: string;
let registered: RegisteredStorage;
let storage: Storage;
let graph: () => Promise<import('../../../src/graph/model/graph-index.js').GraphIndex>;
beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sql-export-read-back-'));
  registered = await registeredStorage(GRAPH);
  storage = registered.storage;
  registered.registry.startAll();
  graph = () => registered.context.graph.ready();
});
afterAll(async () => {
  await registered.close();
  rmSync(base, { recursive: true, force: true });
});

function text(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** Columns with types, row count and an md5 of every row's text, sorted. */
async function fingerprint(file: string): Promise<{ columns: string[]; rows: number; md5: string }> {
  const columns = (await memory.connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${text(file)})`)).getRows().map((r) => `${String(r[0])} ${String(r[1])}`);
  const [rows, md5] = (await memory.connection.runAndReadAll(`SELECT count(*), md5(coalesce(string_agg(t::VARCHAR, chr(10) ORDER BY t::VARCHAR), '')) FROM read_parquet(${text(file)}) t`)).getRows()[0]!;
  return { columns, rows: Number(rows), md5: String(md5) };
}

/** Each table of `manifest` written by DuckDB from the table a statement reads. */
async function statementCopies(manifest: ExportManifest, dir: string): Promise<void> {
  mkdirSync(dir);
  const engine = new SqlEngine({ storage, graph, allowFiles: true, everyValueFirst: true, timeoutMs: 0 });
  try {
    for (const table of manifest.tables) await engine.copyToParquet(table.name, join(dir, table.file));
  } finally {
    await engine.close();
  }
}

describe('a Parquet export racing another to the same --out', () => {
  it('leaves the other\'s directory as it was and says so: no rename error, nothing beside it', { timeout: 120_000 }, async () => {
    const parent = join(base, 'race');
    mkdirSync(parent);
    const out = join(parent, 'tables');
    // The other export (another process) renames its complete directory into place meanwhile.
    const other = (): void => {
      if (existsSync(out)) return;
      mkdirSync(out);
      writeFileSync(join(out, 'manifest.json'), 'the other export\'s');
    };
    const exported = exportTables({ storage, graph, out, format: 'parquet', table: 'conformance.bookstore.Book', onTable: other });
    await expect(exported).rejects.toThrow(new ExportTargetError(`--out ${out} was written by another export meanwhile; nothing was overwritten`));
    expect(readdirSync(parent)).toEqual(['tables']);
    expect(readdirSync(out)).toEqual(['manifest.json']);
    expect(readFileSync(join(out, 'manifest.json'), 'utf8')).toBe('the other export\'s');
  });
});

describe('a Parquet export read back through DuckDB', () => {
  it('holds the rows of every table, the link tables included', { timeout: 120_000 }, async () => {
    const out = join(base, 'all');
    const steps: string[] = [];
    const written: string[] = [];
    const manifest = await exportTables({ storage, graph, out, format: 'parquet', onStep: (step) => steps.push(step), onTable: (table) => written.push(`${steps.length}:${table}`) });
    // Told before each long step (the command prints them), every table written after the last
    // but `_objects`, written as soon as it is filled (beside the type fills, or after them).
    const types = manifest.tables.filter((t) => t.kind === 'type').length;
    expect(types).toBeGreaterThan(10);
    expect(steps).toEqual(['building the tables', `filling ${types} type tables`, `writing ${manifest.tables.length} tables`]);
    expect(written.filter((w) => !w.endsWith(':_objects')).sort()).toEqual(manifest.tables.filter((t) => t.name !== '_objects').map((t) => `3:${t.name}`).sort());
    expect(written.filter((w) => w.endsWith(':_objects'))).toEqual([expect.stringMatching(/^[23]:_objects$/)]);
    const reference = join(base, 'all-reference');
    await statementCopies(manifest, reference);
    const names = manifest.tables.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['_elements', '_references', '_objects', '_values', 'conformance.bookstore.Book']));
    expect(manifest.objects).toBe(manifest.tables.find((t) => t.name === '_objects')!.rows);
    expect(manifest.objects).toBe(1263);
    for (const table of manifest.tables) {
      const got = await fingerprint(join(out, table.file));
      expect(got, table.name).toEqual(await fingerprint(join(reference, table.file)));
      expect(got.rows, table.name).toBe(table.rows);
    }
    // Both kinds of element rows: a text straight from the record, and an object's text from `_values`.
    const elements = text(join(out, '_elements.parquet'));
    const [direct, staged] = (await memory.connection.runAndReadAll(`SELECT count(*) FILTER (value_text IS NOT NULL AND value_oid IS NULL), count(*) FILTER (value_text IS NOT NULL AND value_oid IS NOT NULL) FROM read_parquet(${elements})`)).getRows()[0]!;
    expect(Number(direct)).toBeGreaterThan(0);
    expect(Number(staged)).toBeGreaterThan(0);
    expect(manifest.tables.find((t) => t.name === '_references')!.rows).toBeGreaterThan(1000);
  });

  it('holds the rows of one link table exported alone', { timeout: 60_000 }, async () => {
    const out = join(base, 'references');
    const steps: string[] = [];
    const manifest = await exportTables({ storage, graph, out, format: 'parquet', table: '_references', onStep: (step) => steps.push(step) });
    expect(manifest.tables.map((t) => t.name)).toEqual(['_references']);
    expect(steps).toEqual(['building the tables', 'writing 1 table']);
    const reference = join(base, 'references-reference');
    await statementCopies(manifest, reference);
    const got = await fingerprint(join(out, '_references.parquet'));
    expect(got).toEqual(await fingerprint(join(reference, '_references.parquet')));
    expect(got.rows).toBe(manifest.tables[0]!.rows);
    expect(got.rows).toBeGreaterThan(1000);
  });

  it('takes the link tables (and _objects) from a kept database that has them filled', { timeout: 120_000 }, async () => {
    const cache = new TableCache(join(base, 'cache'));
    const statements = new SqlEngine({ storage, graph, timeoutMs: 0, cache });
    try {
      await statements.query('SELECT (SELECT count(*) FROM _objects) + (SELECT count(*) FROM _elements) + (SELECT count(*) FROM _references)', { limit: 1 });
      await statements.settle();
    } finally {
      await statements.close();
    }
    const out = join(base, 'kept');
    const manifest = await exportTables({ storage, graph, out, format: 'parquet', cache, onProblem: () => undefined });
    const reference = join(base, 'kept-reference');
    await statementCopies(manifest, reference);
    for (const name of ['_objects', '_elements', '_references']) {
      const table = manifest.tables.find((t) => t.name === name)!;
      const got = await fingerprint(join(out, table.file));
      expect(got, name).toEqual(await fingerprint(join(reference, table.file)));
      expect(got.rows, name).toBe(table.rows);
      expect(got.rows, name).toBeGreaterThan(500);
    }
  });

  it('keeps the link tables once with a cache: kept with the others, a second export and a statement take them from it', { timeout: 180_000 }, async () => {
    const cache = new TableCache(join(base, 'filled-cache'));
    const entryMeta = (): { filled: string[] } => {
      const entries = readdirSync(join(cache.directory, 'tables-v2')).filter((n) => !n.startsWith('.'));
      expect(entries).toHaveLength(1);
      return JSON.parse(readFileSync(join(cache.directory, 'tables-v2', entries[0]!, 'meta.json'), 'utf8')) as { filled: string[] };
    };
    const exported = async (name: string): Promise<{ manifest: ExportManifest; steps: string[] }> => {
      const steps: string[] = [];
      const manifest = await exportTables({ storage, graph, out: join(base, name), format: 'parquet', cache, onStep: (step) => steps.push(step), onProblem: () => undefined });
      return { manifest, steps };
    };
    const first = await exported('filled-first');
    expect(first.steps).toContain(LINK_FILL_STEP);
    expect(entryMeta().filled).toContain(':links');
    const filled = entryMeta().filled;
    const second = await exported('filled-second');
    // Taken from the cache: no pass over the records for them, nothing new kept.
    expect(second.steps).not.toContain(LINK_FILL_STEP);
    expect(entryMeta().filled).toEqual(filled);
    const strip = (m: ExportManifest): unknown => m.tables.map(({ bytes: _bytes, ...table }) => table);
    expect(strip(second.manifest)).toEqual(strip(first.manifest));
    for (const table of first.manifest.tables) expect(await fingerprint(join(base, 'filled-second', table.file)), table.name).toEqual(await fingerprint(join(base, 'filled-first', table.file)));
    // The same rows as the tables a statement fills.
    const reference = join(base, 'filled-reference');
    await statementCopies(first.manifest, reference);
    for (const name of ['_elements', '_references']) {
      const table = first.manifest.tables.find((t) => t.name === name)!;
      expect(await fingerprint(join(base, 'filled-first', table.file)), name).toEqual(await fingerprint(join(reference, table.file)));
      expect(table.rows, name).toBeGreaterThan(500);
    }
    // A statement's engine takes them from the kept database: the rows the export wrote.
    const statements = new SqlEngine({ storage, graph, timeoutMs: 0, cache });
    try {
      const rows = (await statements.query('SELECT (SELECT count(*) FROM _elements), (SELECT count(*) FROM _references)', { limit: 1 })).rows[0]!;
      expect(rows.map(Number)).toEqual(['_elements', '_references'].map((name) => first.manifest.tables.find((t) => t.name === name)!.rows));
      await statements.settle();
    } finally {
      await statements.close();
    }
    expect(entryMeta().filled).toEqual(filled);
  });
});
