import type pg from 'pg';
import { isAppError, StorageError } from '../../errors.js';
import { findStorageTables, listTableFiles, type StorageTable, type StorageTables, type TableFile, type TableName } from './postgres-tables.js';
import { assembleRange, readRows, readWholeFile, streamRange, type FileLocation } from './postgres-rows.js';
import { DEFAULT_ROW_CACHE_BYTES, RowCache } from './row-cache.js';
import type { RootListing, SourceFile, SourceFolder, SourceReader, StorageSource } from '../source/source.js';
import { StatementTurns } from './statement-turns.js';

/**
 * A storage that MicroStream 4.1 or EclipseStore keeps in PostgreSQL through its SQL file system (see
 * postgres-tables.ts for the layout), read with node-postgres.
 *
 * Read-only, provably: every session is set to `default_transaction_read_only`, a state is read
 * inside one `REPEATABLE READ, READ ONLY` transaction (all tables seen at one instant; no locks
 * but the ACCESS SHARE a SELECT takes), entity reads are single SELECTs; nothing creates
 * temporary tables or writes. The minimal role needs SELECT on the storage's tables only.
 *
 * Connection failures become STORAGE_UNAVAILABLE errors naming the database; each read asks the
 * pool for a connection again, so a database that comes back is used again without a restart.
 */

export interface PostgresSourceOptions {
  /** node-postgres settings (host, port, user, database, ssl, password function); PG* variables fill the rest. */
  readonly connection: pg.PoolConfig;
  /** The storage's root table. */
  readonly table: TableName;
  /** How messages name the storage: the URL without password, and the table. */
  readonly location: string;
  readonly cacheBytes?: number;
  readonly poolSize?: number;
}

/** SQLSTATE classes and Node errors that mean the connection, not the query, failed. */
const CONNECTION_CODES = /^(08|57P0|53300|3D000|28)|^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH)$/;

/** Connections of the background reads (the graph index build): one, apart from the requests' pool. */
const BACKGROUND_CONNECTIONS = 1;

/** Tries of a read whose connection broke, and the pause before each further try (times the try). */
const CONNECTION_ATTEMPTS = 3;
const RETRY_DELAY_MS = 25;

export class PostgresSource implements StorageSource {
  readonly kind = 'postgresql';
  readonly location: string;
  /** The connection pool, made on the first read: the PostgreSQL client is loaded only by a command that reads such a storage. */
  private pool: Promise<pg.Pool> | undefined;
  /** The background reads' own pool (made on first use). */
  private backgroundPool: Promise<pg.Pool> | undefined;
  private readonly prepared = new WeakSet<pg.PoolClient>();
  private readonly cache: RowCache;
  /** Where each listed file is kept (filled by listings). */
  private readonly files = new Map<string, FileLocation>();
  private tables: StorageTables | undefined;
  private closed = false;
  /** The last failure of an idle connection (the pool reports those apart from any query). */
  lastIdleError: Error | undefined;

  constructor(private readonly options: PostgresSourceOptions) {
    this.location = options.location;
    this.cache = new RowCache(options.cacheBytes ?? DEFAULT_ROW_CACHE_BYTES);
  }

  /** The requests' pool. */
  private connectionPool(): Promise<pg.Pool> {
    this.pool ??= this.makePool('storage-inspector', this.options.poolSize ?? 8);
    return this.pool;
  }

  private async makePool(applicationName: string, max: number): Promise<pg.Pool> {
    const [{ default: pg }, { ClosingClient }] = await Promise.all([import('pg'), import('./closing-client.js')]);
    const pool = new pg.Pool({
      application_name: applicationName,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      max,
      Client: ClosingClient,
      ...this.options.connection,
    });
    // A connection that breaks (server restart, network) must not take the process down: the
    // pool listens on idle ones only, so every connection also gets a listener of its own for the
    // time a snapshot or a stream holds it between statements. Its next statement then fails as a
    // connection error, and the connection is dropped and replaced.
    pool.on('error', (error) => {
      this.lastIdleError = error;
    });
    pool.on('connect', (client) => {
      client.on('error', (error) => {
        this.lastIdleError = error;
      });
    });
    return pool;
  }

  /**
   * The graph index build's reads, over a connection of their own: a build streams every row of
   * the storage, and requests for single objects no longer wait for the pool meanwhile.
   */
  get background(): { chunks: (path: string, from: number, to: number) => AsyncGenerator<Uint8Array> } {
    this.backgroundPool ??= this.makePool('storage-inspector (graph index)', BACKGROUND_CONNECTIONS);
    const pool = this.backgroundPool;
    return { chunks: (path, from, to) => this.chunksFrom(pool, path, from, to) };
  }

  async snapshot<T>(fn: (reader: SourceReader) => Promise<T>): Promise<T> {
    const client = await this.begin();
    let broken: Error | undefined;
    try {
      const result = await fn(new SnapshotReader(this, client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      if (isConnectionError(error)) broken = error as Error;
      else await client.query('ROLLBACK').catch((e: unknown) => void (broken = e as Error));
      throw this.explain(error);
    } finally {
      client.release(broken);
    }
  }

  async read(path: string, position: number, length: number, committedLength?: number): Promise<Buffer> {
    const cached = this.cache.read(path, position, length);
    if (cached !== undefined) return cached;
    const file = this.locate(path);
    return this.withClient(async (client) => {
      // Another request may have brought the rows while this one waited for a connection.
      const ready = this.cache.read(path, position, length);
      if (ready !== undefined) return ready;
      const rows = await readRows(client, file, position, position + length);
      const bytes = assembleRange(rows, file, position, length);
      if (committedLength !== undefined) {
        for (const row of rows) {
          const keep = Math.min(row.data.length, committedLength - row.start);
          if (keep > 0) this.cache.put(path, row.start, row.data.subarray(0, keep));
        }
      }
      return bytes;
    });
  }

  /** Outside a snapshot: the range is streamed in a transaction of its own. */
  chunks(path: string, from: number, to: number): AsyncGenerator<Uint8Array> {
    return this.chunksFrom(this.connectionPool(), path, from, to);
  }

  private async *chunksFrom(pool: Promise<pg.Pool>, path: string, from: number, to: number): AsyncGenerator<Uint8Array> {
    const file = this.locate(path);
    const client = await this.begin(pool);
    let broken: Error | undefined;
    try {
      yield* streamRange(client, file, from, to);
    } catch (error) {
      if (isConnectionError(error)) broken = error as Error;
      throw this.explain(error);
    } finally {
      // Also when the caller stopped early: end the read-only transaction either way.
      if (broken === undefined) await client.query('ROLLBACK').catch((e: unknown) => void (broken = e as Error));
      client.release(broken);
    }
  }

  readWhole(path: string): Promise<Buffer> {
    const file = this.locate(path);
    return this.withClient((client) => readWholeFile(client, file));
  }

  /**
   * The SQL file system names a file by its path elements joined with the tables' separator
   * (MicroStream 4.1 `_`, EclipseStore `$`; no schema, no URL): `storage$channel_0$channel_0_1.dat`.
   */
  javaFilePath(folder: string, name: string): string {
    const separator = this.tables?.separator ?? '_';
    return `${this.options.table.name}${separator}${folder}${separator}${name}`;
  }

  /** The root table's rows, named as listings name them (`<table>/<identifier>`). */
  rootFilePath(name: string): string {
    const table = this.options.table;
    return `${table.schema === undefined ? table.name : `${table.schema}.${table.name}`}/${name}`;
  }

  forget(path: string): void {
    this.cache.forget(path);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cache.clear();
    await Promise.all([this.pool?.then((p) => p.end()), this.backgroundPool?.then((p) => p.end())]);
  }

  /** @internal the listing of the root table, through a snapshot's connection. */
  async listRootWith(client: pg.ClientBase): Promise<RootListing> {
    const tables = await findStorageTables(client, this.options.table, this.location);
    // A channel table that disappears leaves a storage that is not the one being served.
    const gone = [...(this.tables?.channels.values() ?? [])].filter((t) => ![...tables.channels.values()].some((n) => n.sql === t.sql));
    if (gone.length > 0) {
      throw new StorageError('STORAGE_INCONSISTENT', `${this.location}: table ${gone.map((t) => t.display).join(', ')} disappeared`);
    }
    this.tables = tables;
    const files = this.register(tables.root, await listTableFiles(client, tables.root));
    const folders = [...tables.channels.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, table]): SourceFolder => ({ name: `channel_${index}`, path: table.display }));
    return { files, folders };
  }

  /** @internal */
  async listFolderWith(client: pg.ClientBase, folder: SourceFolder): Promise<readonly SourceFile[]> {
    const index = Number(folder.name.slice('channel_'.length));
    const table = this.tables?.channels.get(index);
    if (table === undefined) throw new StorageError('STORAGE_NOT_A_STORAGE', `${this.location}: no table for ${folder.name}`);
    return this.register(table, await listTableFiles(client, table));
  }

  /** @internal */
  locate(path: string): FileLocation {
    const file = this.files.get(path);
    if (file === undefined) throw new StorageError('STORAGE_FILE_GONE', `${path} is not a file of ${this.location}`);
    return file;
  }

  /** @internal an error of PostgreSQL or of the connection, as a StorageError naming the database. */
  explain(error: unknown): unknown {
    if (isAppError(error)) return error;
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : String(error);
    if (isConnectionError(error)) {
      return new StorageError('STORAGE_UNAVAILABLE', `${this.location}: cannot reach the database (${message})`, { cause: error });
    }
    if (code === '42501') {
      return new StorageError('STORAGE_UNAVAILABLE', `${this.location}: ${message} (the role needs SELECT on the storage's tables)`, { cause: error });
    }
    return new StorageError('STORAGE_IO', `${this.location}: ${message}${typeof code === 'string' ? ` (SQLSTATE ${code})` : ''}`, { cause: error });
  }

  private register(table: StorageTable, listed: TableFile[]): SourceFile[] {
    for (const [path, file] of this.files) if (file.table.display === table.display) this.files.delete(path);
    for (const file of listed) {
      this.files.set(file.path, { table, identifier: file.name, path: file.path, rowBytes: file.size / Math.max(1, file.rows) });
    }
    return listed;
  }

  /** A pooled connection whose session defaults to read-only transactions. */
  private async connect(pool?: Promise<pg.Pool>): Promise<pg.PoolClient> {
    if (this.closed) throw new StorageError('STORAGE_NOT_OPEN', `${this.location}: closed`);
    let client: pg.PoolClient;
    try {
      client = await (await (pool ?? this.connectionPool())).connect();
    } catch (error) {
      throw this.explain(error);
    }
    if (!this.prepared.has(client)) {
      try {
        await client.query('SET default_transaction_read_only = on');
      } catch (error) {
        client.release(error as Error);
        throw this.explain(error);
      }
      this.prepared.add(client);
    }
    return client;
  }

  /** A connection in a new snapshot transaction. */
  private begin(pool?: Promise<pg.Pool>): Promise<pg.PoolClient> {
    return this.withClient(
      async (client) => {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        return client;
      },
      false,
      pool,
    );
  }

  /**
   * Runs one read on a pooled connection. A connection that broke (the server ended it, the
   * network dropped it) is dropped and the read tried again on another, a few times: idle
   * connections that died together are found one by one.
   */
  private async withClient<T>(fn: (client: pg.PoolClient) => Promise<T>, release = true, pool?: Promise<pg.Pool>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.connect(pool);
      try {
        const result = await fn(client);
        if (release) client.release();
        return result;
      } catch (error) {
        const broken = isConnectionError(error);
        client.release(broken ? (error as Error) : undefined);
        if (!broken || attempt >= CONNECTION_ATTEMPTS) throw this.explain(error);
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * attempt));
      }
    }
  }
}

/**
 * What one refresh reads through: the connection of its REPEATABLE READ transaction. One
 * statement (or stream) at a time, the next when the last is done: a connection runs them one
 * after the other anyway, and node-postgres' own queue for that is deprecated (it warned on
 * every start of a large storage, whose files are read ahead).
 */
class SnapshotReader implements SourceReader {
  readonly oneInstant = true;
  /** Settles when the statement or stream before the next one is done. */
  private readonly turns = new StatementTurns();

  constructor(
    private readonly source: PostgresSource,
    private readonly client: pg.PoolClient,
  ) {}

  listRoot(): Promise<RootListing> {
    return this.turns.exclusive(() => this.source.listRootWith(this.client));
  }

  listFolder(folder: SourceFolder): Promise<readonly SourceFile[]> {
    return this.turns.exclusive(() => this.source.listFolderWith(this.client, folder));
  }

  read(path: string, position: number, length: number): Promise<Buffer> {
    const file = this.source.locate(path);
    return this.turns.exclusive(async () => assembleRange(await readRows(this.client, file, position, position + length), file, position, length));
  }

  async *chunks(path: string, from: number, to: number): AsyncGenerator<Uint8Array> {
    const file = this.source.locate(path);
    const release = await this.turns.turn();
    try {
      yield* streamRange(this.client, file, from, to);
    } finally {
      release();
    }
  }

  readWhole(path: string): Promise<Buffer> {
    const file = this.source.locate(path);
    return this.turns.exclusive(() => readWholeFile(this.client, file));
  }
}

function isConnectionError(error: unknown): boolean {
  if (isAppError(error)) return false;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && CONNECTION_CODES.test(code)) return true;
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(message);
}
