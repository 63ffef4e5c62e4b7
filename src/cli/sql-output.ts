import type { CsvCells, JsonCell } from '../sql/result-values.js';
import { csvHeaderLine, csvLines, formatMarkdown, formatTable, ndjsonLines, type ResultFormat } from '../sql/result-text.js';
import type { SqlColumn, SqlEngine } from '../sql/sql-engine.js';
import type { OutputTarget } from './output-target.js';

/**
 * One statement's result written in a format: CSV, JSON and NDJSON streamed whole, chunk by chunk
 * with back-pressure (a closed pipe ends it quietly); the table and Markdown layouts, which need
 * every width first, hold at most `maxRows` rows and say so when there were more.
 */

export interface StatementOutputOptions {
  readonly maxRows: number;
  readonly terminalWidth: number;
  readonly signal?: AbortSignal;
  /** CSV cells a spreadsheet would run as formulas: neutralised (default) or raw (`--raw-csv`). */
  readonly csvCells?: CsvCells;
  /** Where notes go (rows cut, counts). */
  readonly notes: { write(text: string): unknown };
}

export async function runStatement(engine: SqlEngine, sql: string, format: ResultFormat, output: OutputTarget, options: StatementOutputOptions): Promise<void> {
  if (format === 'table' || format === 'markdown') {
    const answer = await engine.query(sql, { limit: options.maxRows, ...(options.signal === undefined ? {} : { signal: options.signal }) });
    await output.write(format === 'table' ? formatTable(answer.columns, answer.rows, options.terminalWidth) : formatMarkdown(answer.columns, answer.rows));
    const rows = `${answer.rowCount} row${answer.rowCount === 1 ? '' : 's'}`;
    options.notes.write(answer.truncated ? `${rows} shown, more exist (--max-rows ${options.maxRows}; csv, json and ndjson give all)\n` : format === 'table' ? `${rows} (${answer.elapsedMs.toFixed(1)} ms)\n` : '');
    return;
  }
  let columns: readonly SqlColumn[] = [];
  let first = true;
  await engine.stream(
    sql,
    options.signal,
    async (c) => {
      columns = c;
      if (format === 'csv') await output.write(csvHeaderLine(columns, options.csvCells));
      if (format === 'json') await output.write('[');
    },
    async (rows: JsonCell[][]) => {
      if (format === 'csv') await output.write(csvLines(rows, options.csvCells));
      else if (format === 'ndjson') await output.write(ndjsonLines(columns, rows));
      else {
        const objects = ndjsonLines(columns, rows).trimEnd().split('\n');
        await output.write(`${first ? '\n' : ',\n'}${objects.join(',\n')}`);
        first = false;
      }
      return !output.closed;
    },
  );
  if (format === 'json') await output.write(first ? ']\n' : '\n]\n');
}

/** The message of an SQL problem (refused, invalid, timeout...), undefined for other errors. */
export function sqlErrorText(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'SqlError') return undefined;
  const position = (error as { position?: number }).position;
  return `${error.message}${position === undefined ? '' : ` (at character ${position})`}`;
}
