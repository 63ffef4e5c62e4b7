import { describe, expect, it } from 'vitest';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { graphEngines } from '../graph-engines.js';

/**
 * `_elements` and `_references` are filled when a statement first reads them (as DuckDB's parse
 * names them: in any case, inside a CTE or a subquery); every engine answers the same counts.
 */

const engine = graphEngines();

const count = async (e: SqlEngine, sql: string): Promise<string> => String((await e.query(sql, { limit: 1 })).rows[0]![0]);

describe('the link tables', () => {
  it('hold the same rows however a statement reaches them', async () => {
    const named = engine();
    const elements = await count(named, 'SELECT count(*) FROM _elements');
    const references = await count(named, 'SELECT count(*) FROM _references');
    expect(Number(elements)).toBeGreaterThan(0);
    expect(Number(references)).toBeGreaterThan(0);
    // A fresh engine asked first something else, then through a CTE and a subquery, in other cases.
    const nested = engine();
    expect(Number(await count(nested, 'SELECT count(*) FROM _objects'))).toBeGreaterThan(0);
    expect(await count(nested, 'WITH e AS (SELECT * FROM main._ELEMENTS) SELECT count(*) FROM e')).toBe(elements);
    expect(await count(nested, 'SELECT (SELECT count(*) FROM "_References")')).toBe(references);
    // Two statements at once on a fresh engine: one filling, both answering the whole table.
    const both = engine();
    const answers = await Promise.all([count(both, 'SELECT count(*) FROM _references'), count(both, 'SELECT count(*) FROM _references')]);
    expect(answers).toEqual([references, references]);
  });

  it('are filled after a statement that left its result unread on the same engine', async () => {
    // The first statement's read-only transaction ends with it; the link fill's checkpoint is
    // not held off by it (it was: "Cannot CHECKPOINT: there are other write transactions active").
    const e = engine();
    const garbage = await e.query('SELECT type_name, count(*) FROM _objects WHERE NOT reachable GROUP BY type_name', { limit: 1 });
    expect(garbage.rowCount).toBeLessThanOrEqual(1);
    expect(Number(await count(e, 'SELECT count(*) FROM _references'))).toBeGreaterThan(0);
  });
});
