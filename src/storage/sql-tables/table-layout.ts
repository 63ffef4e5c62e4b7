import { StorageError } from '../../errors.js';
import { pickChannelTables, type PathSeparator, type StorageTable, type TableFile } from '../postgres/postgres-tables.js';
import type { FileLocation, FileRow } from '../postgres/postgres-rows.js';
import type { RowDatabase, RowQueries } from './row-database.js';

/**
 * The SQL file system's tables in SQLite and MariaDB/MySQL, the same layout as in PostgreSQL
 * (see storage/postgres/postgres-tables.ts): one table per directory, its name the path joined
 * with `$` (EclipseStore) or `_` (MicroStream 4.1); columns `identifier`, `start`, `end`
 * (inclusive), `data`; a file is its rows by `start`, contiguous from 0. Every statement here
 * only reads.
 */

export interface FoundTables {
  readonly root: StorageTable;
  readonly channels: ReadonlyMap<number, StorageTable>;
  readonly separator: PathSeparator;
}

/** Accepted declared types per column (SQLite keeps what the writer declared; MariaDB its own names). */
const COLUMN_TYPES: Readonly<Record<string, RegExp>> = {
  identifier: /^(varchar|character varying|text|char|nvarchar|tinytext|mediumtext|longtext)\b/,
  start: /^(bigint|int|integer)\b/,
  end: /^(bigint|int|integer)\b/,
  data: /^(blob|longblob|mediumblob|tinyblob|varbinary|binary)\b/,
};
const LAYOUT_TEXT = 'identifier varchar(255), start bigint, end bigint, data blob';

export function table(database: RowDatabase, name: string): StorageTable {
  return { schema: '', name, sql: database.quote(name), display: name };
}

/** The root table and its channel tables, their columns checked; a StorageError says what is missing or wrong. */
export async function findTables(database: RowDatabase, queries: RowQueries, root: string, where: string): Promise<FoundTables> {
  const found = new Map((await database.tables(queries, root)).map((t) => [t.name, t]));
  if (!found.has(root)) {
    throw new StorageError('STORAGE_NOT_A_STORAGE', `${where}: no table ${root} (the storage root table of the SQL file system; see --table)`);
  }
  const { separator, channels: names } = pickChannelTables(root, found.keys(), where);
  const problems: string[] = [];
  for (const name of [root, ...names.values()]) {
    const columns = found.get(name)!.columns;
    for (const [column, type] of Object.entries(COLUMN_TYPES)) {
      const declared = columns.get(column);
      if (declared === undefined) problems.push(`table ${name} has no column "${column}"`);
      else if (!type.test(declared)) problems.push(`table ${name}: column "${column}" is ${declared}`);
    }
  }
  if (problems.length > 0) {
    throw new StorageError('STORAGE_NOT_A_STORAGE', `${where}: not the SQL file system's layout (${LAYOUT_TEXT}): ${problems.join('; ')}`);
  }
  const channels = new Map([...names].map(([index, name]) => [index, table(database, name)]));
  return { root: table(database, root), channels, separator };
}

/**
 * Root tables in a database: tables with a channel table 0 beside them (for a storage given
 * without --table, when there is exactly one).
 */
export async function rootTables(database: RowDatabase, queries: RowQueries): Promise<string[]> {
  const names = new Set((await database.tables(queries, '')).map((t) => t.name));
  return [...names].filter((name) => names.has(`${name}$channel_0`) || names.has(`${name}_channel_0`)).sort();
}

interface ListedRow {
  identifier: string;
  n: number | bigint;
  size: number | bigint;
  starts: number | bigint | string;
  oldest: number | bigint | string;
  newest: number | bigint | string;
  marks: number | bigint | string;
  bad_start: number | bigint | null;
  readable: number | bigint | null;
  bad_length: number | bigint | null;
  bad_end: number | bigint | null;
}

/**
 * The files of one table with size, a change stamp (`byContent`: from the rows' bytes, see
 * RowDatabase.contentMark) and, for rows that are not contiguous from 0
 * or whose data length disagrees with their range, the size up to the first such row and why.
 * One statement over the row headers (window functions: SQLite 3.25, MariaDB 10.2, MySQL 8).
 */
export async function listFiles(database: RowDatabase, queries: RowQueries, t: StorageTable, byContent = false): Promise<TableFile[]> {
  const end = database.quote('end');
  const mark = byContent ? database.contentMark : database.rowMark;
  const rows = await queries.all<ListedRow>(
    `WITH r AS (SELECT identifier, start, ${end} AS stop, LENGTH(data) AS len, ${mark} AS mark,
                       COALESCE(LAG(${end}) OVER (PARTITION BY identifier ORDER BY start) + 1, 0) AS expected
                FROM ${t.sql}),
          f AS (SELECT identifier, COUNT(*) AS n, MAX(stop) + 1 AS size, SUM(start) AS starts, MIN(mark) AS oldest, MAX(mark) AS newest, SUM(mark) AS marks,
                       MIN(CASE WHEN start <> expected OR len IS NULL OR len <> stop - start + 1 THEN start END) AS bad_start
                FROM r GROUP BY identifier)
     SELECT f.identifier, f.n, f.size, f.starts, f.oldest, f.newest, f.marks, f.bad_start,
            b.expected AS readable, b.len AS bad_length, b.stop AS bad_end
     FROM f LEFT JOIN r b ON b.identifier = f.identifier AND b.start = f.bad_start
     ORDER BY f.identifier`,
  );
  return rows.map((row) => {
    const size = Number(row.size);
    const file: TableFile = {
      name: row.identifier,
      path: `${t.display}/${row.identifier}`,
      size,
      stamp: `${row.n}:${size}:${row.starts}:${row.oldest}:${row.newest}:${row.marks}`,
      rows: Number(row.n),
    };
    if (row.bad_start === null) return file;
    const start = Number(row.bad_start);
    const readable = Number(row.readable);
    const what =
      start > readable
        ? `a gap: no row holds offsets ${readable}..${start - 1}`
        : start < readable
          ? `overlapping rows at offset ${start} (the previous row ends at ${readable - 1})`
          : `row at offset ${start}: length ${row.bad_length === null ? 'null' : Number(row.bad_length)} of data for range ${start}..${Number(row.bad_end)}`;
    return { ...file, size: readable, problem: `rows of ${row.identifier} in table ${t.display}: ${what}; read up to offset ${readable} of ${size}` };
  });
}

/** Rows holding `[from, to)` of a file, whole (the first may begin before `from`, the last end after `to`), in order. */
export async function readRows(queries: RowQueries, file: FileLocation, from: number, to: number): Promise<FileRow[]> {
  const sql = file.table.sql;
  const rows = await queries.all<{ start: number | bigint; data: Uint8Array }>(
    `SELECT start, data FROM ${sql}
     WHERE identifier = ? AND start < ? AND start >= COALESCE((SELECT MAX(start) FROM ${sql} WHERE identifier = ? AND start <= ?), 0)
     ORDER BY start`,
    [file.identifier, to, file.identifier, from],
  );
  return rows.map((row) => ({ start: Number(row.start), data: asBuffer(row.data) }));
}

/** A whole (small) file: its rows concatenated up to the first break; STORAGE_FILE_GONE without rows. */
export async function readWholeFile(queries: RowQueries, file: FileLocation): Promise<Buffer> {
  const rows = await queries.all<{ start: number | bigint; data: Uint8Array }>(`SELECT start, data FROM ${file.table.sql} WHERE identifier = ? ORDER BY start`, [
    file.identifier,
  ]);
  if (rows.length === 0) throw new StorageError('STORAGE_FILE_GONE', `${file.path} no longer exists`);
  const parts: Buffer[] = [];
  let expected = 0;
  for (const row of rows) {
    if (Number(row.start) !== expected) break;
    parts.push(asBuffer(row.data));
    expected += row.data.length;
  }
  return Buffer.concat(parts, expected);
}

/**
 * Bytes asked for per statement of a sequential pass: rows of one small commit each come many at
 * a time, 1 MiB rows a few, and memory stays bounded whatever the file's size.
 */
const PASS_BYTES = 4 * 1024 * 1024;

/** `[from, to)` as the rows' bytes, a bounded range per statement; ends early where the rows end or break off. */
export async function* streamRange(queries: RowQueries, file: FileLocation, from: number, to: number): AsyncGenerator<Uint8Array> {
  let at = from;
  while (at < to) {
    const before = at;
    const rows = await readRows(queries, file, at, Math.min(to, at + PASS_BYTES));
    if (rows.length === 0 || rows[0]!.start > at) return;
    let expected = rows[0]!.start;
    for (const row of rows) {
      if (row.start !== expected) return;
      const rowEnd = row.start + row.data.length;
      expected = rowEnd;
      if (rowEnd > at) {
        yield row.data.subarray(at - row.start, Math.min(to, rowEnd) - row.start);
        at = Math.min(to, rowEnd);
      }
    }
    // No row beyond what was read: the file ends here.
    if (at === before) return;
  }
}

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}
