import { csvCell, type CsvCells, type JsonCell } from '../answers/result-values.js';
import type { SqlColumn } from '../sql-engine.js';

/**
 * A result as text for people and tools: an aligned table that fits the terminal's width (long
 * texts cut with …; numbers, object ids among them, never), one line per value for rows too wide
 * for a table (`line`, psql's expanded display), Markdown, CSV, JSON (one array of objects) or
 * NDJSON (one object a line).
 */

export type ResultFormat = 'table' | 'line' | 'csv' | 'json' | 'ndjson' | 'markdown';
export const RESULT_FORMATS: readonly ResultFormat[] = ['table', 'line', 'csv', 'json', 'ndjson', 'markdown'];

function show(value: JsonCell): string {
  return value === null ? 'NULL' : String(value);
}

/** Display width of a text, one column per code point (enough for aligning the usual texts). */
function width(text: string): number {
  return [...text].length;
}

function cut(text: string, max: number): string {
  const flat = text.replace(/[\r\n\t]/g, ' ');
  if (width(flat) <= max) return flat;
  return `${[...flat].slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** Numbers (64-bit object ids among them) are right-aligned and never cut: a cut number is a wrong one. */
function isNumeric(type: string): boolean {
  return /^(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|DECIMAL(\(.*\))?|NUMERIC(\(.*\))?|DOUBLE|FLOAT|REAL)$/.test(type);
}

/** A text column is not cut below this many characters; a table that needs more is shown as lines. */
const MIN_TEXT_WIDTH = 12;
/** The widest a cell is shown in a table, whatever the room. */
const MAX_CELL_WIDTH = 80;

/**
 * Column widths that fit `totalWidth` (undefined: no limit, e.g. a pipe): the widest text columns
 * give up room first, down to MIN_TEXT_WIDTH (or their natural width); numeric columns keep theirs.
 * Undefined when the table cannot fit that way.
 */
function fitWidths(natural: readonly number[], numeric: readonly boolean[], totalWidth: number | undefined): number[] | undefined {
  const widths = [...natural];
  if (totalWidth === undefined) return widths;
  const frame = 3 * widths.length + 1;
  let overflow = widths.reduce((a, b) => a + b, 0) + frame - totalWidth;
  while (overflow > 0) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) if (!numeric[i] && widths[i]! > MIN_TEXT_WIDTH && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    if (widest < 0) return undefined;
    widths[widest]!--;
    overflow--;
  }
  return widths;
}

function tableLayout(columns: readonly SqlColumn[], cells: readonly string[][], terminalWidth: number | undefined): { widths: number[] | undefined; numeric: boolean[] } {
  const numeric = columns.map((c) => isNumeric(c.type));
  const natural = columns.map((c, i) => {
    const w = Math.max(width(c.name), width(c.type), ...cells.map((r) => width(r[i]!)));
    return numeric[i] ? w : Math.min(MAX_CELL_WIDTH, w);
  });
  return { widths: fitWidths(natural, numeric, terminalWidth), numeric };
}

/** Whether the rows fit the width as a table without cutting a text below MIN_TEXT_WIDTH or any number. */
export function tableFits(columns: readonly SqlColumn[], rows: readonly JsonCell[][], terminalWidth: number | undefined): boolean {
  return tableLayout(columns, rows.map((row) => row.map(show)), terminalWidth).widths !== undefined;
}

/**
 * The rows as a table, `terminalWidth` wide at most (undefined: as wide as the cells, for a pipe).
 * A table that cannot fit (see tableFits) is laid out as narrow as it can be and wraps.
 */
export function formatTable(columns: readonly SqlColumn[], rows: readonly JsonCell[][], terminalWidth: number | undefined): string {
  const cells = rows.map((row) => row.map(show));
  const layout = tableLayout(columns, cells, terminalWidth);
  const numeric = layout.numeric;
  const widths = layout.widths ?? tableLayout(columns, cells, undefined).widths!.map((w, i) => (numeric[i] ? w : Math.min(w, MIN_TEXT_WIDTH)));
  const line = (parts: string[]): string => `│ ${parts.join(' │ ')} │`;
  const rule = (l: string, m: string, r: string): string => `${l}${widths.map((w) => '─'.repeat(w + 2)).join(m)}${r}`;
  const pad = (text: string, i: number): string => {
    // A numeric column is as wide as its widest cell in every layout, so cut only flattens line
    // breaks there (a column name can hold one); it never cuts a number.
    const t = cut(text, widths[i]!);
    const room = ' '.repeat(Math.max(0, widths[i]! - width(t)));
    return numeric[i] ? room + t : t + room;
  };
  const out = [rule('┌', '┬', '┐'), line(columns.map((c, i) => pad(c.name, i))), line(columns.map((c, i) => pad(c.type.toLowerCase(), i))), rule('├', '┼', '┤')];
  for (const row of cells) out.push(line(row.map((v, i) => pad(v, i))));
  out.push(rule('└', '┴', '┘'));
  return `${out.join('\n')}\n`;
}

/** A value shown on its own line is whole up to this many characters. */
const MAX_LINE_VALUE = 2000;

/**
 * The rows one value a line, each row under a `-[ RECORD n ]-` heading (psql's expanded display):
 * for rows with many or wide columns. Values whole (line breaks shown as ↵), up to MAX_LINE_VALUE
 * characters. `first`: the number of the first row.
 */
export function formatLines(columns: readonly SqlColumn[], rows: readonly JsonCell[][], first = 1): string {
  const nameWidth = Math.max(0, ...columns.map((c) => width(c.name)));
  const out: string[] = [];
  rows.forEach((row, r) => {
    out.push(`-[ RECORD ${first + r} ]${'-'.repeat(Math.max(3, nameWidth - 8))}`);
    columns.forEach((c, i) => {
      const text = show(row[i] ?? null).replace(/\r\n|\r|\n/g, '↵').replace(/\t/g, ' ');
      const length = width(text);
      const value = length <= MAX_LINE_VALUE ? text : `${[...text].slice(0, MAX_LINE_VALUE).join('')}… (${length - MAX_LINE_VALUE} more characters)`;
      out.push(`${c.name}${' '.repeat(nameWidth - width(c.name))} │ ${value}`);
    });
  });
  return out.length === 0 ? '(no rows)\n' : `${out.join('\n')}\n`;
}

export function formatMarkdown(columns: readonly SqlColumn[], rows: readonly JsonCell[][]): string {
  const escape = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  const out = [`| ${columns.map((c) => escape(c.name)).join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`];
  for (const row of rows) out.push(`| ${row.map((v) => escape(show(v))).join(' | ')} |`);
  return `${out.join('\n')}\n`;
}

export function csvHeaderLine(columns: readonly SqlColumn[], cells: CsvCells = 'safe'): string {
  return `${columns.map((c) => csvCell(c.name, cells)).join(',')}\r\n`;
}

export function csvLines(rows: readonly JsonCell[][], cells: CsvCells = 'safe'): string {
  return rows.map((row) => `${row.map((v) => csvCell(v, cells)).join(',')}\r\n`).join('');
}

export function ndjsonLines(columns: readonly SqlColumn[], rows: readonly JsonCell[][]): string {
  return rows.map((row) => `${JSON.stringify(Object.fromEntries(columns.map((c, i) => [c.name, row[i] ?? null])))}\n`).join('');
}
