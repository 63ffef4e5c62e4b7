import { describe, expect, it } from 'vitest';
import { graphEngines } from './graph-engines.js';

/**
 * Limits of a statement, each guarded by a test that names it (issue 48's list): a result of
 * exactly `limit` rows is whole, not truncated; one row more is; the statement timeout is
 * started for every statement and interrupts it (the test's own timeout is far beyond the
 * statement's, so a timer never started fails here, not by vitest's timeout).
 */

const engine = graphEngines();

describe('the row limit of a buffered answer', () => {
  it('marks an answer truncated only when more rows existed than the limit', async () => {
    const e = engine();
    const exact = await e.query('SELECT * FROM range(5)', { limit: 5 });
    expect(exact).toMatchObject({ rowCount: 5, truncated: false });
    const more = await e.query('SELECT * FROM range(6)', { limit: 5 });
    expect(more).toMatchObject({ rowCount: 5, truncated: true });
    expect(more.rows.map((r) => r[0])).toEqual(['0', '1', '2', '3', '4']);
    // Across DuckDB's chunks of 2,048 rows.
    expect(await e.query('SELECT * FROM range(4096)', { limit: 4096 })).toMatchObject({ rowCount: 4096, truncated: false });
    expect(await e.query('SELECT * FROM range(4097)', { limit: 4096 })).toMatchObject({ rowCount: 4096, truncated: true });
  });
});

describe('the statement timeout', () => {
  it('interrupts a statement that would run for hours, and the next one runs', { timeout: 120_000 }, async () => {
    const e = engine({ timeoutMs: 300 });
    await expect(e.query('SELECT count(*) FROM range(1000000000000) a', { limit: 1 })).rejects.toMatchObject({ kind: 'timeout', message: expect.stringMatching(/interrupted after the SQL timeout of 300 ms/) });
    await expect(
      e.stream('SELECT count(*) FROM range(1000000000000) a', undefined, () => undefined, async () => undefined),
    ).rejects.toMatchObject({ kind: 'timeout' });
    expect((await e.query('SELECT 1', { limit: 1 })).rows).toEqual([[1]]);
  });
});
