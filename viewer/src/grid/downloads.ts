import type { SqlApi } from './sql-api.js';

/**
 * Saves the whole result of a statement as a file: CSV as `/api/v1/sql` streams it
 * (`Accept: text/csv`: a text a spreadsheet would run as a formula, beginning with `=`, `+`, `-`,
 * `@`, a tab or a carriage return, gets a `'` in front; `raw-csv` asks for the values as they are
 * with `rawCsv=true`), Parquet as `Accept: application/vnd.apache.parquet` (answered by servers
 * whose SQL engine writes Parquet; others refuse it and the error is shown).
 */

const TYPES = { csv: 'text/csv', 'raw-csv': 'text/csv', parquet: 'application/vnd.apache.parquet' } as const;
export type DownloadFormat = keyof typeof TYPES;

export const CSV_TITLE = "As CSV: a text beginning with = + - @, a tab or a line end gets a ' in front, so that a spreadsheet does not run it as a formula";
export const RAW_CSV_TITLE = 'As CSV with every value as it is stored (a spreadsheet may run a text beginning with = + - @ as a formula)';

export async function downloadResult(sql: SqlApi, statement: string, format: DownloadFormat, name: string): Promise<void> {
  const blob = await sql.download(statement, TYPES[format], undefined, format === 'raw-csv');
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = format === 'raw-csv' ? `${name}.raw.csv` : `${name}.${format}`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
