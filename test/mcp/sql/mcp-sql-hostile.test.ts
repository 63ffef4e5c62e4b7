import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, stdioClient } from '../stdio-client.js';

/**
 * The MCP `sql_query` tool over stdio gets the same sandbox as /api/v1/sql (issue 40.1): the
 * statement that used to make the next one abort the process is refused as a tool error, and
 * the server answers the next statement.
 */

const GRAPH = join(ROOT, 'test', 'fixtures', 'conformance', 'storages', 'graph');

describe('sql_query over stdio', () => {
  let client: Client;
  beforeAll(async () => {
    ({ client } = await stdioClient([GRAPH]));
  });
  afterAll(async () => client.close());

  const query = async (sql: string): Promise<CallToolResult> => (await client.callTool({ name: 'sql_query', arguments: { sql } })) as CallToolResult;

  it('refuses enable_logging and writes, and answers the next statement', async () => {
    for (const sql of ["SELECT * FROM enable_logging(storage='file', storage_path='/nonexistent')", 'EXPLAIN (ANALYZE) DELETE FROM _objects', "SELECT current_setting('temp_directory')"]) {
      const refused = await query(sql);
      expect(refused.isError, sql).toBe(true);
      expect((refused.content[0] as { text: string }).text).toMatch(/not allowed|read-only/);
    }
    const answered = await query('SELECT count(*) AS n FROM _objects');
    expect(answered.isError ?? false).toBe(false);
    expect((answered.structuredContent as { rows: unknown[][] }).rows).toEqual([['1263']]);
  });
});
