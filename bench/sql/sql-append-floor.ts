/**
 * The floor under the SQL table build: the same number of rows, of the same column types, appended
 * to a fresh DuckDB database file through the same chunk appender by one thread, from values that
 * cost nothing to make (numbers from the row number, a few short texts), then committed and
 * checkpointed. What DuckDB alone spends to take the tables in; the build cannot be faster than
 * this however little its decoding costs. Its values compress better than a storage's, so it is a
 * lower bound.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FloorTable {
  readonly name: string;
  /** DuckDB's type names of its columns (`BIGINT`, `VARCHAR`, `DECIMAL(18,2)`, ...). */
  readonly types: readonly string[];
  readonly rows: number;
}

const TEXTS = ['Berger', 'Lindqvist', 'a', 'tag-7', 'elements', '42', '-17', 'true'];

/** The column type the floor appends for a table's type: DECIMALs as the 64-bit integers DuckDB keeps them in (up to 18 digits). */
function floorType(type: string): string {
  if (type.startsWith('DECIMAL')) return 'BIGINT';
  return ['BIGINT', 'INTEGER', 'SMALLINT', 'TINYINT', 'BOOLEAN', 'DOUBLE', 'FLOAT', 'TIMESTAMP', 'DATE', 'TIME', 'BLOB', 'VARCHAR'].includes(type) ? type : 'VARCHAR';
}

/** Milliseconds to append, commit and checkpoint `tables` (the built code at `from`). */
export async function appendFloorMs(from: string, tables: readonly FloorTable[]): Promise<number> {
  const { loadDuck } = (await import(`${from}/sql/duck-module.js`)) as typeof import('../../src/sql/duck-module.js');
  const { ChunkAppender } = (await import(`${from}/sql/tables/chunk-appender.js`)) as typeof import('../../src/sql/tables/chunk-appender.js');
  const duck = await loadDuck();
  const dir = mkdtempSync(join(tmpdir(), 'sql-floor-'));
  const instance = await duck.DuckDBInstance.create(join(dir, 'floor.duckdb'), { memory_limit: '1024MB', allocator_background_threads: 'true' });
  const connection = await instance.connect();
  try {
    const started = performance.now();
    await connection.run('BEGIN TRANSACTION');
    for (const [t, table] of tables.entries()) {
      const types = table.types.map(floorType);
      await connection.run(`CREATE TABLE t${t} (${types.map((type, c) => `c${c} ${type}`).join(', ')})`);
      const appender = new ChunkAppender(duck, await connection.createAppender(`t${t}`));
      const blob = new Uint8Array([1, 2, 3]);
      for (let row = 0; row < table.rows; row++) {
        for (const type of types) {
          switch (type) {
            case 'BIGINT':
              appender.appendBigIntNumber(1_000_000 + row);
              break;
            case 'TIMESTAMP':
            case 'TIME':
              appender.appendBigIntNumber(row * 1000);
              break;
            case 'INTEGER':
            case 'DATE':
              appender.appendInteger(row & 0xffff);
              break;
            case 'SMALLINT':
              appender.appendSmallInt(row & 0x7fff);
              break;
            case 'TINYINT':
              appender.appendTinyInt(row & 0x7f);
              break;
            case 'BOOLEAN':
              appender.appendBoolean((row & 1) === 0);
              break;
            case 'DOUBLE':
              appender.appendDouble(row / 8);
              break;
            case 'FLOAT':
              appender.appendFloat(row / 8);
              break;
            case 'BLOB':
              appender.appendBlob(blob);
              break;
            default:
              appender.appendVarchar(TEXTS[row & 7]!);
          }
        }
        appender.endRow();
      }
      appender.closeSync();
    }
    await connection.run('COMMIT');
    await connection.run('CHECKPOINT');
    return performance.now() - started;
  } finally {
    connection.closeSync();
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}
