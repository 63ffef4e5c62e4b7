/**
 * The in-process SQL engine the `sql_query` tool runs on, as the SQL engine's contract describes
 * it (a per-storage object of `src/sql/`): a read-only query with a row limit, rows already
 * converted (64-bit integers as decimal strings, times as ISO-8601 text), and the schema. The MCP
 * server does not build one: whoever starts it hands over a way to find a storage's engine.
 */

export interface SqlColumn {
  readonly name: string;
  /** DuckDB's type text (`BIGINT`, `VARCHAR`, ...). */
  readonly type: string;
}

export interface SqlResult {
  readonly columns: readonly SqlColumn[];
  readonly rows: readonly (readonly unknown[])[];
  /** Rows returned. */
  readonly rowCount: number;
  /** More rows existed than the limit. */
  readonly truncated: boolean;
  readonly elapsedMs: number;
}

export interface SqlSchemaTable {
  readonly name: string;
  readonly alias: string | null;
  readonly kind: 'type' | 'system';
  readonly typeName: string | null;
  readonly typeIds: readonly string[];
  readonly columns: readonly { readonly name: string; readonly type: string; readonly objectId: boolean }[];
}

export interface SqlEngine {
  query(sql: string, options: { readonly limit: number; readonly signal?: AbortSignal }): Promise<SqlResult>;
  schema(): Promise<{ readonly tables: readonly SqlSchemaTable[] }>;
}
