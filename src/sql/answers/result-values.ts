import type { DuckDBType, DuckDBValue } from '@duckdb/node-api';

/**
 * DuckDB values as JSON, by the rules every client relies on: 64-bit and wider integers and
 * decimals as decimal strings, small integers and floats as numbers (non-finite ones as their
 * names), timestamps as ISO-8601 with milliseconds and `Z`, dates `YYYY-MM-DD`, times
 * `HH:MM:SS.mmm`, NULL as null, anything else (lists, structs, blobs) as DuckDB's text.
 */

export type JsonCell = null | boolean | number | string;
export type CellConverter = (value: DuckDBValue) => JsonCell;

function number(value: DuckDBValue): JsonCell {
  const n = value as number;
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'Infinity';
  if (n === -Infinity) return '-Infinity';
  return n;
}

function pad(n: number | bigint, width: number): string {
  return String(n).padStart(width, '0');
}

function timestamp(value: DuckDBValue): JsonCell {
  const micros = (value as { micros: bigint }).micros;
  const date = new Date(Number(micros / 1000n) - (micros % 1000n < 0n ? 1 : 0));
  return Number.isFinite(date.getTime()) && date.getUTCFullYear() >= 0 && date.getUTCFullYear() <= 9999 ? date.toISOString() : String(value);
}

/** ISO-8601 dates, years before 1 as `-0044` (1 BC is year 0) and after 9999 with a `+`. */
function date(value: DuckDBValue): JsonCell {
  const days = (value as { days: number }).days;
  const d = new Date(days * 86_400_000);
  if (!Number.isFinite(d.getTime())) return String(value);
  const year = d.getUTCFullYear();
  const y = year < 0 ? `-${pad(-year, 4)}` : year > 9999 ? `+${year}` : pad(year, 4);
  return `${y}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}

function time(value: DuckDBValue): JsonCell {
  const micros = (value as { micros: bigint }).micros;
  const ms = micros / 1000n;
  return `${pad(ms / 3_600_000n, 2)}:${pad((ms / 60_000n) % 60n, 2)}:${pad((ms / 1000n) % 60n, 2)}.${pad(ms % 1000n, 3)}`;
}

export function converterFor(type: DuckDBType): CellConverter {
  const text = type.toString();
  const convert = ((): CellConverter => {
    switch (text) {
      case 'TINYINT':
      case 'SMALLINT':
      case 'INTEGER':
      case 'UTINYINT':
      case 'USMALLINT':
      case 'UINTEGER':
      case 'FLOAT':
      case 'DOUBLE':
        return number;
      case 'BOOLEAN':
        return (v) => v as boolean;
      case 'VARCHAR':
        return (v) => v as string;
      case 'TIMESTAMP':
        return timestamp;
      case 'DATE':
        return date;
      case 'TIME':
        return time;
      default:
        return (v) => String(v);
    }
  })();
  return (value) => (value === null ? null : convert(value));
}

/**
 * How CSV cells are written: `safe` (the default) neutralises cells a spreadsheet would run as a
 * formula (OWASP's rule for CSV injection: a text beginning with `=`, `+`, `-`, `@`, a tab or a
 * carriage return gets a `'` in front; a plain number such as `-12.5` or `+3e8` is left as it is,
 * since a spreadsheet reads it as the number it is); `raw` writes every value as it is.
 */
export type CsvCells = 'safe' | 'raw';
export const CSV_CELLS: readonly CsvCells[] = ['safe', 'raw'];

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A text as one CSV cell (RFC 4180: quoted when it holds a quote, comma or line end, quotes doubled). */
export function csvText(text: string, cells: CsvCells = 'safe'): string {
  const safe = cells === 'safe' && FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A value as one CSV cell by the JSON value rules above, NULL as an empty cell. */
export function csvCell(value: JsonCell, cells: CsvCells = 'safe'): string {
  return value === null ? '' : csvText(String(value), cells);
}
