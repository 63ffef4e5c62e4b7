import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { servedCorpusForExports } from '../../helpers/serving/served-corpus-for-exports.js';
import { memoryDuck } from '../memory-duck.js';

/**
 * `_objects` written as Parquet straight from its pass's rows (an export that keeps no tables,
 * built-tables.ts `copyObjects`) while a statement on the same engine fills the table: both
 * passes make the same helper tables, so they must not run at once. They did: the statement
 * failed with DuckDB's catalog write-write conflict, or the file held every row several times.
 */

const memory = memoryDuck();
const served = servedCorpusForExports('objects-copy-beside-statement-');

async function fileRows(file: string): Promise<[number, string]> {
  const [rows, hash] = (await memory.connection.runAndReadAll(`SELECT count(*), sum(hash(t::VARCHAR)::HUGEINT)::VARCHAR FROM read_parquet('${file}') t`)).getRows()[0]!;
  return [Number(rows), String(hash)];
}

describe('_objects copied straight into a file while a statement fills it', () => {
  it('answers the statement and writes every row once', { timeout: 120_000 }, async () => {
    for (let round = 0; round < 3; round++) {
      const engine = new SqlEngine({ storage: served.registered.storage, graph: () => served.registered.context.graph.ready(), allowFiles: true, everyValueFirst: true, timeoutMs: 0 });
      try {
        await engine.schema();
        const direct = join(served.base, `direct-${round}.parquet`);
        const [copied, answer] = await Promise.all([engine.copyObjectsToParquet(direct), engine.query('SELECT count(*) FROM _objects', { limit: 1 })]);
        const counted = Number(answer.rows[0]![0]);
        // The same rows as the table the statement filled, written by DuckDB from it.
        const fromTable = join(served.base, `table-${round}.parquet`);
        expect(await engine.copyToParquet('_objects', fromTable)).toBe(counted);
        expect(counted).toBeGreaterThan(1000);
        expect(copied).toBe(counted);
        expect(await fileRows(direct)).toEqual(await fileRows(fromTable));
      } finally {
        await engine.close();
      }
    }
  });
});
