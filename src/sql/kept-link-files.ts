import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteText } from './tables/column-model.js';
import { LINK_TABLES } from './fills/link-tables.js';

/**
 * The link tables (`_elements`, `_references`) a cache entry kept as Parquet files, taken into
 * the private directory only when a statement or an export first needs one (copied, its hash
 * checked, then the table made a view over the copy): at 10M objects the two files are ~100 MB,
 * which every run opening the entry copied and hashed before, whatever it asked. The sandbox is
 * locked with the copies' paths allowed before they exist (DuckDB's `allowed_paths` takes paths
 * not there yet), so the views can be made after the lock.
 */

/** A link table as a Parquet file in the private directory (its rows as an export wrote them). */
export interface LinkFile {
  readonly path: string;
  readonly rows: number;
}

export class KeptLinkFiles {
  /** Per table: its take under way or done (true: the copy is whole and the view made). */
  private readonly taking = new Map<string, Promise<boolean>>();
  private readonly taken = new Set<string>();

  constructor(
    /** Per table the entry kept: where its copy goes, and its rows. */
    readonly files: ReadonlyMap<string, LinkFile>,
    /** Copies the entry's file of `table` to its place, checked (table-cache.ts `takeLinkFile`). */
    private readonly takeFile: (table: string) => Promise<boolean>,
  ) {}

  /** Whether `table` was taken: its copy whole, its view made. */
  isTaken(table: string): boolean {
    return this.taken.has(table);
  }

  /**
   * `table` taken once (a second caller waits for the first): false when the entry's file was
   * gone or damaged (the entry dropped). `makeView` makes the table a view over the copy. A take
   * that threw (a full disk) is forgotten, so that a later caller tries again.
   */
  take(table: string, makeView: (path: string) => Promise<void>): Promise<boolean> {
    let taking = this.taking.get(table);
    if (taking === undefined) {
      const file = this.files.get(table);
      taking = (async () => {
        if (file === undefined || !(await this.takeFile(table))) return false;
        await makeView(file.path);
        this.taken.add(table);
        return true;
      })();
      this.taking.set(table, taking);
      taking.catch(() => this.taking.delete(table));
    }
    return taking;
  }
}

/**
 * The link tables of `files` (by table name) made views over their copies: the database holds them
 * as empty tables (or, kept again by a run that read them so, as views over another run's private
 * directory, long removed), replaced in one transaction.
 */
export async function linkViews(connection: DuckDBConnection, files: ReadonlyMap<string, string>): Promise<void> {
  if (files.size === 0) return;
  const kinds = new Map<string, string>();
  const reader = await connection.runAndReadAll(
    `SELECT table_name, 'TABLE' FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' UNION ALL SELECT view_name, 'VIEW' FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal`,
  );
  for (const [name, kind] of reader.getRows()) kinds.set(String(name), String(kind));
  await connection.run('BEGIN TRANSACTION');
  try {
    for (const [table, file] of files) {
      if (kinds.get(table) === 'TABLE') await connection.run(`DROP TABLE ${quoteIdent(table)}`);
      await connection.run(`CREATE OR REPLACE VIEW ${quoteIdent(table)} AS SELECT * FROM read_parquet(${quoteText(file)})`);
    }
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** The empty table `table` is in a build (fills/link-tables.ts `LINK_TABLES`): what a fill inserts into. */
export function linkTableDefinition(table: string): string {
  const definition = LINK_TABLES.split(';').map((text) => text.trim()).find((text) => text.startsWith(`CREATE TABLE ${table} (`));
  if (definition === undefined) throw new Error(`no link table ${table}`);
  return definition;
}
