/**
 * The shapes of `/api/v1/sql` answers and SQL quoting: no DOM, no fetch (also used by the unit
 * tests of the SQL the grids build).
 */

export interface SqlColumn {
  readonly name: string;
  /** DuckDB type text: BIGINT, VARCHAR, TIMESTAMP, ... */
  readonly type: string;
}

export type SqlValue = string | number | boolean | null;

export interface SqlResult {
  readonly columns: readonly SqlColumn[];
  readonly rows: readonly (readonly SqlValue[])[];
  readonly rowCount: number;
  readonly truncated: boolean;
  readonly elapsedMs: number;
}

export interface SqlTable {
  readonly name: string;
  readonly alias: string | null;
  readonly kind: 'type' | 'system';
  readonly typeName: string | null;
  readonly typeIds: readonly string[];
  readonly columns: readonly (SqlColumn & { readonly objectId: boolean })[];
}

/** `"com.acme.Customer"`: a name as an SQL identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A text as an SQL string literal. */
export function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * Columns that hold object ids in this storage's tables (by name): a result column carries only
 * its name, so a name counts when some table holds ids under it and no table holds plain
 * integers under it (`value` is an id in `java.util.Optional` but a number in `java.lang.Long`).
 */
export function objectIdColumns(tables: readonly SqlTable[]): Set<string> {
  const ids = new Set<string>();
  const numbers = new Set<string>();
  for (const t of tables) {
    for (const c of t.columns) {
      if (c.objectId) ids.add(c.name);
      else if (/INT/.test(c.type)) numbers.add(c.name);
    }
  }
  for (const name of numbers) ids.delete(name);
  return ids;
}
