import type { DuckDBConnection } from '@duckdb/node-api';
import { readableTypeName } from '../inspect/type-names.js';
import type { Storage } from '../storage/storage.js';
import { checkStatement } from './sandbox/sandbox.js';
import type { StatementHint } from './fills/prestaged-types.js';
import { simpleNameOf } from './tables/column-model.js';
import { SYSTEM_TABLE_NAMES } from './tables/finish-tables.js';

/**
 * What a statement names (its tables, the names it may read columns by), from DuckDB's parse
 * before a build has made any table: for the build to stage those types' rows as it goes
 * (fills/prestaged-types.ts). Every name a table of the storage may have is allowed here; the
 * statement is checked for real against the built tables before anything runs (sql-engine.ts),
 * and whatever the hint got wrong only costs rows that are not taken. Undefined when the check
 * refuses it (it will be refused again, and told, by the real one).
 */
export async function statementHint(connection: DuckDBConnection, storage: Storage, sql: string): Promise<StatementHint | undefined> {
  const own = new Set(SYSTEM_TABLE_NAMES);
  for (const entry of storage.dictionary.entries) {
    own.add(entry.typeName.toLowerCase());
    own.add(simpleNameOf(entry.typeName).toLowerCase());
    own.add(readableTypeName(entry.typeName).toLowerCase());
  }
  try {
    const checked = await checkStatement(connection, sql, { own, reserved: new Set() });
    return { tables: checked.tables, columns: checked.columns };
  } catch {
    return undefined;
  }
}
