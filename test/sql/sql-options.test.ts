import { describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../src/cli/commands/serve.js';
import { parseSqlArgs } from '../../src/cli/commands/sql.js';
import { runCliInProcess } from '../helpers/serving/cli-in-process.js';

/** The SQL options of `serve` and `sql`: checked before anything starts, non-finite values too. */

describe('SQL options', () => {
  it('are on by default, off with --no-sql, and take their limits', () => {
    expect(parseServeArgs(['dir'])).not.toHaveProperty('sql');
    expect(parseServeArgs(['dir', '--no-sql'])).toMatchObject({ sql: false });
    expect(parseServeArgs(['dir', '--sql-timeout', '5000', '--sql-memory-limit', String(256 * 1024 * 1024), '--sql-max-concurrent', '2'])).toMatchObject({
      sql: { timeoutMs: 5000, memoryLimitBytes: 256 * 1024 * 1024, maxConcurrent: 2 },
    });
    expect(parseServeArgs(['dir', '--sql-stall-timeout', '2500'])).toMatchObject({ sql: { streamStallMs: 2500 } });
    expect(parseServeArgs(['dir', '--sql-stall-timeout', '0'])).toMatchObject({ sql: { streamStallMs: 0 } });
  });

  it.each([
    ['--sql-timeout', '-1'],
    ['--sql-timeout', 'Infinity'],
    ['--sql-timeout', 'NaN'],
    ['--sql-timeout', '1e3'],
    ['--sql-memory-limit', '1024'],
    ['--sql-memory-limit', '1e99'],
    ['--sql-max-concurrent', '0'],
    ['--sql-stall-timeout', '-1'],
    ['--sql-stall-timeout', 'Infinity'],
    ['--sql-stall-timeout', '86400001'],
  ])('refuse %s %s', (flag, value) => {
    expect(() => parseServeArgs(['dir', flag, value])).toThrow();
  });

  it('of the sql command: the statement as an argument or from --file, not both', async () => {
    expect(await parseSqlArgs(['dir', 'SELECT 1'])).toMatchObject({ directory: 'dir', query: 'SELECT 1', format: 'table' });
    expect(await parseSqlArgs(['dir'])).toMatchObject({ query: undefined });
    await expect(parseSqlArgs(['dir', 'SELECT 1', '--file', 'q.sql'])).rejects.toThrow(/not both/);
    await expect(parseSqlArgs(['dir', 'SELECT 1', 'extra'])).rejects.toThrow(/too many arguments/);
    await expect(parseSqlArgs(['dir', '   '])).rejects.toThrow(/empty/);
    const { code, stderr } = await runCliInProcess(['sql', 'dir', 'SELECT 1', '--format', 'xml']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/xml/);
  });
});
