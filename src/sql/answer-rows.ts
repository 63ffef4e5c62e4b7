import type { DuckDBResult } from '@duckdb/node-api';
import { mebibytes, type ByteBudget } from './answers/answer-budget.js';
import { rowSizes } from './answers/cell-bytes.js';
import { converterFor, type CellConverter, type JsonCell } from './answers/result-values.js';
import type { SqlLimits } from './sql-limits.js';
import { SqlError } from './sandbox/sql-error.js';

/**
 * A statement's result read into JSON rows for the engine (sql-engine.ts), a slice at a time:
 * each slice's size is measured in DuckDB's vectors first (cell-bytes.ts), a row over
 * `maxRowBytes` or a buffered answer over `maxAnswerBytes` stops the statement (too-large), and
 * the bytes are drawn from the process's answer budget (busy when spent): held until the session
 * ends for a buffered answer (`answerBytes` given), handed back once `onRows` has settled for a
 * streamed one.
 */

/** Rows converted and handed over at once, in bytes (at least one row): bounds the memory of one step. */
export const SLICE_BYTES = 4 * 1024 ** 2;

export interface SqlColumn {
  readonly name: string;
  readonly type: string;
}

/** The bounds of one statement's turn. */
export interface AnswerTurn {
  readonly limits: Pick<SqlLimits, 'maxRowBytes' | 'maxAnswerBytes'>;
  readonly budget: ByteBudget;
  /** Bytes a buffered answer may take; undefined: a streamed one. */
  readonly answerBytes: number | undefined;
  /** The statement timed out or was cancelled: no further chunk is fetched. */
  readonly stopping: () => boolean;
  /** Draws bytes from the answer budget (negative: gives them back); false when spent. */
  readonly hold: (bytes: number) => boolean;
}

/** Reads `result` into `onRows` (the next slice only once it has settled, and unless it answered false); `onColumns` first. */
export async function readAnswerRows(
  result: DuckDBResult,
  turn: AnswerTurn,
  onRows: (rows: JsonCell[][]) => Promise<boolean | void>,
  onColumns?: (columns: readonly SqlColumn[]) => Promise<void> | void,
): Promise<SqlColumn[]> {
  const columns: SqlColumn[] = [];
  const converters: CellConverter[] = [];
  for (let i = 0; i < result.columnCount; i++) {
    const type = result.columnType(i);
    columns.push({ name: result.columnName(i), type: type.toString() });
    converters.push(converterFor(type));
  }
  await onColumns?.(columns);
  let answerBytes = turn.answerBytes;
  let total = 0;
  for (;;) {
    if (turn.stopping()) break;
    const chunk = await result.fetchChunk();
    if (chunk === null || chunk.rowCount === 0) break;
    const sizes = rowSizes(chunk);
    const vectors = Array.from({ length: chunk.columnCount }, (_, c) => chunk.getColumnVector(c));
    for (let from = 0; from < chunk.rowCount; ) {
      let bytes = 0;
      let to = from;
      // A slice of at most SLICE_BYTES (at least one row): what is converted and held at once.
      while (to < chunk.rowCount && (to === from || bytes + sizes[to]! <= SLICE_BYTES)) {
        const size = sizes[to]!;
        if (size > turn.limits.maxRowBytes) {
          throw new SqlError('too-large', `row ${total + to - from + 1} of the answer takes ${mebibytes(size)}, over the limit of ${mebibytes(turn.limits.maxRowBytes)} per row (--sql-max-row-bytes); select fewer or shorter columns (e.g. left(text, 1000))`);
        }
        bytes += size;
        to++;
      }
      if (answerBytes !== undefined) {
        answerBytes -= bytes;
        if (answerBytes < 0) {
          throw new SqlError('too-large', `the answer takes more than ${mebibytes(turn.limits.maxAnswerBytes)} (--sql-max-answer-bytes); ask for fewer rows or columns, or stream it (Accept: text/csv or application/x-ndjson)`);
        }
      }
      if (!turn.hold(bytes)) {
        throw new SqlError('busy', `the SQL answers being sent hold ${mebibytes(turn.budget.inUse)} of the server's ${mebibytes(turn.budget.limit)} (--sql-answer-budget); ask again`);
      }
      const rows: JsonCell[][] = [];
      for (let r = from; r < to; r++) {
        const row: JsonCell[] = new Array(vectors.length);
        for (let c = 0; c < vectors.length; c++) {
          const value = vectors[c]!.getItem(r);
          row[c] = value === null ? null : converters[c]!(value);
        }
        rows.push(row);
      }
      total += to - from;
      from = to;
      const more = await onRows(rows);
      if (answerBytes === undefined) turn.hold(-bytes);
      if (more === false) return columns;
      // Give other requests (health checks, other statements) their turn between slices.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return columns;
}
