import { rmSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Storage } from '../../storage/storage.js';
import { quoteText } from '../tables/column-model.js';
import { EXPORT_PARQUET_OPTIONS } from '../tables/parquet-options.js';
import { ParquetRowWriter, type ParquetColumn } from '../tables/parquet-rows.js';
import { linkPass, stagedElementsSelect, type LinkType } from './link-tables.js';

/**
 * An export's `_elements` and `_references` as Parquet without DuckDB's appender: the link pass
 * writes its rows into Parquet files of our own (uncompressed, from typed arrays: the appender
 * took one thread about 16 s for the 48M rows of a 10M-object storage), and DuckDB's COPY reads
 * them with its parallel reader and writes the exported files as it writes every other table
 * (zstd), the staged elements joined to their value objects' texts in the same statement. An
 * export that keeps its tables in the cache keeps the exported files themselves (built-tables.ts
 * `copyLinkTables`). The files of our own lie beside the exported ones and are removed once read
 * (or on a failure).
 */

const ELEMENT_COLUMNS: readonly ParquetColumn[] = [
  { name: 'owner', type: 'int64', nullable: false },
  { name: 'position', type: 'int64', nullable: false },
  { name: 'key_text', type: 'text', nullable: true },
  { name: 'key_oid', type: 'int64', nullable: true },
  { name: 'value_text', type: 'text', nullable: true },
  { name: 'value_oid', type: 'int64', nullable: true },
  // The same name for every element of a list: runs of dictionary indices, not a text per row.
  { name: 'member', type: 'text', nullable: false, dictionary: true },
];

/** Staged elements: the member as a code, named in the members' file. */
const STAGED_COLUMNS: readonly ParquetColumn[] = [...ELEMENT_COLUMNS.slice(0, 6), { name: 'member', type: 'int32', nullable: false }];

const MEMBER_COLUMNS: readonly ParquetColumn[] = [
  { name: 'code', type: 'int32', nullable: false },
  { name: 'name', type: 'text', nullable: false },
];

const REFERENCE_COLUMNS: readonly ParquetColumn[] = [
  { name: 'from_oid', type: 'int64', nullable: false },
  { name: 'to_oid', type: 'int64', nullable: false },
  { name: 'member', type: 'text', nullable: false, dictionary: true },
];

/** The link pass's rows staged in Parquet files of our own (`stageLinkRows`), and how a statement reads each table's rows from them. */
interface StagedLinkRows {
  readonly paths: { readonly direct: string; readonly staged: string; readonly members: string; readonly references: string };
  /** Per table: the SELECT of its rows (`_elements`' staged elements joined to their texts from `_values`). */
  readonly selects: ReadonlyMap<string, string>;
}

/**
 * Runs the link pass into Parquet files of our own named `prefix` and a suffix each, then `use`s
 * them; the files are removed afterwards, whatever happened.
 */
async function withStagedLinkRows<T>(storage: Storage, types: ReadonlyMap<bigint, LinkType>, prefix: string, use: (rows: StagedLinkRows) => Promise<T>): Promise<T> {
  const scratch = (name: string): string => `${prefix}.${name}.rows`;
  const paths = { direct: scratch('elements'), staged: scratch('staged'), members: scratch('members'), references: scratch('references') };
  const writers: ParquetRowWriter[] = [];
  try {
    const direct = new ParquetRowWriter(paths.direct, ELEMENT_COLUMNS);
    writers.push(direct);
    const staged = new ParquetRowWriter(paths.staged, STAGED_COLUMNS);
    writers.push(staged);
    const references = new ParquetRowWriter(paths.references, REFERENCE_COLUMNS);
    writers.push(references);
    const members = await linkPass(storage, types, { direct, staged, references });
    for (const writer of writers) writer.closeSync();
    const names = new ParquetRowWriter(paths.members, MEMBER_COLUMNS);
    writers.push(names);
    for (const [name, code] of members) {
      names.appendInteger(code);
      names.appendVarchar(name);
      names.endRow();
    }
    names.closeSync();
    const read = (path: string): string => `read_parquet(${quoteText(path)})`;
    const selects = new Map([
      ['_elements', `SELECT * FROM ${read(paths.direct)} UNION ALL SELECT * FROM (${stagedElementsSelect(read(paths.staged), read(paths.members))})`],
      ['_references', `SELECT * FROM ${read(paths.references)}`],
    ]);
    return await use({ paths, selects });
  } catch (error) {
    // Closed without a footer (a no-op for those closed already); removed below.
    for (const writer of writers) writer.abort();
    throw error;
  } finally {
    for (const path of Object.values(paths)) rmSync(path, { force: true });
  }
}

/**
 * Writes `_elements` and `_references` (`files`, by lower-case table name) as DuckDB writes
 * every table (zstd), `_values` read from `connection`'s database for the texts of value objects.
 * Rows per table written.
 */
export async function writeLinkTablesAsParquet(connection: DuckDBConnection, storage: Storage, types: ReadonlyMap<bigint, LinkType>, files: ReadonlyMap<string, string>): Promise<Map<string, number>> {
  const first = files.values().next().value;
  if (first === undefined) return new Map();
  return withStagedLinkRows(storage, types, first, async ({ selects }) => {
    const rows = new Map<string, number>();
    for (const [table, file] of files) {
      const select = selects.get(table);
      if (select === undefined) continue;
      const reader = await connection.runAndReadAll(`COPY (${select}) TO ${quoteText(file)} (${EXPORT_PARQUET_OPTIONS})`);
      rows.set(table, Number(reader.getRows()[0]![0]));
    }
    return rows;
  });
}
