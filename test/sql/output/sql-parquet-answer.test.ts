import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { graphsBuilt, registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * `POST /api/v1/sql` with `Accept: application/vnd.apache.parquet`: the whole result as one
 * Parquet file, read back with an independent reader (hyparquet) and compared value by value
 * with the JSON answer; refused statements stay refused; the timeout holds; the file is gone from
 * the engine's private directory once answered, and never was in the storage.
 */

const GRAPH = join(CONFORMANCE_DIR, 'storages', 'graph');
const PARQUET = 'application/vnd.apache.parquet';
let temp: string;
let previousTmp: string | undefined;
let registered: RegisteredStorage;
let app: ReturnType<typeof buildApp>;

beforeAll(async () => {
  // A temporary directory of this test's own, so that what the engine leaves there can be seen.
  temp = mkdtempSync(join(tmpdir(), 'sql-parquet-answer-'));
  previousTmp = process.env.TMPDIR;
  process.env.TMPDIR = temp;
  registered = await registeredStorage(GRAPH);
  app = buildApp(registered.storage, { instance: 'microstream', api: registered.registry, sql: { timeoutMs: 1500 } });
  await graphsBuilt(registered.registry);
});
afterAll(async () => {
  await app.close();
  await registered.close();
  if (previousTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmp;
  rmSync(temp, { recursive: true, force: true });
});

const post = (sql: string, accept: string) =>
  app.inject({ method: 'POST', url: '/api/v1/sql', payload: JSON.stringify({ sql, limit: 10000 }), headers: { 'content-type': 'application/json', accept } });

/** Files in the engines' answers directories under this test's temporary directory. */
function answerFiles(): string[] {
  return readdirSync(temp)
    .filter((d) => d.startsWith('storage-inspector-sql-'))
    .flatMap((d) => readdirSync(join(temp, d, 'answers')));
}

async function readParquet(body: Buffer): Promise<Record<string, unknown>[]> {
  const file = body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer;
  return (await parquetReadObjects({ file, compressors })) as Record<string, unknown>[];
}

describe('a Parquet answer', () => {
  it('holds the whole result, value by value as the JSON answer', async () => {
    const sql = 'SELECT oid, type_id, type_name, reachable, bytes, channel, file, "offset" FROM _objects ORDER BY oid';
    const json = (await post(sql, 'application/json')).json() as { columns: { name: string }[]; rows: unknown[][]; truncated: boolean };
    expect(json.truncated).toBe(false);
    expect(json.rows.length).toBeGreaterThan(100);
    const response = await post(sql, PARQUET);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe(PARQUET);
    expect(response.headers['content-disposition']).toContain('.parquet');
    expect(response.rawPayload.subarray(0, 4).toString()).toBe('PAR1');
    const rows = await readParquet(response.rawPayload);
    expect(rows.length).toBe(json.rows.length);
    rows.forEach((row, i) => {
      const values = json.columns.map((c) => {
        const v = row[c.name];
        return typeof v === 'bigint' ? String(v) : v;
      });
      expect(values).toEqual(json.rows[i]);
    });
    expect(answerFiles()).toEqual([]);
    expect(readdirSync(GRAPH).some((f) => f.endsWith('.parquet'))).toBe(false);
  });

  it('renders the statement anew: comments and a final ; of the client reach no COPY', async () => {
    const response = await post("SELECT 42 AS answer, 'a'')' AS text -- ) TO '/tmp/elsewhere.csv' (FORMAT csv\n;", PARQUET);
    expect(response.statusCode, response.body).toBe(200);
    expect(await readParquet(response.rawPayload)).toEqual([{ answer: 42, text: "a')" }]);
  });

  it.each([
    ["COPY _objects TO '/tmp/x.parquet' (FORMAT parquet)", 400],
    ["SELECT * FROM read_csv('/etc/passwd')", 400],
    ['EXPLAIN SELECT 1', 400],
    ['SELECT 1; SELECT 2', 400],
    ['SELECT count(*) FROM generate_series(1, 1000000000000)', 408],
  ])('refuses or stops %s like any statement (%i)', async (sql, status) => {
    const response = await post(sql, PARQUET);
    expect(response.statusCode, response.body).toBe(status);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(answerFiles()).toEqual([]);
  });
});
