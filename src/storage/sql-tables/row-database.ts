/**
 * What a database that keeps a storage's files as rows offers the table source
 * (`table-source.ts`), whatever the database: statements inside one snapshot, statements on their
 * own, and how its SQL spells names. SQLite (`sqlite-database.ts`) and MariaDB/MySQL
 * (`mariadb-database.ts`) implement it; PostgreSQL has its own source (`storage/postgres/`).
 */

/** Runs one read-only statement (`?` placeholders) and returns all its rows. */
export interface RowQueries {
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

export interface RowDatabase {
  /** `sqlite`, `mariadb`: what `StorageSource.kind` says. */
  readonly kind: string;
  /** An identifier quoted for this dialect's SQL text. */
  quote(identifier: string): string;
  /**
   * An expression per row that changes when a row is replaced by another one with the same range
   * (SQLite's rowid; a constant where the database has nothing of the kind).
   */
  readonly rowMark: string;
  /**
   * An expression per row that changes with its bytes (a CRC-32 of `data`), for the root table:
   * the type dictionary is rewritten whole (its row deleted, a new one inserted), possibly at the
   * same size, and SQLite gives the new row the old one's rowid.
   */
  readonly contentMark: string;
  /** The tables and their columns whose name starts with `prefix` (lower-case column types). */
  tables(queries: RowQueries, prefix: string): Promise<TableColumns[]>;
  /** `fn`'s statements all see one instant of the database, and none writes. */
  snapshot<T>(fn: (queries: RowQueries) => Promise<T>): Promise<T>;
  /** Statements outside any snapshot (each one reads one instant). */
  single<T>(fn: (queries: RowQueries) => Promise<T>): Promise<T>;
  /** An error of the driver or the database as a StorageError naming the storage. */
  explain(error: unknown): unknown;
  close(): Promise<void>;
}

export interface TableColumns {
  readonly name: string;
  /** Column name → declared type, lower case (`varchar(255)`, `bigint`, `longblob`, `blob`). */
  readonly columns: ReadonlyMap<string, string>;
}
