import { StorageError } from '../../errors.js';
import { assembleRange, type FileLocation } from '../postgres/postgres-rows.js';
import type { StorageTable, TableFile } from '../postgres/postgres-tables.js';
import { DEFAULT_ROW_CACHE_BYTES, RowCache } from '../postgres/row-cache.js';
import type { RootListing, SourceFile, SourceFolder, SourceReader, StorageSource } from '../source/source.js';
import type { RowDatabase, RowQueries } from './row-database.js';
import { findTables, listFiles, readRows, readWholeFile, rootTables, streamRange, type FoundTables } from './table-layout.js';
import { StatementTurns } from '../postgres/statement-turns.js';

/**
 * A storage kept by the SQL file system in SQLite or MariaDB/MySQL (see table-layout.ts), read
 * through a RowDatabase: a refresh reads inside one snapshot, an entity read is one statement,
 * rows read lately are kept (the committed part of them) so that neighbouring records cost no
 * further statement. Read-only: the databases open read-only connections (see each one).
 */

export interface TableSourceOptions {
  readonly database: RowDatabase;
  /** The storage's root table; undefined: the one root table the database holds. */
  readonly table: string | undefined;
  /** How messages name the storage (no password). */
  readonly location: string;
  readonly cacheBytes?: number;
}

export class TableSource implements StorageSource {
  readonly kind: string;
  readonly location: string;
  private readonly database: RowDatabase;
  private readonly cache: RowCache;
  /** Where each listed file is kept (filled by listings). */
  private readonly files = new Map<string, FileLocation>();
  private tables: FoundTables | undefined;
  private rootName: string | undefined;
  private closed = false;

  constructor(options: TableSourceOptions) {
    this.database = options.database;
    this.kind = options.database.kind;
    this.location = options.location;
    this.rootName = options.table;
    this.cache = new RowCache(options.cacheBytes ?? DEFAULT_ROW_CACHE_BYTES);
  }

  async snapshot<T>(fn: (reader: SourceReader) => Promise<T>): Promise<T> {
    this.refuseClosed();
    try {
      return await this.database.snapshot((queries) => fn(new SnapshotReader(this, queries)));
    } catch (error) {
      throw this.database.explain(error);
    }
  }

  async read(path: string, position: number, length: number, committedLength?: number): Promise<Buffer> {
    const cached = this.cache.read(path, position, length);
    if (cached !== undefined) return cached;
    const file = this.locate(path);
    const rows = await this.single((queries) => readRows(queries, file, position, position + length));
    const bytes = assembleRange(rows, file, position, length);
    if (committedLength !== undefined) {
      for (const row of rows) {
        const keep = Math.min(row.data.length, committedLength - row.start);
        if (keep > 0) this.cache.put(path, row.start, row.data.subarray(0, keep));
      }
    }
    return bytes;
  }

  /** Outside a snapshot: the range is read in a snapshot of its own. */
  async *chunks(path: string, from: number, to: number): AsyncGenerator<Uint8Array> {
    const file = this.locate(path);
    // A bounded range per statement (see streamRange); each statement reads one instant, and
    // committed bytes are never rewritten, so the pass needs no transaction held open.
    yield* streamRange({ all: (sql, params) => this.single((q) => q.all(sql, params)) }, file, from, to);
  }

  readWhole(path: string): Promise<Buffer> {
    const file = this.locate(path);
    return this.single((queries) => readWholeFile(queries, file));
  }

  /** The SQL file system names a file by its path elements joined with the tables' separator: `storage$channel_0$channel_0_1.dat`. */
  javaFilePath(folder: string, name: string): string {
    const separator = this.tables?.separator ?? '$';
    return `${this.rootName ?? ''}${separator}${folder}${separator}${name}`;
  }

  rootFilePath(name: string): string {
    return `${this.rootName ?? ''}/${name}`;
  }

  forget(path: string): void {
    this.cache.forget(path);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cache.clear();
    await this.database.close();
  }

  /** @internal the listing of the root table. */
  async listRootWith(queries: RowQueries): Promise<RootListing> {
    const root = this.rootName ?? (this.rootName = await this.onlyRoot(queries));
    const tables = await findTables(this.database, queries, root, this.location);
    const gone = [...(this.tables?.channels.values() ?? [])].filter((t) => ![...tables.channels.values()].some((n) => n.name === t.name));
    if (gone.length > 0) {
      throw new StorageError('STORAGE_INCONSISTENT', `${this.location}: table ${gone.map((t) => t.display).join(', ')} disappeared`);
    }
    this.tables = tables;
    const files = this.register(tables.root, await listFiles(this.database, queries, tables.root, true));
    const folders = [...tables.channels.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, t]): SourceFolder => ({ name: `channel_${index}`, path: t.display }));
    return { files, folders };
  }

  /** @internal */
  async listFolderWith(queries: RowQueries, folder: SourceFolder): Promise<readonly SourceFile[]> {
    const t = this.tables?.channels.get(Number(folder.name.slice('channel_'.length)));
    if (t === undefined) throw new StorageError('STORAGE_NOT_A_STORAGE', `${this.location}: no table for ${folder.name}`);
    return this.register(t, await listFiles(this.database, queries, t));
  }

  /** @internal */
  locate(path: string): FileLocation {
    const file = this.files.get(path);
    if (file === undefined) throw new StorageError('STORAGE_FILE_GONE', `${path} is not a file of ${this.location}`);
    return file;
  }

  /** Given no root table: the one the database holds, or an error naming them all. */
  private async onlyRoot(queries: RowQueries): Promise<string> {
    const roots = await rootTables(this.database, queries);
    if (roots.length === 1) return roots[0]!;
    throw new StorageError(
      'STORAGE_NOT_A_STORAGE',
      roots.length === 0
        ? `${this.location}: no storage tables (a root table with <root>$channel_0 beside it)`
        : `${this.location}: ${roots.length} storages (${roots.join(', ')}): name one with --table`,
    );
  }

  private async single<T>(fn: (queries: RowQueries) => Promise<T>): Promise<T> {
    this.refuseClosed();
    try {
      return await this.database.single(fn);
    } catch (error) {
      throw this.database.explain(error);
    }
  }

  private refuseClosed(): void {
    if (this.closed) throw new StorageError('STORAGE_NOT_OPEN', `${this.location}: closed`);
  }

  private register(t: StorageTable, listed: TableFile[]): SourceFile[] {
    for (const [path, file] of this.files) if (file.table.display === t.display) this.files.delete(path);
    for (const file of listed) {
      this.files.set(file.path, { table: t, identifier: file.name, path: file.path, rowBytes: file.size / Math.max(1, file.rows) });
    }
    return listed;
  }
}

/** What one refresh reads through: the snapshot's statements, one at a time. */
class SnapshotReader implements SourceReader {
  readonly oneInstant = true;
  private readonly turns = new StatementTurns();

  constructor(
    private readonly source: TableSource,
    private readonly queries: RowQueries,
  ) {}

  listRoot(): Promise<RootListing> {
    return this.turns.exclusive(() => this.source.listRootWith(this.queries));
  }

  listFolder(folder: SourceFolder): Promise<readonly SourceFile[]> {
    return this.turns.exclusive(() => this.source.listFolderWith(this.queries, folder));
  }

  read(path: string, position: number, length: number): Promise<Buffer> {
    const file = this.source.locate(path);
    return this.turns.exclusive(async () => assembleRange(await readRows(this.queries, file, position, position + length), file, position, length));
  }

  async *chunks(path: string, from: number, to: number): AsyncGenerator<Uint8Array> {
    const file = this.source.locate(path);
    const release = await this.turns.turn();
    try {
      yield* streamRange(this.queries, file, from, to);
    } finally {
      release();
    }
  }

  readWhole(path: string): Promise<Buffer> {
    const file = this.source.locate(path);
    return this.turns.exclusive(() => readWholeFile(this.queries, file));
  }
}
