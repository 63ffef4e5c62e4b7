import type { DuckDBConnection } from '@duckdb/node-api';
import { ALLOWED_FUNCTIONS, ALLOWED_TABLE_FUNCTIONS } from './allowed-functions.js';
import { SqlError } from './sql-error.js';

/**
 * Decides whether a user's statement may run, from DuckDB's own parse of it (its JSON form,
 * `json_serialize_sql`: the parser only, nothing bound or run), never from the text:
 *
 * 1. exactly one statement, and a SELECT (DESCRIBE, SHOW, SUMMARIZE, WITH, FROM-first, VALUES
 *    and a PIVOT inside FROM parse as one; a PIVOT statement does not); `EXPLAIN [ANALYZE]` only
 *    as the first word(s) of the text, followed by such a SELECT, and run as a prefix of our own;
 * 2. every function it calls on the allow-list (allowed-functions.ts), table functions on their
 *    own shorter one;
 * 3. every table it reads one of the storage's tables (or a CTE of its own that shadows no
 *    system view), nothing qualified by another catalog, no file name;
 * 4. no parameters.
 *
 * What then runs is that same text, prepared by DuckDB (which must again find one SELECT or the
 * EXPLAIN we made), inside a read-only transaction (sql-engine.ts): a write the checks missed
 * still fails there, and `enable_external_access=false` with a locked configuration stays
 * underneath (sandbox.ts). Each layer is tested on its own (test/security/sql-layers.test.ts).
 */

export interface AllowedTables {
  /** The storage's tables and views, lower case. */
  readonly own: ReadonlySet<string>;
  /** Names of tables and views of other catalogs (system views): a CTE may not take one. */
  readonly reserved: ReadonlySet<string>;
}

export interface CheckedStatement {
  /** What is prepared and run. */
  readonly text: string;
  /** 'explain': the text is `EXPLAIN [ANALYZE] ` + the user's SELECT. */
  readonly kind: 'select' | 'explain';
  /** Characters our EXPLAIN prefix added before the user's SELECT, minus those of the user's own (error positions). */
  readonly shift: number;
  /** The storage's tables it reads (lower case). */
  readonly tables: ReadonlySet<string>;
  /**
   * Every name it may read a column by (lower case: each part of each column reference, USING
   * columns), or undefined when it may read every column of a table (`*`, `COLUMNS(...)`, a
   * positional reference, a NATURAL join, renamed columns, a table's whole row by its name):
   * a type table's value members outside it need not be filled for it (built-tables.ts).
   */
  readonly columns?: ReadonlySet<string> | undefined;
}

/** `EXPLAIN`, `EXPLAIN ANALYZE` or `EXPLAIN (ANALYZE)` as the first words, with plain white space only. */
const EXPLAIN_PREFIX = /^[ \t\r\n]*EXPLAIN(?:[ \t\r\n]+(ANALY[SZ]E)|[ \t\r\n]*\([ \t\r\n]*(ANALY[SZ]E)[ \t\r\n]*\))?[ \t\r\n]+(?=\S)/i;

/** Expression classes of DuckDB's parse tree a statement may hold. */
const EXPRESSION_CLASSES = new Set([
  'BETWEEN', 'CASE', 'CAST', 'COLLATE', 'COLUMN_REF', 'COMPARISON', 'CONJUNCTION', 'CONSTANT', 'DEFAULT', 'FUNCTION', 'LAMBDA', 'LAMBDA_REF', 'OPERATOR',
  'POSITIONAL_REFERENCE', 'STAR', 'SUBQUERY', 'WINDOW',
]);

/** Query nodes and table references (by their `type`). */
const NODE_TYPES = new Set(['SELECT_NODE', 'SET_OPERATION_NODE', 'RECURSIVE_CTE_NODE', 'CTE_NODE']);
const TABLE_REF_TYPES = new Set(['BASE_TABLE', 'SUBQUERY', 'JOIN', 'TABLE_FUNCTION', 'EXPRESSION_LIST', 'EMPTY', 'EMPTY_FROM', 'PIVOT', 'SHOW_REF']);

/**
 * Joins that compare only the columns they name (ON, USING, ASOF) or none (CROSS, POSITIONAL);
 * a NATURAL join compares every column the two sides share, and a kind not listed counts as one.
 */
const NAMED_JOINS = new Set(['REGULAR', 'CROSS', 'ASOF', 'POSITIONAL']);

/** The few catalog views a user may read: which tables and columns there are. */
const CATALOG_VIEWS = new Set(['information_schema.tables', 'information_schema.columns']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Found {
  readonly tables: Set<string>;
  readonly ctes: Set<string>;
  /** `described`: named only inside a DESCRIBE, which binds its query and runs none of it (nothing filled for it). */
  readonly refs: { name: string; schema: string; catalog: string; location: number; described: boolean }[];
  /** Parts of column references and USING columns, lower case. */
  readonly columns: Set<string>;
  /** Each column reference's parts, lower case (`b` in `SELECT b FROM Book b` is Book's whole row). */
  readonly references: string[][];
  /** Table names and aliases (a column reference ending in one may read the whole row). */
  readonly relations: Set<string>;
  /** Something reads every column (see CheckedStatement.columns). */
  everyColumn: boolean;
}

export async function checkStatement(connection: DuckDBConnection, sql: string, allowed: AllowedTables): Promise<CheckedStatement> {
  let select = sql;
  let kind: CheckedStatement['kind'] = 'select';
  let prefix = '';
  const explain = EXPLAIN_PREFIX.exec(sql);
  if (explain !== null) {
    kind = 'explain';
    select = sql.slice(explain[0].length);
    prefix = explain[1] !== undefined || explain[2] !== undefined ? 'EXPLAIN ANALYZE ' : 'EXPLAIN ';
  }
  const tree = await parse(connection, select, kind === 'explain');
  const found: Found = { tables: new Set(), ctes: new Set(), refs: [], columns: new Set(), references: [], relations: new Set(), everyColumn: false };
  // DuckDB's locations count UTF-8 bytes of what it parsed; positions count characters of the user's text.
  const position = (location: number): number | undefined =>
    Number.isSafeInteger(location) && location >= 0 && location <= select.length * 4 ? sql.length - select.length + Buffer.from(select).subarray(0, location).toString().length : undefined;
  try {
    walk(tree, found, false, false);
  } catch (error) {
    if (error instanceof Located) throw new SqlError(error.kind, error.message, position(error.location));
    throw error;
  }
  for (const ref of found.refs) {
    const name = ref.name.toLowerCase();
    const schema = ref.schema.toLowerCase();
    const catalog = ref.catalog.toLowerCase();
    if (catalog === '' && CATALOG_VIEWS.has(`${schema}.${name}`)) continue;
    const ownSchema = schema === '' || schema === 'main';
    if (catalog === '' && ownSchema && allowed.own.has(name)) {
      if (!ref.described) found.tables.add(name);
      continue;
    }
    if (catalog === '' && schema === '' && found.ctes.has(name) && !allowed.reserved.has(name)) continue;
    throw new SqlError('refused', `${quoted(ref)} is not one of the storage's tables; only they are read here (GET /api/v1/sql/schema lists them)`, position(ref.location));
  }
  const columns = found.everyColumn || (await readsWholeRow(connection, found)) ? undefined : found.columns;
  return { text: kind === 'explain' ? prefix + select : sql, kind, shift: prefix.length - (sql.length - select.length), tables: found.tables, columns };
}

async function parse(connection: DuckDBConnection, sql: string, explained: boolean): Promise<Json> {
  const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [sql]);
  const parsed = JSON.parse(String(reader.getRows()[0]![0])) as { error: boolean; error_type?: string; error_message?: string; statements?: Json[] };
  if (parsed.error) {
    if (parsed.error_type === 'not implemented') {
      throw new SqlError(
        'refused',
        explained
          ? 'EXPLAIN is followed by one read-only query here (SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE)'
          : 'only read-only statements are run (SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE, and EXPLAIN [ANALYZE] as the first word of one); this one is not',
      );
    }
    throw new SqlError('invalid', parsed.error_message ?? 'the statement does not parse');
  }
  const statements = parsed.statements ?? [];
  if (statements.length === 0) throw new SqlError('invalid', 'no statement given');
  if (statements.length > 1) throw new SqlError('refused', `one statement per request, ${statements.length} given`);
  return statements[0]!;
}

/**
 * Collects table references and CTE names; refuses functions, node kinds and parameters not
 * allowed. `described`: inside a DESCRIBE, whose query DuckDB binds but does not run (the columns
 * and types of a table are there before its rows): its tables are checked, not filled.
 */
function walk(node: Json, found: Found, tableFunction: boolean, described: boolean): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, found, false, described);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const cls = node.class;
  const type = node.type;
  const location = typeof node.query_location === 'number' ? node.query_location : -1;
  if (typeof cls === 'string') {
    if (cls === 'PARAMETER') throw new Located('invalid', 'the statement has parameters ($1, ?); write the values into it', location);
    if (!EXPRESSION_CLASSES.has(cls)) throw new Located('refused', `${cls.toLowerCase().replaceAll('_', ' ')} expressions are not allowed here`, location);
  } else if (typeof type === 'string' && ('sample' in node || 'modifiers' in node)) {
    if (!NODE_TYPES.has(type) && !TABLE_REF_TYPES.has(type)) throw new Located('refused', `${type.toLowerCase().replaceAll('_', ' ')} is not allowed here`, location);
  }
  if (typeof node.function_name === 'string') checkFunction(node, tableFunction, location);
  if (!described) noteColumns(node, found);
  if (type === 'BASE_TABLE' && typeof node.table_name === 'string') {
    found.refs.push({ name: node.table_name, schema: String(node.schema_name ?? ''), catalog: String(node.catalog_name ?? ''), location, described });
  }
  const describing = described || (type === 'SHOW_REF' && node.show_type === 'DESCRIBE');
  // SHOW and DESCRIBE of a table hold it as a query (`SELECT * FROM t`, a BASE_TABLE above); a
  // SHOW_REF's own name is DuckDB's for SHOW TABLES / SHOW ALL TABLES, lists of the catalog.
  // Every CTE, recursive ones too, is in its query node's map.
  const ctes = (node.cte_map as { map?: { key: string }[] } | null | undefined)?.map ?? [];
  for (const entry of ctes) found.ctes.add(entry.key.toLowerCase());
  for (const [key, value] of Object.entries(node)) {
    walk(value, found, type === 'TABLE_FUNCTION' && key === 'function', describing);
  }
}

/**
 * Whether a column reference may be a table's whole row: one whose last part names a table of the
 * statement (`b` in `SELECT b FROM Book b`, `main.Book`), unless its first part is a table of the
 * statement too (`b.author` is b's column `author`, beside a table Author as well). DuckDB reads
 * `b.author` as the table author of a schema or catalog b only where b names one (and b has no
 * column author), so those names are looked up, and only for such a reference.
 */
async function readsWholeRow(connection: DuckDBConnection, found: Found): Promise<boolean> {
  const candidates = found.references.filter((parts) => found.relations.has(parts[parts.length - 1]!));
  if (candidates.some((parts) => parts.length === 1 || !found.relations.has(parts[0]!))) return true;
  if (candidates.length === 0) return false;
  const reader = await connection.runAndReadAll('SELECT database_name FROM duckdb_databases() UNION ALL SELECT schema_name FROM duckdb_schemas()');
  const containers = new Set(reader.getRows().map((row) => String(row[0]).toLowerCase()));
  return candidates.some((parts) => containers.has(parts[0]!));
}

/** What a node tells of the columns a statement reads (`found.columns`, `found.everyColumn`). */
function noteColumns(node: { [key: string]: Json }, found: Found): void {
  const cls = node.class;
  const type = node.type;
  if (cls === 'STAR' || cls === 'POSITIONAL_REFERENCE') found.everyColumn = true;
  else if (cls === 'COLUMN_REF' && Array.isArray(node.column_names) && node.column_names.length > 0) {
    const parts = node.column_names.map((part) => String(part).toLowerCase());
    for (const part of parts) found.columns.add(part);
    found.references.push(parts);
  }
  // Only a table's whole row or renamed columns hide the names of the storage's columns: what a
  // subquery, a CTE (read as a BASE_TABLE of its name) or a table function yields is named inside it.
  if (type === 'BASE_TABLE') {
    if (typeof node.table_name === 'string') found.relations.add(node.table_name.toLowerCase());
    if (typeof node.alias === 'string' && node.alias !== '') found.relations.add(node.alias.toLowerCase());
    if (Array.isArray(node.column_name_alias) && node.column_name_alias.length > 0) found.everyColumn = true;
  }
  // A PIVOT without GROUP BY groups by every column it does not name; UNPIVOT names columns by pattern.
  if (type === 'PIVOT') found.everyColumn = true;
  if (type === 'JOIN') {
    if (typeof node.ref_type !== 'string' || !NAMED_JOINS.has(node.ref_type)) found.everyColumn = true;
    if (Array.isArray(node.using_columns)) for (const name of node.using_columns) found.columns.add(String(name).toLowerCase());
  }
}

/** A refusal found in the tree, with DuckDB's location of the node (turned into a position above). */
class Located extends Error {
  constructor(
    readonly kind: 'refused' | 'invalid',
    message: string,
    readonly location: number,
  ) {
    super(message);
  }
}

function checkFunction(node: { [key: string]: Json }, tableFunction: boolean, location: number): void {
  const name = String(node.function_name).toLowerCase();
  const schema = String(node.schema ?? '').toLowerCase();
  const catalog = String(node.catalog ?? '').toLowerCase();
  const qualified = (catalog === '' || catalog === 'system') && (schema === '' || schema === 'main');
  const list = tableFunction ? ALLOWED_TABLE_FUNCTIONS : ALLOWED_FUNCTIONS;
  if (qualified && list.has(name)) return;
  const what = tableFunction ? 'table function' : 'function';
  throw new Located('refused', `the ${what} ${[catalog, schema, name].filter((s) => s !== '').join('.')}() is not allowed here (docs/security.md lists what is)`, location);
}

function quoted(ref: { name: string; schema: string; catalog: string }): string {
  return [ref.catalog, ref.schema, ref.name]
    .filter((s) => s !== '')
    .map((s) => `"${s.replaceAll('"', '""')}"`)
    .join('.');
}
