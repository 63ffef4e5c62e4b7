import { afterAll, beforeAll } from 'vitest';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { loadDuck, type DuckModule } from '../../src/sql/duck-module.js';

/** An in-memory DuckDB and a connection to it for the tests of one file, opened before them and closed after. */
export function memoryDuck(): { readonly duck: DuckModule; readonly connection: DuckDBConnection } {
  let duck: DuckModule | undefined;
  let instance: DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  beforeAll(async () => {
    duck = await loadDuck();
    instance = await duck.DuckDBInstance.create(':memory:');
    connection = await instance.connect();
  });
  afterAll(() => {
    connection?.closeSync();
    instance?.closeSync();
  });
  return {
    get duck() {
      return duck!;
    },
    get connection() {
      return connection!;
    },
  };
}
