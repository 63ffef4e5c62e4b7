import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';

/**
 * Writes storage files into tables the way MicroStream 4.1's SQL file system does with
 * PostgreSQL (see test/fixtures/conformance-sql/README.md): one table per directory
 * (`<root>`, `<root>_channel_<i>`), a file as rows of at most 1 MiB appended at its current size,
 * deletion by identifier, truncation by deleting the rows after the cut and rewriting the row it
 * falls into. Every call is its own statement in autocommit, as the connector's JDBC calls are:
 * a reader can see every step in between.
 */

export const MAX_ROW_BYTES = 1024 * 1024;

export class SqlConnector {
  constructor(
    private readonly client: pg.ClientBase,
    /** The storage root table, e.g. `ms_graph`. */
    readonly root: string,
    private readonly schema = 'public',
    /** The connector writes rows of at most 1 MiB; smaller ones stand for one row per small commit. */
    private readonly maxRowBytes = MAX_ROW_BYTES,
  ) {}

  /** The table of a path relative to the storage directory (`PersistenceTypeDictionary.ptd`, `channel_0/channel_0_1.dat`). */
  table(path: string): { table: string; identifier: string } {
    const parts = path.split('/');
    const identifier = parts.pop() as string;
    return { table: [this.root, ...parts].join('_'), identifier };
  }

  private sql(table: string): string {
    return `"${this.schema}"."${table}"`;
  }

  async createTables(channels: number): Promise<void> {
    for (const table of [this.root, ...Array.from({ length: channels }, (_, i) => `${this.root}_channel_${i}`)]) {
      await this.client.query(
        `CREATE TABLE IF NOT EXISTS ${this.sql(table)} (identifier varchar(255) NOT NULL, start bigint NOT NULL, "end" bigint NOT NULL, data bytea NOT NULL, CONSTRAINT "${table}_pk" PRIMARY KEY (identifier, start))`,
      );
    }
  }

  async size(path: string): Promise<number> {
    const { table, identifier } = this.table(path);
    const result = await this.client.query<{ size: string | null }>(`SELECT max("end") + 1 AS size FROM ${this.sql(table)} WHERE identifier = $1`, [identifier]);
    return Number(result.rows[0]?.size ?? 0);
  }

  /** Appends at the file's current size, in rows of at most 1 MiB. */
  async append(path: string, data: Buffer): Promise<void> {
    const { table, identifier } = this.table(path);
    let at = await this.size(path);
    for (let offset = 0; offset < data.length; offset += this.maxRowBytes) {
      const row = data.subarray(offset, Math.min(data.length, offset + this.maxRowBytes));
      await this.client.query(`INSERT INTO ${this.sql(table)} (identifier, start, "end", data) VALUES ($1, $2, $3, $4)`, [
        identifier,
        at,
        at + row.length - 1,
        row,
      ]);
      at += row.length;
    }
  }

  /** Cuts the file to `length` bytes: rows after the cut are deleted, the row holding it rewritten shorter. */
  async truncate(path: string, length: number): Promise<void> {
    const { table, identifier } = this.table(path);
    const t = this.sql(table);
    const cut = await this.client.query<{ start: string; data: Buffer }>(
      `SELECT start, data FROM ${t} WHERE identifier = $1 AND start < $2 AND "end" >= $2`,
      [identifier, length],
    );
    await this.client.query(`DELETE FROM ${t} WHERE identifier = $1 AND "end" >= $2`, [identifier, length]);
    const row = cut.rows[0];
    if (row !== undefined) {
      const start = Number(row.start);
      await this.client.query(`INSERT INTO ${t} (identifier, start, "end", data) VALUES ($1, $2, $3, $4)`, [
        identifier,
        start,
        length - 1,
        row.data.subarray(0, length - start),
      ]);
    }
  }

  async delete(path: string): Promise<void> {
    const { table, identifier } = this.table(path);
    await this.client.query(`DELETE FROM ${this.sql(table)} WHERE identifier = $1`, [identifier]);
  }

  /** Copies a storage directory (dictionary, channel directories) into the tables. */
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
