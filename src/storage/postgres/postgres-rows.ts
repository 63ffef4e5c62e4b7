import type pg from 'pg';
import { FormatError, StorageError } from '../../errors.js';
import type { StorageTable } from './postgres-tables.js';

/**
 * Reading a file kept as rows (`identifier`, `start`, `end` inclusive, `data`) of a table: a byte
 * range by the rows covering it, a range as a stream of rows through a cursor (only a few rows in
 * memory at a time), a whole small file. Rows must continue each other without gap or overlap;
 * where they do not, the file ends there (the listing reports why, see postgres-tables.ts).
 */

export interface FileLocation {
  readonly table: StorageTable;
  readonly identifier: string;
  /** How messages name the file. */
  readonly path: string;
  /** Average bytes per row, as listed (sizes the cursor's batches). */
  readonly rowBytes: number;
}

export interface FileRow {
  readonly start: number;
  readonly data: Buffer;
}

/** Rows of one file from the one holding `from` up to the last one starting before `to`, in order (`start` comes as text: node-postgres reads bigint so). */
function rangeQuery(table: StorageTable): string {
  return `SELECT start, data FROM ${table.sql}
          WHERE identifier = $1 AND start < $3
            AND start >= coalesce((SELECT max(start) FROM ${table.sql} WHERE identifier = $1 AND start <= $2), 0)
          ORDER BY start`;
}

/** Rows holding `[from, to)` (whole rows: the first may begin before `from`, the last end after `to`). */
export async function readRows(client: pg.ClientBase, file: FileLocation, from: number, to: number): Promise<FileRow[]> {
  const result = await client.query<{ start: string; data: Buffer }>(rangeQuery(file.table), [file.identifier, from, to]);
  return result.rows.map((row) => ({ start: Number(row.start), data: row.data }));
}

/**
 * `[position, position + length)` out of rows from `readRows`: exactly those bytes, a
 * STORAGE_FILE_GONE error when the file has no rows any more, FORMAT_TRUNCATED when the rows end
 * (or break off) before.
 */
export function assembleRange(rows: readonly FileRow[], file: FileLocation, position: number, length: number): Buffer {
  if (rows.length === 0) throw new StorageError('STORAGE_FILE_GONE', `${file.path} was deleted while being read`);
  const out = Buffer.allocUnsafe(length);
  const end = position + length;
  let at = position;
  let expected = rows[0]!.start;
  for (const row of rows) {
    if (row.start !== expected || at >= end) break;
    const rowEnd = row.start + row.data.length;
    if (rowEnd > at) {
      const take = Math.min(end, rowEnd) - at;
      row.data.copy(out, at - position, at - row.start, at - row.start + take);
      at += take;
    }
    expected = rowEnd;
  }
  if (at < end) {
    throw new FormatError('FORMAT_TRUNCATED', `file ends after ${at} bytes, ${end - at} more expected`, { file: file.path, offset: at });
  }
  return out;
}

/**
 * Bytes fetched per round trip of the cursor: rows of one small commit each need large batches,
 * MicroStream's 1 MiB rows small ones (measured on a 1M-entity storage: 16 KiB rows took 2.4 to
 * 3.5 s in batches of 8 rows, 1.4 to 1.8 s in batches of 64).
 */
const CURSOR_BATCH_BYTES = 1024 * 1024;
const MIN_BATCH_ROWS = 4;
const MAX_BATCH_ROWS = 256;

/**
 * `[from, to)` as the rows' bytes, streamed through a cursor in the client's transaction. Ends
 * early where the rows end or break off.
 */
export async function* streamRange(client: pg.ClientBase, file: FileLocation, from: number, to: number): AsyncGenerator<Uint8Array> {
  if (from >= to) return;
  const batchSize = Math.max(MIN_BATCH_ROWS, Math.min(MAX_BATCH_ROWS, Math.round(CURSOR_BATCH_BYTES / Math.max(1, file.rowBytes))));
  // Loaded here: only a storage kept in PostgreSQL needs it.
  const { default: QueryStream } = await import('pg-query-stream');
  const stream = client.query(new QueryStream(rangeQuery(file.table), [file.identifier, from, to], { batchSize }));
  try {
    let expected: number | undefined;
    for await (const row of stream as AsyncIterable<{ start: string; data: Buffer }>) {
      const start = Number(row.start);
      if (expected === undefined ? start > from : start !== expected) return;
      const end = start + row.data.length;
      expected = end;
      if (end > from) yield row.data.subarray(Math.max(from, start) - start, Math.min(to, end) - start);
      if (end >= to) return;
    }
  } finally {
    stream.destroy();
  }
}

/** A whole file (the type dictionary): its rows concatenated, up to the first break. */
export async function readWholeFile(client: pg.ClientBase, file: FileLocation): Promise<Buffer> {
  const result = await client.query<{ start: string; data: Buffer }>(
    `SELECT start, data FROM ${file.table.sql} WHERE identifier = $1 ORDER BY start`,
    [file.identifier],
  );
  if (result.rows.length === 0) throw new StorageError('STORAGE_FILE_GONE', `${file.path} no longer exists`);
  const parts: Buffer[] = [];
  let expected = 0;
  for (const row of result.rows) {
    if (Number(row.start) !== expected) break;
    parts.push(row.data);
    expected += row.data.length;
  }
  return Buffer.concat(parts, expected);
}
