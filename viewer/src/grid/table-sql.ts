import type { GridState } from '../shell/router.js';
import { quoteIdentifier, quoteLiteral, type SqlTable } from './sql-types.js';

/**
 * The SQL of a type's grid: the visible columns of its table, the column filters and the free
 * WHERE condition, only the unreachable objects when asked, sorted by the chosen column (then by
 * object id, so pages are stable), a page at a time. The same statement without paging is what a
 * download exports: exactly what the grid shows.
 */

export interface TableView {
  readonly table: SqlTable;
  readonly state: GridState;
  /** true/false: only reachable/unreachable objects; undefined: all. */
  readonly reachable: boolean | undefined;
}

const NUMERIC = /INT|DOUBLE|FLOAT|DECIMAL|REAL|NUMERIC/;

export function visibleColumnNames(view: TableView): string[] {
  const hidden = new Set(view.state.hidden ?? []);
  return view.table.columns.map((c) => c.name).filter((name) => !hidden.has(name));
}

export function whereClause(view: TableView): string {
  return whereParts(view).clause;
}

/** The WHERE clause, and where in it the user's own condition (the WHERE box's text) starts. */
function whereParts(view: TableView): { clause: string; userAt: number | undefined } {
  const conditions: string[] = [];
  for (const [name, text] of Object.entries(view.state.filters ?? {})) {
    const column = view.table.columns.find((c) => c.name === name);
    if (column !== undefined && text.trim() !== '') conditions.push(filterCondition(quoteIdentifier(name), column.type, column.objectId, text.trim()));
  }
  let userAt: number | undefined;
  if (view.state.where !== undefined && view.state.where.trim() !== '') {
    userAt = ' WHERE '.length + conditions.reduce((n, c) => n + c.length + ' AND '.length, 0) + 1;
    conditions.push(`(${view.state.where})`);
  }
  if (view.reachable !== undefined) conditions.push(`"_oid" IN (SELECT oid FROM _objects WHERE reachable = ${view.reachable ? 'true' : 'false'})`);
  return { clause: conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`, userAt };
}

/**
 * Where an error's position (0-based, into a statement made by `countSql` or `selectSql`) falls
 * in the user's WHERE text: the offset there, or undefined when it points elsewhere (a column
 * filter, the generated part). DuckDB locates errors in the statement it was given; the user
 * knows only the text they typed.
 */
export function positionInWhere(view: TableView, statement: string, position: number): number | undefined {
  const where = view.state.where;
  const { clause, userAt } = whereParts(view);
  if (where === undefined || userAt === undefined || clause === '') return undefined;
  const clauseAt = statement.indexOf(clause);
  if (clauseAt < 0) return undefined;
  const offset = position - (clauseAt + userAt);
  return offset >= 0 && offset <= where.length ? offset : undefined;
}

/** Every row shown, in the order shown; the visible columns (for downloads) or all (for the grid, which hides columns itself). */
export function selectSql(view: TableView, allColumns = false): string {
  const columns = allColumns ? view.table.columns.map((c) => c.name) : visibleColumnNames(view);
  const list = columns.length === 0 ? '"_oid"' : columns.map(quoteIdentifier).join(', ');
  const sort = view.state.sort;
  const order = sort !== undefined && view.table.columns.some((c) => c.name === sort) ? `${quoteIdentifier(sort)} ${view.state.desc === true ? 'DESC' : 'ASC'} NULLS LAST, "_oid"` : '"_oid"';
  return `SELECT ${list} FROM ${quoteIdentifier(view.table.name)}${whereClause(view)} ORDER BY ${order}`;
}

export function pageSql(view: TableView, offset: number, limit: number): string {
  return `${selectSql(view, true)} LIMIT ${limit} OFFSET ${offset}`;
}

export function countSql(view: TableView): string {
  return `SELECT count(*) AS n FROM ${quoteIdentifier(view.table.name)}${whereClause(view)}`;
}

/**
 * One column's filter text as a condition: `null` / `!null`; for numbers and ids a comparison
 * (`42`, `> 10`, `<= 3.5`, `!= 7`) or a range `10..20`; for booleans `true`/`false`; for
 * anything else a case-insensitive "contains".
 */
export function filterCondition(column: string, type: string, objectId: boolean, text: string): string {
  if (/^null$/i.test(text)) return `${column} IS NULL`;
  if (/^!\s*null$/i.test(text)) return `${column} IS NOT NULL`;
  if (NUMERIC.test(type) || objectId) {
    const range = /^(-?[0-9]+(?:\.[0-9]+)?)\s*\.\.\s*(-?[0-9]+(?:\.[0-9]+)?)$/.exec(text);
    if (range !== null) return `${column} BETWEEN ${range[1]} AND ${range[2]}`;
    const compare = /^(<=|>=|!=|<>|=|<|>)?\s*(-?[0-9]+(?:\.[0-9]+)?(?:[eE]-?[0-9]+)?)$/.exec(text);
    if (compare !== null) return `${column} ${compare[1] ?? '='} ${compare[2]}`;
  }
  if (type === 'BOOLEAN' && /^(true|false)$/i.test(text)) return `${column} = ${text.toLowerCase()}`;
  return `CAST(${column} AS VARCHAR) ILIKE ${quoteLiteral(`%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)} ESCAPE '\\'`;
}
