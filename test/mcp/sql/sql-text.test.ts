import { describe, expect, it } from 'vitest';
import { sqlText } from '../../../src/mcp/tools/sql-tool.js';

/** The text of `sql_query` answers: a header, a line per row, cells cut, the truncation marker. */

describe('the text of an SQL answer', () => {
  it('lists columns with their types, rows with cells cut, and says when rows were left out', () => {
    const text = sqlText(
      {
        columns: [
          { name: '_oid', type: 'BIGINT' },
          { name: 'name', type: 'VARCHAR' },
          { name: 'score', type: 'DOUBLE' },
        ],
        rows: [
          ['1000000000000000568', 'Ahlers | Lena', 1.5],
          ['1000000000000000576', 'y'.repeat(500), null],
        ],
        rowCount: 2,
        truncated: true,
        elapsedMs: 3,
      },
      2,
    );
    const lines = text.split('\n');
    expect(lines[0]).toBe('_oid BIGINT | name VARCHAR | score DOUBLE');
    expect(lines[1]).toBe('1000000000000000568 | Ahlers \\| Lena | 1.5');
    expect(lines[2]).toMatch(/^1000000000000000576 \| y{80}… \(500 chars\) \| NULL$/);
    expect(lines[3]).toBe('2 row(s) in 3 ms');
    expect(lines[4]).toMatch(/^truncated: more rows than the limit of 2/);
  });
});
