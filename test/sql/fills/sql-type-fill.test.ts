import { describe, expect, it } from 'vitest';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { graphEngines } from '../graph-engines.js';

/**
 * Entity types' tables exist from the first statement on, with their columns, and get their rows
 * when a statement first names them (by full or simple name, in any case, as DuckDB's parse of
 * the statement names them); a statement on one type does not fill the others. Every engine, however
 * its tables were filled, answers the same rows.
 */

const engine = graphEngines();

/** Rows per table as DuckDB's catalog counts them (no statement of a user's, which may not read the catalog). */
function sizes(e: SqlEngine): Promise<Map<string, number>> {
  return e.tableRowEstimates();
}

async function rows(e: SqlEngine, table: string): Promise<string> {
  const answer = await e.query(`SELECT * FROM "${table}" ORDER BY _oid`, { limit: 100_000 });
  return JSON.stringify(answer.rows);
}

describe('type tables filled when first named', () => {
  it('fills only the tables a statement names, by full or simple name', async () => {
    const e = engine();
    const before = await sizes(e);
    expect(before.get('conformance.bookstore.Book')).toBe(0);
    expect(before.get('conformance.bookstore.Author')).toBe(0);
    // Value types and enums are there from the start; `_objects` is there, empty.
    expect(before.get('_values')).toBeGreaterThan(0);
    expect(before.get('_objects')).toBe(0);

    expect(Number((await e.query('SELECT count(*) FROM book', { limit: 1 })).rows[0]![0])).toBeGreaterThan(0);
    const after = await sizes(e);
    expect(after.get('conformance.bookstore.Book')).toBeGreaterThan(0);
    expect(after.get('conformance.bookstore.Author')).toBe(0);

    await e.query('SELECT count(*) FROM "conformance.bookstore.Author"', { limit: 1 });
    expect((await sizes(e)).get('conformance.bookstore.Author')).toBeGreaterThan(0);

    const named = await e.query('SELECT count(*), count(type_name), count(file), count(DISTINCT oid) FROM _objects', { limit: 1 });
    const [objects, ...others] = named.rows[0]!.map(Number);
    expect(objects).toBeGreaterThan(0);
    expect(others).toEqual([objects, objects, objects]);
    const last = await sizes(e);
    expect(last.get('_objects')).toBe(objects);
    expect(last.get('conformance.bookstore.Book')).toBe(after.get('conformance.bookstore.Book'));
    expect([...last.keys()].filter((name) => name.startsWith('__'))).toEqual([]);
  });

  it('fills the tables a CTE, a subquery or SUMMARIZE reads, and no other', async () => {
    const e = engine();
    await e.query('WITH a AS (SELECT * FROM AUTHOR) SELECT count(*) FROM a', { limit: 1 });
    let now = await sizes(e);
    expect(now.get('conformance.bookstore.Author')).toBeGreaterThan(0);
    expect(now.get('conformance.bookstore.Book')).toBe(0);
    await e.query('SUMMARIZE "conformance.bookstore.Book"', { limit: 100 });
    now = await sizes(e);
    expect(now.get('conformance.bookstore.Book')).toBeGreaterThan(0);
  });

  it('fills nothing for DESCRIBE or SHOW of a table: the same answer as once it is filled', async () => {
    const e = engine();
    const described = await e.query('DESCRIBE "conformance.bookstore.Book"', { limit: 100 });
    const shown = await e.query('SHOW book', { limit: 100 });
    expect((await sizes(e)).get('conformance.bookstore.Book')).toBe(0);
    expect(described.rows.map((row) => row[0])).toContain('title');
    await e.query('SELECT * FROM "conformance.bookstore.Book"', { limit: 1 });
    expect((await sizes(e)).get('conformance.bookstore.Book')).toBeGreaterThan(0);
    expect((await e.query('DESCRIBE "conformance.bookstore.Book"', { limit: 100 })).rows).toEqual(described.rows);
    expect((await e.query('SHOW book', { limit: 100 })).rows).toEqual(shown.rows);
  });

  it('answers every row and member after DESCRIBE of a table or a query on it came first', async () => {
    const fresh = await rows(engine(), 'conformance.bookstore.Book');
    const e = engine();
    // A DESCRIBE of a query that reads members (title), one with subqueries DuckDB binds, SHOW:
    // none of them marks Book or a member filled, so the statements after fill what they read.
    await e.query('DESCRIBE SELECT title, (SELECT count(*) FROM Author) FROM Book WHERE genre IS NOT NULL LIMIT (SELECT count(*) FROM Book)', { limit: 100 });
    await e.query('SHOW book', { limit: 100 });
    expect((await sizes(e)).get('conformance.bookstore.Book')).toBe(0);
    const genres = await e.query('SELECT _oid, genre FROM Book ORDER BY _oid', { limit: 100_000 });
    const titles = await e.query('SELECT _oid, title FROM Book ORDER BY _oid', { limit: 100_000 });
    const all = JSON.parse(fresh) as unknown[][];
    const columns = (await e.query('SELECT * FROM Book LIMIT 0', { limit: 1 })).columns.map((c) => c.name);
    const at = (name: string): number => columns.indexOf(name);
    expect(genres.rows).toEqual(all.map((row) => [row[0], row[at('genre')]]));
    expect(titles.rows).toEqual(all.map((row) => [row[0], row[at('title')]]));
    expect(titles.rows.filter((row) => row[1] !== null).length).toBeGreaterThan(0);
    expect(await rows(e, 'conformance.bookstore.Book')).toBe(fresh);
  });

  it('answers the same rows whether a table was filled alone, with others, or for an export', async () => {
    const alone = engine();
    const together = engine();
    const all = engine();
    await all.fillAll();
    const { tables } = await all.schema();
    const types = tables.filter((t) => t.kind === 'type').map((t) => t.name);
    // Several at once, in one statement.
    await together.query(`SELECT (SELECT count(*) FROM "conformance.bookstore.Book") + (SELECT count(*) FROM "conformance.bookstore.Author") + (SELECT count(*) FROM Customer)`, { limit: 1 });
    for (const name of types) {
      const expected = await rows(all, name);
      expect(await rows(alone, name), name).toBe(expected);
      expect(await rows(together, name), name).toBe(expected);
    }
  });
});
