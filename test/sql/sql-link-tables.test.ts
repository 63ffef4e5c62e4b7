import { describe, expect, it } from 'vitest';
import { namesLinkTables } from '../../src/sql/link-tables.js';
import { SqlEngine } from '../../src/sql/sql-engine.js';
import { graphEngines } from './graph-engines.js';

/**
 * `_elements` and `_references` are filled when a statement first may read them: by name, or
 * through `query_table`/`query` with a computed name; every engine answers the same counts.
 */

const engine = graphEngines();

const count = async (e: SqlEngine, sql: string): Promise<string> => String((await e.query(sql, { limit: 1 })).rows[0]![0]);

describe('the link tables', () => {
  it('are named by statements that may read them', () => {
    expect(namesLinkTables('SELECT * FROM _ELEMENTS')).toBe(true);
    expect(namesLinkTables('select 1 from _references r')).toBe(true);
    expect(namesLinkTables("SELECT * FROM query_table('x')")).toBe(true);
    expect(namesLinkTables("FROM query ('SELECT 1')")).toBe(true);
    expect(namesLinkTables('SELECT count(*) FROM _objects')).toBe(false);
  });

  it('hold the same rows however a statement reaches them', async () => {
    const named = engine();
    const elements = await count(named, 'SELECT count(*) FROM _elements');
    const references = await count(named, 'SELECT count(*) FROM _references');
    expect(Number(elements)).toBeGreaterThan(0);
    expect(Number(references)).toBeGreaterThan(0);
    // A fresh engine asked first something else, then through a computed table name.
    const computed = engine();
    expect(Number(await count(computed, 'SELECT count(*) FROM _objects'))).toBeGreaterThan(0);
    expect(await count(computed, "SELECT count(*) FROM query_table('_elem' || 'ents')")).toBe(elements);
    expect(await count(computed, "SELECT count(*) FROM query_table('_refer' || 'ences')")).toBe(references);
    // Two statements at once on a fresh engine: one filling, both answering the whole table.
    const both = engine();
    const answers = await Promise.all([count(both, 'SELECT count(*) FROM _references'), count(both, 'SELECT count(*) FROM _references')]);
    expect(answers).toEqual([references, references]);
  });
});
