import { describe, expect, it } from 'vitest';
import type { TypeTablePlan } from '../../src/sql/column-model.js';
import { SqlEngine } from '../../src/sql/sql-engine.js';
import { typeTablesNamed } from '../../src/sql/type-fill.js';
import { graphEngines } from './graph-engines.js';

/**
 * Entity types' tables exist from the first statement on, with their columns, and get their rows
 * when a statement first names them (by full or simple name, in any case, or through a name
 * built at run time); a statement on one type does not fill the others. Every engine, however
 * its tables were filled, answers the same rows.
 */

const engine = graphEngines();

/** Rows per table as DuckDB's catalog counts them (a statement that names no type table). */
async function sizes(e: SqlEngine): Promise<Map<string, number>> {
  const answer = await e.query(`SELECT table_name, estimated_size FROM duckdb_tables() WHERE schema_name = 'main'`, { limit: 10_000 });
  return new Map(answer.rows.map((r) => [String(r[0]), Number(r[1])]));
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

  it('fills every table a run-time name may reach', async () => {
    const e = engine();
    await e.query(`SELECT count(*) FROM query_table('Aut' || 'hor')`, { limit: 1 });
    const after = await sizes(e);
    expect(after.get('conformance.bookstore.Author')).toBeGreaterThan(0);
    expect(after.get('conformance.bookstore.Book')).toBeGreaterThan(0);
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

describe('the names a statement holds', () => {
  const plan = (typeName: string): TypeTablePlan => ({ typeName }) as unknown as TypeTablePlan;
  const book = plan('com.acme.Book');
  const order = plan('com.acme.Order');
  const deferred = new Map([
    ['com.acme.book', book],
    ['book', book],
    ['com.acme.order', order],
    ['order', order],
  ]);
  const named = (sql: string): string[] => [...typeTablesNamed(sql, deferred)].map((p) => p.typeName).sort();

  it('finds quoted full names, bare and quoted simple names in any case, string literals', () => {
    expect(named('SELECT * FROM "com.acme.Book"')).toEqual(['com.acme.Book']);
    expect(named('select * from BOOK b join "Order" o on o.book = b._oid')).toEqual(['com.acme.Book', 'com.acme.Order']);
    expect(named(`SELECT * FROM query_table('Book')`)).toEqual(['com.acme.Book', 'com.acme.Order']);
    expect(named(`SELECT 'Book' AS x`)).toEqual(['com.acme.Book']);
    expect(named('SELECT count(*) FROM _objects')).toEqual([]);
    expect(named('SELECT * FROM "com.acme.Bookshelf"')).toEqual([]);
    expect(named('SELECT * FROM Books')).toEqual([]);
  });
});
