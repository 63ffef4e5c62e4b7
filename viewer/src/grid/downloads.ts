import type { SqlApi } from './sql-api.js';

/**
 * Saves the whole result of a statement as a file: CSV as `/api/v1/sql` streams it
 * (`Accept: text/csv`), Parquet as `Accept: application/vnd.apache.parquet` (answered by servers
 * whose SQL engine writes Parquet; others refuse it and the error is shown).
 */

const TYPES = { csv: 'text/csv', parquet: 'application/vnd.apache.parquet' } as const;

export async function downloadResult(sql: SqlApi, statement: string, format: keyof typeof TYPES, name: string): Promise<void> {
  const blob = await sql.download(statement, TYPES[format]);
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = `${name}.${format}`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
