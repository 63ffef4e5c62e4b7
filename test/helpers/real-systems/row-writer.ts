import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes storage files into tables the way EclipseStore's SQL file system does in SQLite and
 * MariaDB (see test/fixtures/conformance-afs-sql/README.md): one table per directory joined with
 * `$` (`<root>`, `<root>$channel_<i>`), a write as rows appended at the file's size (SQLite splits
 * at 1 MiB, MariaDB keeps one row per write), deletion by identifier, truncation by deleting the
 * rows after the cut and rewriting the row it falls into. `transaction` groups writes the way a
 * test wants a reader to see them: all at once.
 */

export interface RowStatements {
  run(sql: string, params?: readonly unknown[]): Promise<void>;
  rows<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  transaction(fn: () => Promise<void>): Promise<void>;
}

export interface WriterDialect {
  readonly quote: (identifier: string) => string;
  readonly blobType: string;
  /** Rows of one write are split at this size (Infinity: one row per write). */
  readonly maxRowBytes: number;
}

export const SQLITE_WRITER: WriterDialect = { quote: (n) => `"${n}"`, blobType: 'blob', maxRowBytes: 1024 * 1024 };
export const MARIADB_WRITER: WriterDialect = { quote: (n) => `\`${n}\``, blobType: 'longblob', maxRowBytes: Number.POSITIVE_INFINITY };

export class RowWriter {
  constructor(
    private readonly db: RowStatements,
    private readonly dialect: WriterDialect,
    readonly root: string,
  ) {}

  /** The table of a path relative to the storage directory (`PersistenceTypeDictionary.ptd`, `channel_0/channel_0_1.dat`). */
  table(path: string): { table: string; identifier: string } {
    const parts = path.split('/');
    const identifier = parts.pop() as string;
    return { table: [this.root, ...parts].join('$'), identifier };
  }

  tableNames(channels: number): string[] {
    return [this.root, ...Array.from({ length: channels }, (_, i) => `${this.root}$channel_${i}`)];
  }

  async createTables(channels: number): Promise<void> {
    const q = this.dialect.quote;
    for (const table of this.tableNames(channels)) {
      await this.db.run(
        `CREATE TABLE ${q(table)} (${q('identifier')} varchar(255) NOT NULL, ${q('start')} bigint NOT NULL, ${q('end')} bigint NOT NULL, ${q('data')} ${this.dialect.blobType} NOT NULL, PRIMARY KEY (${q('identifier')}, ${q('start')}))`,
      );
    }
  }

  async size(path: string): Promise<number> {
    const { table, identifier } = this.table(path);
    const q = this.dialect.quote;
    const rows = await this.db.rows<{ size: number | bigint | null }>(`SELECT MAX(${q('end')}) + 1 AS size FROM ${q(table)} WHERE identifier = ?`, [identifier]);
    return Number(rows[0]?.size ?? 0);
  }

  async append(path: string, data: Buffer): Promise<void> {
    const { table, identifier } = this.table(path);
    const q = this.dialect.quote;
    let at = await this.size(path);
    for (let offset = 0; offset < data.length; offset += Math.min(data.length, this.dialect.maxRowBytes)) {
      const row = data.subarray(offset, Math.min(data.length, offset + this.dialect.maxRowBytes));
      await this.db.run(`INSERT INTO ${q(table)} (identifier, start, ${q('end')}, data) VALUES (?, ?, ?, ?)`, [identifier, at, at + row.length - 1, row]);
      at += row.length;
    }
  }

  async truncate(path: string, length: number): Promise<void> {
    const { table, identifier } = this.table(path);
    const q = this.dialect.quote;
    const cut = await this.db.rows<{ start: number | bigint; data: Buffer }>(
      `SELECT start, data FROM ${q(table)} WHERE identifier = ? AND start < ? AND ${q('end')} >= ?`,
      [identifier, length, length],
    );
    await this.db.run(`DELETE FROM ${q(table)} WHERE identifier = ? AND ${q('end')} >= ?`, [identifier, length]);
    const row = cut[0];
    if (row !== undefined) {
      const start = Number(row.start);
      await this.db.run(`INSERT INTO ${q(table)} (identifier, start, ${q('end')}, data) VALUES (?, ?, ?, ?)`, [identifier, start, length - 1, row.data.subarray(0, length - start)]);
    }
  }

  async delete(path: string): Promise<void> {
    const { table, identifier } = this.table(path);
    await this.db.run(`DELETE FROM ${this.dialect.quote(table)} WHERE identifier = ?`, [identifier]);
  }

  /** Copies a storage directory (dictionary, channel directories) into new tables. */
  async loadDirectory(directory: string): Promise<void> {
    const channels = readdirSync(directory).filter((n) => /^channel_\d+$/.test(n));
    await this.createTables(channels.length);
    for (const name of readdirSync(directory)) {
      const path = join(directory, name);
      if (statSync(path).isDirectory()) {
        for (const file of readdirSync(path).sort()) await this.append(`${name}/${file}`, readFileSync(join(path, file)));
      } else if (name === 'PersistenceTypeDictionary.ptd') {
        await this.append(name, readFileSync(path));
      }
    }
  }
}
