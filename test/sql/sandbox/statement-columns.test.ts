import { describe, expect, it } from 'vitest';
import { checkStatement } from '../../../src/sql/sandbox/statement-check.js';
import { memoryDuck } from '../memory-duck.js';

/**
 * The tables and columns a statement names, as the statement check reads them from DuckDB's
 * parse (`tables`, `columns` of checkStatement): a type table's value members outside `columns`
 * are left NULL for that statement (built-tables.ts), so a name missed here is a NULL where the
 * storage holds a value, a wrong answer. `undefined` means the statement may read any column
 * (`*`, a whole row, a NATURAL join ...) and every member is filled. The sets are exact: a name
 * too many fills a member for nothing, which the cases here keep in sight too.
 * (sql-partial-fill.test.ts runs statements on a storage filled this way.)
 */

const duck = memoryDuck();
const allowed = { own: new Set(['book', 'author', '_objects', 'conformance.bookstore.book']), reserved: new Set(['duckdb_settings']) };

async function named(sql: string): Promise<{ tables: string[]; columns: string[] | undefined }> {
  const checked = await checkStatement(duck.connection, sql, allowed);
  return { tables: [...checked.tables].sort(), columns: checked.columns === undefined ? undefined : [...checked.columns].sort() };
}

async function columns(sql: string): Promise<string[] | undefined> {
  return (await named(sql)).columns;
}

describe('the columns a statement names', () => {
  it('names each part of a column reference, in lower case, however it is written', async () => {
    expect(await named('SELECT Title, "PRICE" FROM Book')).toEqual({ tables: ['book'], columns: ['price', 'title'] });
    expect(await named('SELECT B.Title FROM Book AS B WHERE b.Pages > 10')).toEqual({ tables: ['book'], columns: ['b', 'pages', 'title'] });
    expect(await named('SELECT main.Book.Title FROM main.Book')).toEqual({ tables: ['book'], columns: ['book', 'main', 'title'] });
    expect(await named('SELECT title FROM "conformance.bookstore.Book"')).toEqual({ tables: ['conformance.bookstore.book'], columns: ['title'] });
  });

  it('names a struct member read by its fields, not only the field', async () => {
    // `address.city` reads the member `address`: leaving it out would make every city NULL.
    expect(await columns('SELECT Address.City FROM author')).toEqual(['address', 'city']);
    expect(await columns('SELECT a.Address.City FROM author a')).toEqual(['a', 'address', 'city']);
    expect(await columns("SELECT struct_extract(address, 'city') FROM author")).toEqual(['address']);
  });

  it('names the columns read in every clause: WHERE, GROUP BY, HAVING, ORDER BY, QUALIFY, LIMIT, DISTINCT ON, FILTER', async () => {
    expect(await columns('SELECT genre, count(*) FROM book WHERE pages > 100 GROUP BY genre HAVING max(price) > 5 ORDER BY min(published) LIMIT 3')).toEqual([
      'genre',
      'pages',
      'price',
      'published',
    ]);
    expect(await columns('SELECT DISTINCT ON (genre) title FROM book ORDER BY genre, price DESC')).toEqual(['genre', 'price', 'title']);
    expect(await columns('SELECT count(*) FILTER (WHERE isbn IS NULL) FROM book')).toEqual(['isbn']);
    expect(await columns('SELECT title FROM book QUALIFY row_number() OVER (ORDER BY price) = 1')).toEqual(['price', 'title']);
    expect(await columns('SELECT title FROM book LIMIT (SELECT count(pages) FROM book)')).toEqual(['pages', 'title']);
  });

  it('names the columns of window functions, named windows included', async () => {
    expect(await columns('SELECT sum(price) OVER (PARTITION BY genre ORDER BY published ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM book')).toEqual([
      'genre',
      'price',
      'published',
    ]);
    expect(await columns('SELECT rank() OVER w, lag(title, 1) OVER w FROM book WINDOW w AS (PARTITION BY genre ORDER BY pages)')).toEqual(['genre', 'pages', 'title']);
  });

  it('names an ORDER BY alias together with the column it stands for', async () => {
    expect(await columns('SELECT price * 2 AS double FROM book ORDER BY double')).toEqual(['double', 'price']);
  });

  it('names the columns a lambda reads, its parameters with them', async () => {
    expect(await columns("SELECT list_filter(tags, lambda t: t LIKE 'a%') FROM book")).toEqual(['t', 'tags']);
    // A column of the row read inside the lambda only.
    expect(await columns('SELECT list_transform(tags, lambda t: t || title) FROM book')).toEqual(['t', 'tags', 'title']);
  });

  it('names the columns of subqueries, correlated or not, and of CTEs, recursive ones too', async () => {
    expect(await columns('SELECT title FROM book WHERE price > (SELECT avg(price) FROM book)')).toEqual(['price', 'title']);
    expect(await columns('SELECT name FROM author a WHERE EXISTS (SELECT 1 FROM book b WHERE b.writer = a.name)')).toEqual(['a', 'b', 'name', 'writer']);
    expect(await named('SELECT s.t FROM (SELECT title AS t FROM book) s')).toEqual({ tables: ['book'], columns: ['s', 't', 'title'] });
    expect(await named('WITH cheap AS (SELECT title, price FROM book WHERE pages < 100) SELECT title FROM cheap ORDER BY price')).toEqual({
      tables: ['book'],
      columns: ['pages', 'price', 'title'],
    });
    expect(await columns('WITH RECURSIVE r(n) AS (SELECT pages FROM book UNION ALL SELECT n - 1 FROM r WHERE n > 0) SELECT count(*) FROM r')).toEqual(['n', 'pages']);
    expect(await columns('SELECT title FROM book UNION ALL BY NAME SELECT name AS title FROM author')).toEqual(['name', 'title']);
  });

  it('names what a subquery or a table function yields inside it: its whole row or renamed columns read nothing more', async () => {
    expect(await named('SELECT to_json(s) FROM (SELECT title FROM book) s')).toEqual({ tables: ['book'], columns: ['s', 'title'] });
    expect(await columns('SELECT s.x FROM (SELECT title FROM book) AS s(x)')).toEqual(['s', 'title', 'x']);
    expect(await columns('SELECT u.t, u FROM book b, unnest(b.tags) AS u(t)')).toEqual(['b', 't', 'tags', 'u']);
  });

  it('names the columns of joins on a condition, cross, ASOF and positional joins, and USING columns', async () => {
    expect(await named('SELECT b.title FROM book b JOIN author a ON b.writer = a.name')).toEqual({ tables: ['author', 'book'], columns: ['a', 'b', 'name', 'title', 'writer'] });
    expect(await columns('SELECT b.title FROM book b LEFT JOIN author a ON b.writer = a.name')).toEqual(['a', 'b', 'name', 'title', 'writer']);
    expect(await columns('SELECT b.title FROM book b SEMI JOIN author a ON b.writer = a.name')).toEqual(['a', 'b', 'name', 'title', 'writer']);
    expect(await columns('SELECT b.title FROM book b, author a WHERE b.writer = a.name')).toEqual(['a', 'b', 'name', 'title', 'writer']);
    expect(await columns('SELECT b.title FROM book b ASOF JOIN author a ON b.published >= a.born')).toEqual(['a', 'b', 'born', 'published', 'title']);
    expect(await columns('SELECT b.title, a.name FROM book b POSITIONAL JOIN author a')).toEqual(['a', 'b', 'name', 'title']);
    expect(await columns('SELECT x FROM book b, LATERAL (SELECT b.pages AS x)')).toEqual(['b', 'pages', 'x']);
    // A table's column named like another table of the statement is that column, not the other's whole row (docs/sql.md's example).
    expect(await named('SELECT a.firstName, a.name, count(*) AS books FROM Book b JOIN Author a ON b.author = a._oid GROUP BY ALL ORDER BY books DESC, a.name LIMIT 5')).toEqual({
      tables: ['author', 'book'],
      columns: ['_oid', 'a', 'author', 'b', 'books', 'firstname', 'name'],
    });
    expect(await columns('SELECT Book.Author FROM book, author')).toEqual(['author', 'book']);
    expect(await columns('SELECT b.x.author FROM book b, author')).toEqual(['author', 'b', 'x']);
    // A USING column is read from both tables without a column reference naming it.
    expect(await named('SELECT count(*) FROM book JOIN author USING (Writer, "COUNTRY")')).toEqual({ tables: ['author', 'book'], columns: ['country', 'writer'] });
    expect(await columns('SELECT title FROM book b ASOF JOIN author a USING (writer, published)')).toEqual(['published', 'title', 'writer']);
  });

  it('takes a SUMMARIZE of a query as reading every column (DuckDB wraps it in a SELECT *), and the tables of the query', async () => {
    // More than the query names (its columns alone would do): a fill of every member, never a NULL too many.
    expect(await named('SUMMARIZE SELECT title, price FROM book JOIN author ON true')).toEqual({ tables: ['author', 'book'], columns: undefined });
  });

  it('fills nothing for a DESCRIBE (DuckDB binds its query and runs none of it), but checks its tables', async () => {
    // (DuckDB reads the DESCRIBE's own rows by a SELECT *: every column, of no table of the storage.)
    expect(await named('DESCRIBE book')).toEqual({ tables: [], columns: undefined });
    expect(await named('SHOW book')).toEqual({ tables: [], columns: undefined });
    expect(await named('DESCRIBE SELECT title FROM book JOIN author ON true')).toEqual({ tables: [], columns: undefined });
    // What a statement reads beside a DESCRIBE is filled as always.
    expect(await named('SELECT count(*) FROM (DESCRIBE book), author')).toEqual({ tables: ['author'], columns: undefined });
    await expect(named('DESCRIBE SELECT * FROM duckdb_settings()')).rejects.toThrow(/not allowed/);
    await expect(named('DESCRIBE nosuchtable')).rejects.toThrow(/not one of the storage's tables/);
  });

  it('names no column for a statement that reads none', async () => {
    expect(await named('SELECT count(*) FROM book')).toEqual({ tables: ['book'], columns: [] });
    expect(await named('SELECT 1')).toEqual({ tables: [], columns: [] });
  });
});

describe('a statement that may read every column', () => {
  it.each([
    ['*', 'SELECT * FROM book', ['book']],
    ['a qualified *', 'SELECT b.* FROM book b JOIN author a ON b.writer = a.name', ['author', 'book']],
    ['* with EXCLUDE', 'SELECT * EXCLUDE (title) FROM book', ['book']],
    ['FROM without SELECT', 'FROM book', ['book']],
    ['COLUMNS()', "SELECT max(COLUMNS('ti.*')) FROM book", ['book']],
    ['COUNT(*) beside *', 'SELECT count(*), * FROM book GROUP BY ALL', ['book']],
    ['* in a subquery', 'SELECT t FROM (SELECT * FROM book) s(t)', ['book']],
    ['* in EXISTS', 'SELECT name FROM author WHERE EXISTS (SELECT * FROM book)', ['author', 'book']],
    ['a positional reference', 'SELECT #2 FROM book', ['book']],
    ['a whole row by the table\'s name', 'SELECT Book FROM book', ['book']],
    ['a whole row by the table\'s schema-qualified name', 'SELECT main.Book FROM main.book', ['book']],
    ['a whole row by a name that is a table\'s and a column\'s', 'SELECT author FROM book, author', ['author', 'book']],
    ['a whole row by its schema, beside a table aliased like it', 'SELECT main.author FROM book AS main, author', ['author', 'book']],
    ['a whole row by its catalog, beside a table aliased like it', 'SELECT Memory.author FROM book AS memory JOIN author ON true', ['author', 'book']],
    ['a whole row by catalog and schema, beside a table aliased like the catalog', 'SELECT memory.main.author FROM book AS memory, author', ['author', 'book']],
    ['one reference by a schema among others by a table', 'SELECT b.author, main.author FROM book b, book AS main, author', ['author', 'book']],
    ['a whole row by an alias', 'SELECT to_json(B) FROM book b', ['book']],
    ['a whole row\'s field by the alias', "SELECT b['title'] FROM book b", ['book']],
    ['a whole row in a lambda', 'SELECT list_transform([1], lambda x: b) FROM book b', ['book']],
    ['a NATURAL join', 'SELECT count(*) FROM book NATURAL JOIN author', ['author', 'book']],
    ['columns renamed by position', 'SELECT x FROM book AS t(x, y)', ['book']],
    ['a PIVOT', 'SELECT count(*) FROM book PIVOT (count(*) FOR genre IN (1, 2))', ['book']],
    ['an UNPIVOT', 'SELECT count(*) FROM book UNPIVOT (v FOR k IN (title, isbn))', ['book']],
    ['an UNPIVOT statement', 'UNPIVOT book ON title, isbn INTO NAME k VALUE v', ['book']],
    ['SUMMARIZE of a table', 'SUMMARIZE book', ['book']],
    ['EXPLAIN of *', 'EXPLAIN SELECT * FROM book', ['book']],
  ])('%s', async (_what, sql, tables) => {
    expect(await named(sql)).toEqual({ tables, columns: undefined });
  });
});
