import { describe, expect, it } from 'vitest';
import { ByteBudget } from '../../../src/sql/answers/answer-budget.js';
import { rowSizes } from '../../../src/sql/answers/cell-bytes.js';
import { memoryDuck } from '../memory-duck.js';
import { graphEngines } from '../graph-engines.js';

/**
 * The bytes of SQL answers (issue 40.4): a row over its limit and a buffered answer over its
 * limit stop the statement with the limit named, streamed answers are bounded per row only,
 * every answer draws from one process-wide budget, and sizes are read from DuckDB's vectors
 * before any value is copied out.
 */

const engine = graphEngines();
const duck = memoryDuck();

describe('answer bytes', () => {
  it('stops a statement whose row is over the row limit, naming the limit', async () => {
    const e = engine({ maxRowBytes: 4096 });
    await expect(e.query("SELECT string_agg('x', '') FROM range(5000)", { limit: 10 })).rejects.toMatchObject({ kind: 'too-large', message: expect.stringMatching(/row 1 .* over the limit of 4096 bytes per row/) });
    // A row under the limit is answered whole.
    const small = await e.query("SELECT string_agg('x', '') FROM range(4000)", { limit: 10 });
    expect(String(small.rows[0]![0])).toHaveLength(4000);
  });

  it('stops a buffered answer over the answer limit, and streams the same rows', async () => {
    const e = engine({ maxAnswerBytes: 64 * 1024 });
    const statement = "SELECT 'value number ' || i FROM range(10000) t(i)";
    await expect(e.query(statement, { limit: 10_000 })).rejects.toMatchObject({ kind: 'too-large', message: expect.stringMatching(/more than 64 KiB|more than 65536 bytes/) });
    let rows = 0;
    await e.stream(statement, undefined, () => undefined, async (chunk) => {
      rows += chunk.length;
    });
    expect(rows).toBe(10_000);
  });

  it('refuses as busy while the process budget is spent, and gives every byte back', async () => {
    const budget = new ByteBudget(100_000);
    const e = engine({ answerBudget: budget });
    expect(budget.take(100_000)).toBe(true);
    await expect(e.query("SELECT 'x' || i FROM range(10) t(i)", { limit: 100 })).rejects.toMatchObject({ kind: 'busy' });
    budget.give(100_000);
    const answer = await e.query("SELECT 'x' || i FROM range(10) t(i)", { limit: 100 });
    expect(answer.rows).toHaveLength(10);
    expect(budget.inUse).toBe(0);
    // A streamed answer holds its slice until the reader has taken it, then hands it back.
    let seen = 0;
    await e.stream("SELECT 'y' || i FROM range(5000) t(i)", undefined, () => undefined, async () => {
      seen = Math.max(seen, budget.inUse);
    });
    expect(seen).toBeGreaterThan(0);
    expect(budget.inUse).toBe(0);
  });
});

describe('row sizes read from the vectors', () => {
  it('measure texts, blobs, lists, structs and maps without copying them out', async () => {
    const result = await duck.connection.run(
        "SELECT repeat('a', 1000) AS t, NULL::VARCHAR AS n, [repeat('b', 100), repeat('c', 200)] AS l, {'k': repeat('d', 300)} AS s, MAP {'x': repeat('e', 50)} AS m, 'xyz'::BLOB AS b, 42::BIGINT AS i FROM range(3)",
      );
      const chunk = (await result.fetchChunk())!;
      const sizes = rowSizes(chunk);
      expect(sizes).toHaveLength(3);
      for (const size of sizes) {
        // 1000 + 100 + 200 + 300 + 50 characters of text, 3 bytes of blob, one number, plus quoting.
        expect(size).toBeGreaterThanOrEqual(1650 + 3 + 8);
        expect(size).toBeLessThan(1650 + 400);
      }
  });
});
