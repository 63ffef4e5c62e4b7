import type pg from 'pg';
import { StorageError, UsageError } from '../../errors.js';
import type { SourceFile } from '../source/source.js';

/**
 * The tables MicroStream's and EclipseStore's SQL file system (`filesystem.sql` / `afs-sql`,
 * `SqlProviderPostgres`) keeps a storage in: one table per directory, named by joining the path
 * with `_` in MicroStream 4.1 and `$` in EclipseStore (the storage root `ms_graph` or `storage`
 * holds the type dictionary, `ms_graph_channel_<i>` or `storage$channel_<i>` the channel's data
 * files and transaction log). Columns: `identifier` (the file name), `start` and `end` (inclusive byte
 * range), `data` (bytea). A file is its rows in `start` order, contiguous from 0; a file without
 * rows does not exist.
 *
 * Everything here only reads (catalog lookups and SELECTs).
 */

/** A table of the storage, as found in the catalog. */
export interface StorageTable {
  readonly schema: string;
  readonly name: string;
  /** Quoted and schema-qualified, ready for SQL text. */
  readonly sql: string;
  /** How messages name it: qualified when the user gave a schema. */
  readonly display: string;
}

export interface StorageTables {
  readonly root: StorageTable;
  /** Channel tables by channel index. */
  readonly channels: ReadonlyMap<number, StorageTable>;
  /** What joins the root table's name and a folder's: `$` (EclipseStore) or `_` (MicroStream 4.1). */
  readonly separator: PathSeparator;
}

/** What the SQL file system joins path elements with: EclipseStore's `$`, MicroStream 4.1's `_`. */
export type PathSeparator = '$' | '_';

/** The names of a root table's channel tables, either separator (`<root>$channel_<i>`, `<root>_channel_<i>`). */
export function channelTablePattern(root: string): RegExp {
  return new RegExp(`^${escapeRegex(root)}([_$])channel_(0|[1-9][0-9]{0,3})$`);
}

/**
 * The channel tables among `names` (root and channel tables of both layouts): EclipseStore's `$`
 * where its channel 0 is there, else MicroStream 4.1's `_`. Throws a StorageError naming the
 * channel tables missing.
 */
export function pickChannelTables(root: string, names: Iterable<string>, where: string): { separator: PathSeparator; channels: Map<number, string> } {
  const pattern = channelTablePattern(root);
  const bySeparator = new Map<PathSeparator, Map<number, string>>([['$', new Map()], ['_', new Map()]]);
  for (const name of names) {
    const match = pattern.exec(name);
    if (match !== null) bySeparator.get(match[1] as PathSeparator)!.set(Number(match[2]), name);
  }
  const separator: PathSeparator | undefined = bySeparator.get('$')!.has(0) ? '$' : bySeparator.get('_')!.has(0) ? '_' : undefined;
  if (separator === undefined) {
    throw new StorageError('STORAGE_NOT_A_STORAGE', `${where}: no channel table ${root}_channel_0 next to ${root} (MicroStream 4.1's name; nor ${root}$channel_0, EclipseStore's)`);
  }
  const channels = bySeparator.get(separator)!;
  const highest = Math.max(...channels.keys());
  const missing: string[] = [];
  for (let i = 0; i < highest; i++) if (!channels.has(i)) missing.push(`${root}${separator}channel_${i}`);
  if (missing.length > 0) {
    throw new StorageError(
      'STORAGE_NOT_A_STORAGE',
      `${where}: missing channel table${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (found channels ${[...channels.keys()].sort((a, b) => a - b).join(', ')})`,
    );
  }
  return { separator, channels };
}

/** The root table as the user named it: `name` or `schema.name`. */
export interface TableName {
  readonly schema: string | undefined;
  readonly name: string;
}

export function parseTableName(text: string): TableName {
  const parts = text.split('.');
  const valid = (part: string | undefined): part is string => part !== undefined && part !== '' && !/[\s"]/.test(part);
  if (parts.length === 1 && valid(parts[0])) return { schema: undefined, name: parts[0] };
  if (parts.length === 2 && valid(parts[0]) && valid(parts[1])) return { schema: parts[0], name: parts[1] };
  throw new UsageError(`invalid table name "${text}": give the storage's root table as name or schema.name`);
}

const COLUMN_TYPES: Readonly<Record<string, readonly string[]>> = {
  identifier: ['character varying', 'text', 'character'],
  start: ['bigint'],
  end: ['bigint'],
  data: ['bytea'],
};
const LAYOUT_TEXT = 'identifier varchar(255), start bigint, "end" bigint, data bytea';

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Finds the root table (through the search path unless a schema is given, like MicroStream's
 * unqualified names) and its channel tables in the same schema, and checks their columns.
 * Throws a StorageError naming what is missing or wrong.
 */
export async function findStorageTables(client: pg.ClientBase, table: TableName, where: string): Promise<StorageTables> {
  const rootText = table.schema === undefined ? quote(table.name) : `${quote(table.schema)}.${quote(table.name)}`;
  const found = await client.query<{ schema: string; name: string; kind: string; column: string | null; type: string | null }>(
    `WITH root AS (SELECT c.relnamespace, c.relname FROM pg_catalog.pg_class c WHERE c.oid = pg_catalog.to_regclass($1))
     SELECT n.nspname AS schema, c.relname AS name, c.relkind::text AS kind, a.attname AS column,
            pg_catalog.format_type(a.atttypid, a.atttypmod) AS type
     FROM root r
     JOIN pg_catalog.pg_class c ON c.relnamespace = r.relnamespace
     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
     WHERE c.relname = r.relname OR c.relname ~ $2
     ORDER BY c.relname, a.attnum`,
    [rootText, channelTablePattern(table.name).source],
  );
  if (found.rows.length === 0) {
    const schemas = await client.query<{ path: string }>('SELECT pg_catalog.current_schemas(false)::text AS path');
    throw new StorageError(
      'STORAGE_NOT_A_STORAGE',
      `${where}: no table ${table.schema === undefined ? `${table.name} in the search path ${schemas.rows[0]?.path ?? ''}` : `${table.schema}.${table.name}`}` +
        ' (the storage root table of MicroStream\'s SQL file system; see --table)',
    );
  }
  const columns = new Map<string, { schema: string; kind: string; columns: Map<string, string> }>();
  for (const row of found.rows) {
    const entry = columns.get(row.name) ?? { schema: row.schema, kind: row.kind, columns: new Map<string, string>() };
    if (row.column !== null && row.type !== null) entry.columns.set(row.column, row.type);
    columns.set(row.name, entry);
  }
  const make = (name: string, schema: string): StorageTable => ({
    schema,
    name,
    sql: `${quote(schema)}.${quote(name)}`,
    display: table.schema === undefined ? name : `${schema}.${name}`,
  });
  if (!columns.has(table.name)) throw new StorageError('STORAGE_NOT_A_STORAGE', `${where}: no table ${table.name}`);
  const { separator, channels: channelNames } = pickChannelTables(table.name, columns.keys(), where);
  const problems: string[] = [];
  const check = (name: string): StorageTable => {
    const entry = columns.get(name)!;
    const t = make(name, entry.schema);
    for (const [column, types] of Object.entries(COLUMN_TYPES)) {
      const type = entry.columns.get(column);
      if (type === undefined) problems.push(`table ${t.display} has no column "${column}"`);
      else if (!types.some((expected) => type === expected || type.startsWith(`${expected}(`))) {
        problems.push(`table ${t.display}: column "${column}" is ${type}, expected ${types[0]}`);
      }
    }
    return t;
  };
  const relations = (name: string): boolean => ['r', 'p', 'v', 'm', 'f'].includes(columns.get(name)!.kind);
  if (!relations(table.name)) throw new StorageError('STORAGE_NOT_A_STORAGE', `${where}: no table ${table.name}`);
  const root = check(table.name);
  const channels = new Map<number, StorageTable>();
  for (const [index, name] of channelNames) if (relations(name)) channels.set(index, check(name));
  if (problems.length > 0) {
    throw new StorageError('STORAGE_NOT_A_STORAGE', `${where}: not the SQL file system's layout (${LAYOUT_TEXT}): ${problems.join('; ')}`);
  }
  // A channel table that is no relation (an index, a sequence) counts as missing.
  pickChannelTables(table.name, [...channels.values()].map((t) => t.name), where);
  return { root, channels, separator };
}

interface FileRow {
  identifier: string;
  rows: string;
  size: string;
  newest: string;
  oldest: string;
  bad_start: string | null;
  readable: string | null;
  why: string | null;
}

/**
 * The files of one table: name, size, a change stamp and, for rows that are not contiguous from 0
 * or whose data length disagrees with their range, the size up to the first such row and why.
 * One pass over the table's row headers (`octet_length` of a bytea does not read its value).
 */
/** A listed file with the number of rows it is kept in. */
export interface TableFile extends SourceFile {
  readonly rows: number;
}

export async function listTableFiles(client: pg.ClientBase, table: StorageTable): Promise<TableFile[]> {
  const result = await client.query<FileRow>(
    `SELECT identifier, count(*)::text AS rows, (max("end") + 1)::text AS size,
            max(xmin::text::bigint)::text AS newest, min(xmin::text::bigint)::text AS oldest,
            (array_agg(start ORDER BY start) FILTER (WHERE bad))[1]::text AS bad_start,
            (array_agg(expected ORDER BY start) FILTER (WHERE bad))[1]::text AS readable,
            (array_agg(why ORDER BY start) FILTER (WHERE bad))[1] AS why
     FROM (SELECT identifier, start, "end", xmin, expected,
                  start <> expected OR len IS DISTINCT FROM "end" - start + 1 AS bad,
                  CASE WHEN start > expected THEN 'gap' WHEN start < expected THEN 'overlap'
                       ELSE 'length ' || coalesce(len::text, 'null') || ' of data for range ' || start || '..' || "end" END AS why
           FROM (SELECT identifier, start, "end", xmin, octet_length(data) AS len,
                        coalesce(lag("end") OVER (PARTITION BY identifier ORDER BY start) + 1, 0) AS expected
                 FROM ${table.sql}) r) f
     GROUP BY identifier`,
  );
  return result.rows.map((row) => {
    const path = `${table.display}/${row.identifier}`;
    const readable = row.readable === null ? undefined : Number(row.readable);
    const file: TableFile = {
      name: row.identifier,
      path,
      size: readable ?? Number(row.size),
      stamp: `${row.rows}:${row.size}:${row.oldest}:${row.newest}`,
      rows: Number(row.rows),
    };
    if (readable === undefined) return file;
    const start = Number(row.bad_start);
    const what =
      row.why === 'gap'
        ? `a gap: no row holds offsets ${readable}..${start - 1}`
        : row.why === 'overlap'
          ? `overlapping rows at offset ${start} (the previous row ends at ${readable - 1})`
          : `row at offset ${start}: ${row.why ?? ''}`;
    return { ...file, problem: `rows of ${row.identifier} in table ${table.display}: ${what}; read up to offset ${readable} of ${row.size}` };
  });
}
