import { z } from 'zod';
import { ApiAnswerError } from '../api-client.js';
import { MAX_PAGE, short, TextBudget } from '../budget.js';
import type { SqlResult } from '../sql-engine-contract.js';
import { answer, guarded, limitInput, READ_ONLY, storageInput, storageOf, type ToolRegistrar } from '../tool-kit.js';

/**
 * `sql_query`: a read-only SQL query on the storage's relational view, through the same engine,
 * sandbox and limits as `POST /api/v1/sql`. Registered only when a served storage has an engine.
 */

/** Characters of one cell in the text. */
const CELL_CHARS = 80;

function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return short(text, CELL_CHARS).replace(/\|/g, '\\|');
}

/** The rows as a pipe-separated table (header first), and the truncation marker. */
export function sqlText(result: SqlResult, limit: number): string {
  const out = new TextBudget();
  out.add(result.columns.map((c) => `${c.name} ${c.type}`).join(' | '));
  for (const row of result.rows) out.add(row.map(cellText).join(' | '));
  out.add(`${result.rowCount} row(s) in ${result.elapsedMs} ms`);
  if (result.truncated) out.addAlways(`truncated: more rows than the limit of ${limit}; narrow the query (WHERE, aggregate) or page with ORDER BY ... LIMIT ... OFFSET ...`);
  return out.text();
}

export const registerSqlTool: ToolRegistrar = (server, deps) => {
  const engineOf = deps.sqlEngine;
  if (engineOf === undefined || !deps.registry.all().some((context) => engineOf(context) !== undefined)) return;
  server.registerTool(
    'sql_query',
    {
      title: 'Read-only SQL query',
      description:
        'Runs one read-only SQL query (DuckDB dialect) over the storage as tables: one per class named by its full name (quote it: SELECT * FROM "com.acme.Customer"; a view under the simple name when unambiguous) with _oid, _type_id and a column per member (references as BIGINT object ids); _objects(oid, type_id, type_name, reachable, bytes, channel, file, "offset"), _references(from_oid, to_oid, member), _elements(owner, position, key_text, key_oid, value_text, value_oid), _values(oid, type_id, text, int, num, bool, ts, dt, tm) for value objects (String, Integer, Date...), and EclipseStore GigaMaps as _gigamap_entities(gigamap, entity_id, oid) and _gigamap_index(gigamap, index_name, key, entity_id). 64-bit numbers come back as decimal strings. Read the data-model resource for more. The answer is that of POST /api/v1/sql.',
      inputSchema: {
        ...storageInput(deps.registry),
        sql: z.string().min(1).max(100_000).describe('one SELECT (or WITH ... SELECT) statement'),
        limit: limitInput('rows', 50, MAX_PAGE),
      },
      annotations: { title: 'Read-only SQL query', ...READ_ONLY },
    },
    (args, extra) =>
      guarded(async () => {
        const context = deps.api.context(storageOf(args));
        const engine = engineOf(context);
        if (engine === undefined) throw new ApiAnswerError(404, 'Not Found', `storage ${context.name} has no SQL engine`);
        const limit = args.limit ?? 50;
        const result = await engine.query(args.sql, { limit, signal: extra.signal });
        return answer(sqlText(result, limit), result as unknown as Record<string, unknown>);
      }),
  );
};
