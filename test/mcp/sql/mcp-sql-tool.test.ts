import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeSqlEngines, sqlEngineOf } from '../../../src/http/api-v1/sql/sql-engines.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { mcpInProcess, textOf } from '../../helpers/serving/mcp-in-process.js';

/**
 * `sql_query` (src/mcp/tools/sql-tool.ts) in process, on the real SQL engine, with the server made
 * inside each test (so that a mutation run counts its registration as covered here): registered
 * when a served storage has an engine and only then; its title, hints and inputs; rows as text
 * with the default limit of 50 and the limit asked (and no truncation line when all rows fit);
 * a storage without an engine refused by name.
 * Issue 48: the tool was tested over stdio only (the built command), which no mutant of src/ reaches.
 */

const STORAGES = { evolution: join(CONFORMANCE_DIR, 'storages', 'evolution'), primitives: join(CONFORMANCE_DIR, 'storages', 'primitives') };

describe('sql_query', () => {
  it('is offered when a served storage has an engine: title, hints, inputs, rows cut at the default limit of 50 or the one asked, a storage without an engine refused', async () => {
    const tools = await mcpInProcess(STORAGES, { sqlEngine: (context) => (context.name === 'evolution' ? sqlEngineOf(context) : undefined) });
    try {
      const tool = (await tools.client.listTools()).tools.find((t) => t.name === 'sql_query')!;
      expect(tool.title).toBe('Read-only SQL query');
      expect(tool.annotations).toEqual({ title: 'Read-only SQL query', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
      expect(tool.description).toMatch(/^Runs one read-only SQL query \(DuckDB dialect\) .* The answer is that of POST \/api\/v1\/sql\.$/);
      const inputs = tool.inputSchema.properties as Record<string, { description?: string; minLength?: number; maxLength?: number; minimum?: number; maximum?: number }>;
      expect(Object.keys(inputs).sort()).toEqual(['limit', 'sql', 'storage']);
      expect(inputs['sql']).toMatchObject({ description: 'one SELECT (or WITH ... SELECT) statement', minLength: 1, maxLength: 100_000 });
      expect(inputs['limit']).toMatchObject({ description: 'rows per answer (default 50, at most 200)', minimum: 1, maximum: 200 });
      expect(inputs['storage']!.description).toBe('name of the served storage to ask (default evolution; served: evolution, primitives)');

      const sql = 'SELECT oid, type_name FROM _objects ORDER BY oid';
      const all = await sqlEngineOf(tools.registry.get('evolution')!).query(sql, { limit: 1000 });
      expect(all.rowCount).toBeGreaterThan(50);
      const result = await tools.call('sql_query', { sql });
      expect(result.isError).toBeFalsy();
      const content = result.structuredContent as { rows: unknown[][]; rowCount: number; truncated: boolean; elapsedMs: number };
      expect(content.rows).toEqual(all.rows.slice(0, 50));
      expect(content.truncated).toBe(true);
      const text = textOf(result).split('\n');
      expect(text[0]).toBe('oid BIGINT | type_name VARCHAR');
      expect(text.slice(1, 51)).toEqual(all.rows.slice(0, 50).map((row) => row.join(' | ')));
      expect(text.slice(51)).toEqual([
        `50 row(s) in ${content.elapsedMs} ms`,
        'truncated: more rows than the limit of 50; narrow the query (WHERE, aggregate) or page with ORDER BY ... LIMIT ... OFFSET ...',
      ]);

      const two = await tools.call('sql_query', { sql, limit: 2, storage: 'evolution' });
      expect((two.structuredContent as { rows: unknown[] }).rows).toEqual(all.rows.slice(0, 2));
      expect(textOf(two).split('\n').at(-1)).toMatch(/^truncated: more rows than the limit of 2;/);

      const whole = await tools.call('sql_query', { sql, limit: 200 });
      expect(textOf(whole).split('\n').at(-1)).toBe(`${all.rowCount} row(s) in ${(whole.structuredContent as { elapsedMs: number }).elapsedMs} ms`);

      const refused = await tools.call('sql_query', { sql, storage: 'primitives' });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe('Not Found (404): storage primitives has no SQL engine');
    } finally {
      closeSqlEngines(tools.registry.all());
      await tools.close();
    }
  }, 120_000);

  it('is not offered when no served storage has an engine', async () => {
    const tools = await mcpInProcess(STORAGES, { sqlEngine: () => undefined });
    try {
      expect((await tools.client.listTools()).tools.map((t) => t.name)).not.toContain('sql_query');
    } finally {
      await tools.close();
    }
  }, 60_000);
});
