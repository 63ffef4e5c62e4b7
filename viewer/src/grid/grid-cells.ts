import { h } from '../ui/dom.js';
import { quote } from '../ui/format.js';
import { OWN_ID_COLUMNS } from './column-widths.js';
import type { SqlColumn, SqlValue } from './sql-api.js';

/** The cells of a data grid: what a value shows as, and which columns give way when room is short. */

export interface GridColumn extends SqlColumn {
  /** Holds object ids: shown as links to the Data view with a summary. */
  readonly objectId: boolean;
}

const NUMERIC = /INT|DOUBLE|FLOAT|DECIMAL|REAL/;

/** An object id of an id column (links); `0` is null in MicroStream. */
function idOf(column: GridColumn, value: SqlValue): string | undefined {
  return column.objectId && typeof value === 'string' && /^[0-9]+$/.test(value) && value !== '0' ? value : undefined;
}

/** The text a cell shows for a value (a reference: its summary once known). */
export function displayText(column: GridColumn, value: SqlValue, summaries: ReadonlyMap<string, string>): string {
  if (value === null) return 'null';
  const id = idOf(column, value);
  if (id !== undefined) return OWN_ID_COLUMNS.has(column.name) ? id : (summaries.get(id) ?? id);
  return typeof value === 'string' && /CHAR|TEXT|STRING/.test(column.type) ? quote(value, 500) : String(value);
}

export interface CellContext {
  readonly summaries: ReadonlyMap<string, string>;
  /** Ids whose summary is not known yet: the grid asks for them after drawing. */
  readonly wanted: Set<string>;
  readonly objectHref: (oid: string) => string;
}

/** One cell; `attrs` carry its role, id and active mark. */
export function cellElement(column: GridColumn, value: SqlValue, attrs: { readonly class: string; readonly role: string; readonly id: string }, context: CellContext): HTMLElement {
  if (value === null) return h('div', { ...attrs, class: `${attrs.class} v-null` }, 'null');
  const id = idOf(column, value);
  if (id !== undefined) {
    // The row's own id as itself; references as a summary of what they point at.
    if (OWN_ID_COLUMNS.has(column.name)) return h('div', attrs, h('a', { class: 'ref-link', href: context.objectHref(id), tabindex: '-1' }, id));
    const summary = context.summaries.get(id);
    if (summary === undefined) context.wanted.add(id);
    return h('div', { ...attrs, title: summary === undefined ? id : `${id}: ${summary}` }, h('a', { class: 'ref-link', href: context.objectHref(id), tabindex: '-1' }, summary === undefined ? id : summary));
  }
  const text = displayText(column, value, context.summaries);
  const cls = typeof value === 'number' || NUMERIC.test(column.type) ? 'v-number' : typeof value === 'boolean' ? 'v-keyword' : /CHAR/.test(column.type) ? 'v-string' : 'v-other';
  return h('div', { ...attrs, class: `${attrs.class} ${cls}`, title: String(value).slice(0, 2000) }, text);
}

/** Whether a column filters by comparison (`> 70`) rather than by contained text. */
export function comparesNumbers(column: GridColumn): boolean {
  return column.objectId || NUMERIC.test(column.type);
}

/** A column whose values may be cut (texts, summaries of references): it takes the room left. */
function isCuttable(column: GridColumn): boolean {
  if (column.objectId) return !OWN_ID_COLUMNS.has(column.name);
  return !/INT|DOUBLE|FLOAT|DECIMAL|REAL|NUMERIC|BOOLEAN|DATE|TIME|INTERVAL/.test(column.type);
}

/**
 * The columns' widths as a grid template; narrower in all than `room`, what is left goes to the
 * columns that may be cut (texts, references), else to the last one: the columns use the width there is.
 */
export function columnTemplate(columns: readonly GridColumn[], widthOf: (name: string) => number, room: number): string {
  const widths = columns.map((c) => widthOf(c.name));
  const left = room - widths.reduce((n, w) => n + w, 0) - 1;
  if (left > 0 && columns.length > 0) {
    const wide = columns.map((c, i) => (isCuttable(c) ? i : -1)).filter((i) => i >= 0);
    const takers = wide.length > 0 ? wide : [columns.length - 1];
    for (const i of takers) widths[i] = widths[i]! + Math.floor(left / takers.length);
  }
  return widths.map((w) => `${w}px`).join(' ');
}
