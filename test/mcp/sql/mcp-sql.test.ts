import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';
import { ROOT, stdioClient } from '../stdio-client.js';

/**
 * The sql_query tool over stdio (the built command, as an assistant starts it) runs on the same
 * engine as POST /api/v1/sql: the same columns and rows for the same statement, the same refusals.
 */

const DIR = join(ROOT, 'test', 'fixtures', 'conformance', 'storages', 'graph');
const QUERY = 'SELECT type_name, count(*) AS n, sum(bytes) AS bytes FROM _objects GROUP BY type_name ORDER BY n DESC, type_name LIMIT 7';

describe('sql_query over stdio', () => {
  let client: Client;
  let close: () => Promise<void>;
  let app: ReturnType<typeof buildApp>;
  let registered: RegisteredStorage;

  beforeAll(async () => {
    ({ client } = await stdioClient([DIR]));
    registered = await registeredStorage(DIR);
    registered.registry.startAll();
    app = buildApp(registered.storage, { instance: 'microstream', api: registered.registry, sql: {} });
    close = async () => {
      await client.close();
      await app.close();
      await registered.close();
    };
  }, 120_000);
  afterAll(async () => close?.());

  const call = async (args: Record<string, unknown>): Promise<CallToolResult> => (await client.callTool({ name: 'sql_query', arguments: args })) as CallToolResult;

  it('is listed, and answers as POST /api/v1/sql does', async () => {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('sql_query');
    const result = await call({ sql: QUERY, limit: 5 });
    expect(result.isError ?? false).toBe(false);
    const http = await app.inject({ method: 'POST', url: '/api/v1/sql', payload: { sql: QUERY, limit: 5 } });
    expect(http.statusCode).toBe(200);
    const expected = http.json() as { columns: unknown; rows: unknown[]; truncated: boolean; rowCount: number };
    const got = result.structuredContent as typeof expected;
    expect(got.columns).toEqual(expected.columns);
    expect(got.rows).toEqual(expected.rows);
    expect(got.rowCount).toBe(5);
    expect(got.truncated).toBe(true);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain('truncated: more rows than the limit of 5');
  }, 120_000);

  it('refuses what the sandbox refuses, as a tool error, and keeps serving', async () => {
    for (const sql of ["SELECT * FROM read_csv('/etc/passwd')", "COPY _objects TO '/tmp/x.csv'", 'INSTALL httpfs', 'SELECT 1; SELECT 2']) {
      const result = await call({ sql });
      expect(result.isError, sql).toBe(true);
    }
    const again = await call({ sql: 'SELECT count(*) AS n FROM _objects' });
    expect(again.isError ?? false).toBe(false);
  }, 120_000);
});
