import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { checkStatement } from '../../../src/sql/sandbox/statement-check.js';
import { TableCache } from '../../../src/sql/cache/table-cache.js';
import { graphEngines } from '../graph-engines.js';
import { memoryDuck } from '../memory-duck.js';

/**
 * A statement fills only what it names: the value members of a type table it reads by name (the
 * others NULL until a statement names one) and the value types those members hold (`_values`
 * rows of other value types wait too). Answers equal those of fully filled tables, a later
 * statement naming other members gets them (the table filled again, whole), and the cache never
 * takes a partly filled table for a filled one.
 */

const engine = graphEngines();
const BOOK = 'conformance.bookstore.Book';

async function rows(e: SqlEngine, sql: string): Promise<unknown[][]> {
  return (await e.query(sql, { limit: 100_000 })).rows;
}

describe('what a statement names is what it fills', () => {
  let full: unknown[][];
  let strings: unknown[][];
  beforeAll(async () => {
    const e = engine();
    await e.fillAll();
    full = await rows(e, `SELECT _oid, price, genre, title, isbn, published FROM "${BOOK}" ORDER BY _oid`);
    strings = await rows(e, 'SELECT count(*), count(DISTINCT text) FROM "java.lang.String"');
  });

  it('makes each value once, whether the base tables needed it (an enum constant\'s name) or not', async () => {
    const e = engine();
    await rows(e, 'SELECT genre FROM Book');
    await e.fillAll();
    expect(await rows(e, 'SELECT count(*) - count(DISTINCT oid), count(*) > 0 FROM _values')).toEqual([['0', true]]);
    expect(await rows(e, 'SELECT count(*) - count(DISTINCT _oid) FROM "java.lang.String"')).toEqual([['0']]);
  });

  it('answers a statement naming few members as full tables do, and a later one naming others too', async () => {
    expect(full.length).toBeGreaterThan(0);
    // Titles and ISBNs are texts, present in the full table.
    expect(full.filter((r) => r[3] !== null && r[4] !== null).length).toBeGreaterThan(0);
    const e = engine();
    expect(await rows(e, 'SELECT _oid, price, genre FROM Book ORDER BY _oid')).toEqual(full.map((r) => r.slice(0, 3)));
    // The same table, other members: filled again with them (not NULL, not twice).
    expect(await rows(e, 'SELECT b._oid, b.price, b.genre, b.title FROM Book b ORDER BY 1')).toEqual(full.map((r) => r.slice(0, 4)));
    expect(await rows(e, `SELECT _oid, price, genre, title, isbn, published FROM "${BOOK}" ORDER BY _oid`)).toEqual(full);
    expect(await rows(e, 'SELECT count(*) FROM Book')).toEqual([[String(full.length)]]);
    // A view over `_values` of a value type no type column needed yet.
    expect(await rows(e, 'SELECT count(*), count(DISTINCT text) FROM "java.lang.String"')).toEqual(strings);
  });

  it('fills each member, of any kind, when a later statement first names it', async () => {
    const whole = engine();
    await whole.fillAll();
    const star = await whole.query('SELECT * FROM Book ORDER BY _oid', { limit: 100_000 });
    const names = star.columns.map((c) => c.name).filter((name) => !name.startsWith('_'));
    // Books have members of other kinds than values (a reference to the author at least).
    expect(names.length).toBeGreaterThan(5);
    const e = engine();
    expect(await rows(e, 'SELECT _oid, price FROM Book ORDER BY _oid')).toEqual(full.map((r) => r.slice(0, 2)));
    // One member more per statement: each answer as the full table's, the members named before kept.
    for (let n = 1; n <= names.length; n++) {
      const named = names.slice(0, n);
      const sql = `SELECT _oid, ${named.map((name) => `"${name}"`).join(', ')} FROM Book ORDER BY _oid`;
      const at = named.map((name) => star.columns.findIndex((c) => c.name === name));
      expect(await rows(e, sql), sql).toEqual(star.rows.map((r) => [r[0], ...at.map((i) => r[i])]));
      expect(await rows(e, `SELECT _oid, "${named[0]}" FROM Book ORDER BY _oid`)).toEqual(star.rows.map((r) => [r[0], r[at[0]!]]));
    }
  });

  it('fills every member for a statement that may read any (*, a whole row)', async () => {
    const e = engine();
    expect(await rows(e, 'SELECT price FROM Book ORDER BY _oid')).toEqual(full.map((r) => [r[1]]));
    expect(await rows(e, `SELECT struct_extract(b, 'title') FROM Book b ORDER BY b._oid`)).toEqual(full.map((r) => [r[3]]));
    const other = engine();
    const star = await rows(other, 'SELECT * FROM Book ORDER BY _oid');
    // _oid, _type_id, isbn, title: the table's column order.
    expect(star.map((r) => [r[2], r[3]])).toEqual(full.map((r) => [r[4], r[3]]));
  });

  it('answers a join on a member named like the other table (docs/sql.md\'s example) as full tables do', async () => {
    // `b.author` is Book's member, not Author's whole row: only the members named are filled, and
    // the statement check looks up the sandbox's schema and catalog names to tell (no `b` among them).
    const sql = 'SELECT a.firstName, a.name, count(*) AS books, max(b.title) FROM Book b JOIN Author a ON b.author = a._oid GROUP BY ALL ORDER BY books DESC, a.name';
    const whole = engine();
    await whole.fillAll();
    const expected = await rows(whole, sql);
    expect(expected.filter((r) => r[0] !== null && r[1] !== null && r[3] !== null).length).toBeGreaterThan(0);
    expect(await rows(engine(), sql)).toEqual(expected);
  });

  it('never keeps a partly filled table in the cache as filled', async () => {
    const base = mkdtempSync(join(tmpdir(), 'sql-partial-'));
    try {
      const cache = new TableCache(join(base, 'cache'));
      const first = engine({ cache });
      expect(await rows(first, 'SELECT _oid, price FROM Book ORDER BY _oid')).toEqual(full.map((r) => r.slice(0, 2)));
      // Another table filled whole: the kept database then holds the partly filled Book too.
      await rows(first, 'SELECT count(name) FROM Author');
      await first.settle();
      let cached: boolean | undefined;
      const second = engine({ cache, onBuilt: (f) => (cached = f.cached) });
      // Kept with the members it has: what it holds is answered as it is.
      expect(await rows(second, 'SELECT _oid, price FROM Book ORDER BY _oid')).toEqual(full.map((r) => r.slice(0, 2)));
      expect(await rows(second, 'SELECT _oid, price, genre, title, isbn, published FROM Book ORDER BY _oid')).toEqual(full);
      expect(cached).toBe(true);
      expect(await rows(second, 'SELECT count(*) FROM Book')).toEqual([[String(full.length)]]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('the columns a statement may read, from its parse', () => {
  const duck = memoryDuck();
  const allowed = { own: new Set(['book', 'author', 'conformance.bookstore.book']), reserved: new Set<string>() };
  const columns = async (sql: string): Promise<string[] | undefined> => {
    const found = (await checkStatement(duck.connection, sql, allowed)).columns;
    return found === undefined ? undefined : [...found].sort();
  };

  it('names the columns referenced, qualified or not, in USING and in subqueries', async () => {
    expect(await columns('SELECT genre, sum(price) FROM Book WHERE pages > 1 GROUP BY ALL')).toEqual(['genre', 'pages', 'price']);
    expect(await columns('SELECT b.title FROM book b JOIN author a ON b.isbn = a.name')).toEqual(['a', 'b', 'isbn', 'name', 'title']);
    expect(await columns('SELECT count(*) FROM book JOIN author USING (name)')).toEqual(['name']);
    expect(await columns('SELECT (SELECT max(isbn) FROM book) AS m')).toEqual(['isbn']);
  });

  it('says every column for *, COLUMNS(), a whole row, positions, NATURAL joins, renamed columns and PIVOT', async () => {
    for (const sql of [
      'SELECT * FROM book',
      'SELECT b.* FROM book b',
      'SELECT COLUMNS(*) FROM book',
      'SELECT b FROM book b',
      'SELECT book FROM book',
      'SELECT #1 FROM book',
      'SELECT count(*) FROM book NATURAL JOIN author',
      'SELECT x FROM book AS t(x, y)',
      'SELECT count(*) FROM book PIVOT (count(*) FOR genre IN (1, 2))',
    ]) {
      expect(await columns(sql), sql).toBeUndefined();
    }
  });
});
