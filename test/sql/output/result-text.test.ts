import { describe, expect, it } from 'vitest';
import { csvHeaderLine, csvLines, formatLines, formatMarkdown, formatTable, ndjsonLines, RESULT_FORMATS, tableFits } from '../../../src/sql/output/result-text.js';
import type { SqlColumn } from '../../../src/sql/sql-engine.js';

/**
 * The text of an SQL result, character by character: the table (numbers right-aligned and never
 * cut, the widest text column giving up room first, none below 12 characters, none above 80),
 * one value a line, Markdown, CSV and NDJSON.
 */

const col = (name: string, type: string): SqlColumn => ({ name, type });

describe('the table', () => {
  it('right-aligns numbers, left-aligns texts, shows NULL and the types in lower case', () => {
    const text = formatTable([col('id', 'BIGINT'), col('name', 'VARCHAR')], [['12', 'Ann'], ['3', null]], undefined);
    expect(text).toBe(
      [
        '┌────────┬─────────┐',
        '│     id │ name    │',
        '│ bigint │ varchar │',
        '├────────┼─────────┤',
        '│     12 │ Ann     │',
        '│      3 │ NULL    │',
        '└────────┴─────────┘',
        '',
      ].join('\n'),
    );
  });

  it('knows the numeric types by name, and no others', () => {
    /** The one cell's line of a one-column table: right-aligned when the type counts as a number. */
    const cellLine = (type: string): string => formatTable([col('n', type)], [['5']], undefined).split('\n')[4]!;
    const aligned = (type: string, numeric: boolean): string => `│ ${numeric ? `${' '.repeat(type.length - 1)}5` : `5${' '.repeat(type.length - 1)}`} │`;
    const numeric = ['TINYINT', 'SMALLINT', 'INTEGER', 'INT', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT', 'DECIMAL', 'DECIMAL(18,3)', 'NUMERIC', 'NUMERIC(5,2)', 'DOUBLE', 'FLOAT', 'REAL'];
    const texts = ['VARCHAR', 'INTEGER[]', 'BIGINT[3]', 'MAP(VARCHAR, DECIMAL(18,3))', 'STRUCT(a INTEGER)', 'INTERVAL', 'TIMESTAMP', 'BOOLEAN', 'DOUBLEX', 'XINT', 'DECIMAL18'];
    for (const type of numeric) expect(cellLine(type), type).toBe(aligned(type, true));
    for (const type of texts) expect(cellLine(type), type).toBe(aligned(type, false));
  });

  it('fits a terminal: the text column gives up exactly the room missing, numbers stay whole', () => {
    const columns = [col('id', 'BIGINT'), col('title', 'VARCHAR')];
    const rows = [['1000000000000000568', 'x'.repeat(30)]];
    // Natural widths 19 and 30 with a frame of 7: 56 columns.
    expect(formatTable(columns, rows, 56).split('\n')[4]).toBe(`│ 1000000000000000568 │ ${'x'.repeat(30)} │`);
    expect(formatTable(columns, rows, 55).split('\n')[4]).toBe(`│ 1000000000000000568 │ ${'x'.repeat(28)}… │`);
    const narrow = formatTable(columns, rows, 40).split('\n');
    expect(narrow[1]).toBe(`│                  id │ title${' '.repeat(9)} │`);
    expect(narrow[4]).toBe(`│ 1000000000000000568 │ ${'x'.repeat(13)}… │`);
    expect(narrow.slice(0, -1).map((line) => [...line].length)).toEqual(Array(6).fill(40));
  });

  it('takes room from the widest text column first, the first of equals', () => {
    const columns = [col('a', 'VARCHAR'), col('b', 'VARCHAR')];
    const rows = [['x'.repeat(30), 'y'.repeat(20)]];
    // 57 columns wide by nature; 11 too many: 10 from a (down to b's 20), then one more from a.
    expect(formatTable(columns, rows, 46).split('\n')[4]).toBe(`│ ${'x'.repeat(18)}… │ ${'y'.repeat(20)} │`);
    // 12 too many: then one from b.
    expect(formatTable(columns, rows, 45).split('\n')[4]).toBe(`│ ${'x'.repeat(18)}… │ ${'y'.repeat(18)}… │`);
  });

  it('cuts no text below 12 characters: a table that would need it does not fit, and is laid out 12 wide', () => {
    const columns = [col('id', 'BIGINT'), col('title', 'VARCHAR')];
    const rows = [['7', 'x'.repeat(30)]];
    // 6 + 12 + a frame of 7 = 25.
    expect(tableFits(columns, rows, 25)).toBe(true);
    expect(tableFits(columns, rows, 24)).toBe(false);
    expect(tableFits(columns, rows, undefined)).toBe(true);
    expect(formatTable(columns, rows, 25).split('\n')[4]).toBe(`│      7 │ ${'x'.repeat(11)}… │`);
    expect(formatTable(columns, rows, 10).split('\n')[4]).toBe(`│      7 │ ${'x'.repeat(11)}… │`);
    // A text column narrower than 12 by nature keeps its width, and no number is cut.
    const numbers = [col('id', 'BIGINT'), col('s', 'VARCHAR')];
    expect(tableFits(numbers, [['1000000000000000568', 'short']], 10)).toBe(false);
    expect(formatTable(numbers, [['1000000000000000568', 'short']], 10).split('\n')[4]).toBe('│ 1000000000000000568 │ short   │');
  });

  it('shows a text cell 80 characters wide at most, a number whole, line breaks as spaces', () => {
    const text = formatTable([col('t', 'VARCHAR'), col('n', 'HUGEINT')], [['z'.repeat(100), '9'.repeat(90)], ['a\nb\tc\rd', '1']], undefined).split('\n');
    expect(text[4]).toBe(`│ ${'z'.repeat(79)}… │ ${'9'.repeat(90)} │`);
    expect(text[5]).toBe(`│ a b c d${' '.repeat(73)} │ ${' '.repeat(89)}1 │`);
  });

  it('keeps the frame whole when a column name holds a line break, numeric columns too', () => {
    const text = formatTable([col('a\nb', 'BIGINT'), col('c\td', 'VARCHAR')], [['1', 'x']], undefined).split('\n');
    expect(text).toEqual(['┌────────┬─────────┐', '│    a b │ c d     │', '│ bigint │ varchar │', '├────────┼─────────┤', '│      1 │ x       │', '└────────┴─────────┘', '']);
  });
});

describe('the formats', () => {
  it('are those the command line and the shell offer (docs/command-line.md)', () => {
    expect(RESULT_FORMATS).toEqual(['table', 'line', 'csv', 'json', 'ndjson', 'markdown']);
  });
});

describe('one value a line', () => {
  it('heads each row with its number, pads the names, shows line breaks as ↵ and NULL', () => {
    const text = formatLines([col('id', 'BIGINT'), col('description', 'VARCHAR')], [['1', 'a\r\nb\nc\rd\te'], ['2', null], ['3']]);
    expect(text).toBe(
      [
        '-[ RECORD 1 ]---',
        'id          │ 1',
        'description │ a↵b↵c↵d e',
        '-[ RECORD 2 ]---',
        'id          │ 2',
        'description │ NULL',
        '-[ RECORD 3 ]---',
        'id          │ 3',
        'description │ NULL',
        '',
      ].join('\n'),
    );
  });

  it('numbers rows from `first`, widens the heading with long names, and says when there are none', () => {
    const name = 'a_much_longer_name';
    expect(formatLines([col(name, 'INTEGER')], [[1], [2]], 41)).toBe(`-[ RECORD 41 ]${'-'.repeat(10)}\n${name} │ 1\n-[ RECORD 42 ]${'-'.repeat(10)}\n${name} │ 2\n`);
    expect(formatLines([col(name, 'INTEGER')], [])).toBe('(no rows)\n');
    expect(formatLines([], [[]])).toBe('-[ RECORD 1 ]---\n');
  });

  it('shows a value whole up to 2,000 characters, and says how many more there are', () => {
    expect(formatLines([col('v', 'VARCHAR')], [['q'.repeat(2000)]])).toBe(`-[ RECORD 1 ]---\nv │ ${'q'.repeat(2000)}\n`);
    expect(formatLines([col('v', 'VARCHAR')], [['q'.repeat(2003)]])).toBe(`-[ RECORD 1 ]---\nv │ ${'q'.repeat(2000)}… (3 more characters)\n`);
  });
});

describe('Markdown, CSV and NDJSON', () => {
  it('Markdown: pipes escaped, line breaks as spaces, NULL', () => {
    expect(formatMarkdown([col('a|b', 'VARCHAR'), col('n', 'INTEGER')], [['x | y', null], ['one\r\ntwo\nthree', 3]])).toBe('| a\\|b | n |\n|---|---|\n| x \\| y | NULL |\n| one two three | 3 |\n');
  });

  it('CSV: a header line and rows with CRLF, quotes doubled, formulas neutralised unless raw, NULL empty', () => {
    const columns = [col('the "text"', 'VARCHAR'), col('=n', 'INTEGER')];
    expect(csvHeaderLine(columns)).toBe(`"the ""text""",'=n\r\n`);
    expect(csvHeaderLine(columns, 'raw')).toBe(`"the ""text""",=n\r\n`);
    const rows = [['a,b', 1], ['-x', null], [true, -2]];
    expect(csvLines(rows)).toBe(`"a,b",1\r\n'-x,\r\ntrue,-2\r\n`);
    expect(csvLines(rows, 'raw')).toBe(`"a,b",1\r\n-x,\r\ntrue,-2\r\n`);
    expect(csvLines([])).toBe('');
  });

  it('NDJSON: one object a line, a missing value null', () => {
    expect(ndjsonLines([col('a', 'BIGINT'), col('b', 'VARCHAR')], [['1', 'x'], ['2']])).toBe('{"a":"1","b":"x"}\n{"a":"2","b":null}\n');
  });
});
