import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGraph } from '../../../src/graph/build/graph-build.js';
import type { GraphIndex } from '../../../src/graph/model/graph-index.js';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { ROW_GROUP_ROWS } from '../../../src/sql/tables/parquet-rows.js';
import { Storage } from '../../../src/storage/storage.js';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';

/**
 * `_objects` as an export's engine (file access on) fills it, through a staged Parquet file of
 * our own read by DuckDB (`reachable` staged as INT32 1/0/NULL and cast back), against the same
 * table filled through DuckDB's appender by an engine without file access: the same columns and
 * the same rows, over several of the staged file's row groups, with the graph (every column
 * set, unreachable objects' retained columns NULL) and without it (`reachable` and the retained
 * columns NULL for every row).
 */

const ENTITIES = 2 * ROW_GROUP_ROWS + 20_000;

let work: string;
let storage: Storage;
let graph: GraphIndex;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'si-objects-staged-'));
  generateStorage({ directory: join(work, 'storage'), entities: ENTITIES, channelCount: 2, seed: 11 });
  storage = await Storage.open(join(work, 'storage'));
  graph = (await buildGraph(storage)).graph;
}, 240_000);
afterAll(async () => {
  await storage.close();
  rmSync(work, { recursive: true, force: true });
});

/** Every column summed or counted, NULLs and booleans apart, and the table's columns. */
async function fingerprint(engine: SqlEngine): Promise<unknown[]> {
  const columns = await engine.query('DESCRIBE _objects', { limit: 100 });
  const sums = await engine.query(
    `SELECT count(*), count(reachable), sum(CASE WHEN reachable THEN 1 ELSE 0 END), sum(CASE WHEN reachable THEN oid ELSE 0 END)::VARCHAR,
       sum(oid)::VARCHAR, sum(type_id)::VARCHAR, count(DISTINCT type_name), sum(bytes), sum(channel), count(DISTINCT file), sum("offset")::VARCHAR,
       count(commit_timestamp), sum(commit_timestamp)::VARCHAR, count(immediate_dominator), sum(immediate_dominator)::VARCHAR,
       sum(retained_objects), sum(retained_bytes)::VARCHAR, sum(CASE WHEN damaged THEN 1 ELSE 0 END),
       sum(oid * (CASE WHEN reachable IS NULL THEN 3 WHEN reachable THEN 1 ELSE 2 END))::VARCHAR
     FROM _objects`,
    { limit: 1 },
  );
  const sample = await engine.query('SELECT oid::VARCHAR, type_name, reachable, bytes, file, "offset", immediate_dominator::VARCHAR, retained_objects, retained_bytes FROM _objects ORDER BY oid LIMIT 5 OFFSET 200000', { limit: 5 });
  return [columns.rows, sums.rows, sample.rows];
}

async function bothWays(withGraph: boolean): Promise<{ staged: unknown[]; appended: unknown[] }> {
  const options = { storage, timeoutMs: 0, maxConcurrent: 1, ...(withGraph ? { graph: async () => graph } : {}) };
  const staged = new SqlEngine({ ...options, allowFiles: true });
  const appended = new SqlEngine(options);
  try {
    return { staged: await fingerprint(staged), appended: await fingerprint(appended) };
  } finally {
    await staged.close();
    await appended.close();
  }
}

describe('_objects staged as Parquet (an export) and appended (statements)', () => {
  it('has the same columns and rows with the graph', { timeout: 240_000 }, async () => {
    const { staged, appended } = await bothWays(true);
    expect(staged).toEqual(appended);
    const sums = (staged[1] as unknown[][])[0]!;
    // Every object a row (the generated entities and the storage's own), over three row groups.
    expect(Number(sums[0])).toBeGreaterThanOrEqual(ENTITIES);
    // reachable set on every row, some false; the retained columns NULL for the unreachable.
    expect(Number(sums[1])).toBe(Number(sums[0]));
    expect(Number(sums[2])).toBeGreaterThan(0);
    expect(Number(sums[2])).toBeLessThan(Number(sums[0]));
    expect(Number(sums[13])).toBe(Number(sums[2]) - 1);
  });

  it('has the same columns and rows without the graph: reachable and the retained columns NULL', { timeout: 240_000 }, async () => {
    const { staged, appended } = await bothWays(false);
    expect(staged).toEqual(appended);
    const sums = (staged[1] as unknown[][])[0]!;
    expect(Number(sums[1])).toBe(0);
    expect(Number(sums[13])).toBe(0);
    expect(Number(sums[15] ?? 0)).toBe(0);
  });
});
