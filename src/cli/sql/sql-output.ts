import type { CsvCells, JsonCell } from '../../sql/answers/result-values.js';
import { csvHeaderLine, csvLines, formatLines, formatMarkdown, formatTable, ndjsonLines, tableFits, type ResultFormat } from '../../sql/output/result-text.js';
import type { SqlColumn, SqlEngine } from '../../sql/sql-engine.js';
import { groupDigits } from '../reports/number-text.js';
import type { OutputTarget } from '../output/output-target.js';

/**
 * One statement's result written in a format: CSV, JSON and NDJSON streamed whole, chunk by chunk
 * with back-pressure (a closed pipe ends it quietly); the table, line and Markdown layouts, which
 * need every width first, hold at most `maxRows` rows, count the rest as they stream past and say
 * how many were left out. A table too wide for the terminal is shown one value a line instead
 * (like psql's `\x auto`), unless `expanded` is 'off'.
 */

export interface StatementOutputOptions {
  readonly maxRows: number;
  /** The terminal's width; undefined when the output is no terminal (a pipe, a file): no limit. */
  readonly terminalWidth: number | undefined;
  /** 'auto' (default): a table too wide for the terminal is shown as lines; 'off': always a table. */
  readonly expanded?: 'auto' | 'off';
  readonly signal?: AbortSignal;
  /** CSV cells a spreadsheet would run as formulas: neutralised (default) or raw (`--raw-csv`). */
  readonly csvCells?: CsvCells;
  /** Where notes go (rows cut, counts). */
  readonly notes: { write(text: string): unknown };
}

export async function runStatement(engine: SqlEngine, sql: string, format: ResultFormat, output: OutputTarget, options: StatementOutputOptions): Promise<void> {
  if (format === 'table' || format === 'markdown' || format === 'line') {
    const started = performance.now();
    let columns: readonly SqlColumn[] = [];
    const kept: JsonCell[][] = [];
    let total = 0;
    await engine.stream(
      sql,
      options.signal,
      (c) => void (columns = c),
      async (rows: JsonCell[][]) => {
        for (const row of rows) if (kept.length < options.maxRows) kept.push(row);
        total += rows.length;
      },
    );
    const elapsedMs = performance.now() - started;
    const asLines = format === 'line' || (format === 'table' && options.expanded !== 'off' && !tableFits(columns, kept, options.terminalWidth));
    await output.write(asLines ? formatLines(columns, kept) : format === 'table' ? formatTable(columns, kept, options.terminalWidth) : formatMarkdown(columns, kept));
    const plural = (n: number): string => `${groupDigits(n)} row${n === 1 ? '' : 's'}`;
    const wide = asLines && format === 'table' ? '; one value a line: the table is wider than the terminal' : '';
    if (total > kept.length) {
      options.notes.write(`${plural(total)}, ${groupDigits(kept.length)} shown, ${groupDigits(total - kept.length)} left out (--max-rows ${options.maxRows}; csv, json and ndjson give all)${wide}\n`);
    } else if (format !== 'markdown') options.notes.write(`${plural(total)} (${elapsedMs.toFixed(1)} ms${wide})\n`);
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
