import { csvCell, type CsvCells, type JsonCell } from './result-values.js';
import type { SqlColumn } from './sql-engine.js';

/**
 * A result as text for people and tools: an aligned table that fits the terminal's width (long
 * cells cut with …), Markdown, CSV, JSON (one array of objects) or NDJSON (one object a line).
 */

export type ResultFormat = 'table' | 'csv' | 'json' | 'ndjson' | 'markdown';
export const RESULT_FORMATS: readonly ResultFormat[] = ['table', 'csv', 'json', 'ndjson', 'markdown'];

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

/** Column widths that fit `totalWidth`: the widest columns give up room first. */
function fitWidths(natural: number[], totalWidth: number): number[] {
  const widths = [...natural];
  const frame = 3 * widths.length + 1;
  let overflow = widths.reduce((a, b) => a + b, 0) + frame - totalWidth;
  while (overflow > 0) {
    let widest = 0;
    for (let i = 1; i < widths.length; i++) if (widths[i]! > widths[widest]!) widest = i;
    if (widths[widest]! <= 4) break;
    widths[widest]!--;
    overflow--;
  }
  return widths;
}

export function formatTable(columns: readonly SqlColumn[], rows: readonly JsonCell[][], terminalWidth = 120): string {
  const cells = rows.map((row) => row.map(show));
  const natural = columns.map((c, i) => Math.min(80, Math.max(width(c.name), width(c.type), ...cells.map((r) => width(r[i]!)))));
  const widths = fitWidths(natural, terminalWidth);
  const numeric = columns.map((c) => /INT|DECIMAL|DOUBLE|FLOAT|NUMERIC/.test(c.type));
  const line = (parts: string[]): string => `│ ${parts.join(' │ ')} │`;
  const rule = (l: string, m: string, r: string): string => `${l}${widths.map((w) => '─'.repeat(w + 2)).join(m)}${r}`;
  const pad = (text: string, i: number): string => {
    const t = cut(text, widths[i]!);
    const room = ' '.repeat(widths[i]! - width(t));
    return numeric[i] ? room + t : t + room;
  };
  const out = [rule('┌', '┬', '┐'), line(columns.map((c, i) => pad(c.name, i))), line(columns.map((c, i) => pad(c.type.toLowerCase(), i))), rule('├', '┼', '┤')];
  for (const row of cells) out.push(line(row.map((v, i) => pad(v, i))));
  out.push(rule('└', '┴', '┘'));
  return `${out.join('\n')}\n`;
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
