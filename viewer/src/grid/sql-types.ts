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
 * its name and type, so a name counts when some table holds ids under it and no table holds plain
 * integers under it (`value` is an id in `java.util.Optional` but a number in `java.lang.Long`).
 * A name alone can mislead (`count(*) AS orders`): a result column also has to hold ids, see
 * `holdsObjectIds`.
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

/** Object and constant ids as MicroStream hands them out (src/format/ids.ts): 1e18 + 1 up to the constants' end. */
const FIRST_OBJECT_ID = 1_000_000_000_000_000_001n;
const END_OF_IDS = 9_100_000_000_000_000_000n;

/**
 * Whether a result column's values are object ids: BIGINTs arrive as decimal strings, and every
 * one that is not null lies in the id range. A count, a sum or a type id never does; a `long` of
 * epoch nanoseconds does, which is why the column's name must be an id column's as well.
 */
export function holdsObjectIds(values: Iterable<SqlValue>): boolean {
  let any = false;
  for (const value of values) {
    if (value === null) continue;
    if (typeof value !== 'string' || !/^[0-9]{19}$/.test(value)) return false;
    const id = BigInt(value);
    if (id < FIRST_OBJECT_ID || id >= END_OF_IDS) return false;
    any = true;
  }
  return any;
}
