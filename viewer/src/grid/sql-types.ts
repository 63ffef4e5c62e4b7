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
