import type * as Mariadb from 'mariadb';
import { isAppError, StorageError } from '../../errors.js';
import type { RowDatabase, RowQueries, TableColumns } from './row-database.js';

/**
 * A MariaDB or MySQL database holding a storage (EclipseStore's `SqlProviderMariaDb`, also used
 * for MySQL), read with MariaDB's own Node connector, loaded only when such a storage is opened.
 *
 * Read-only: every session is `SET SESSION TRANSACTION READ ONLY` (a write statement fails), a
 * snapshot is one `START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY` at REPEATABLE READ
 * (InnoDB's consistent read: no row locks), single reads are single SELECTs. A user with SELECT
 * on the storage's tables is all it needs. LOCAL INFILE stays off (the connector's default).
 */

export interface MariadbConnection {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly database: string;
  readonly password: string | undefined;
}

/** Connection errors (the connection, not the statement, failed) and access errors. */
const CONNECTION_CODES = /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ER_GET_CONNECTION_TIMEOUT|ER_CONNECTION_TIMEOUT|ER_SOCKET_UNEXPECTED_CLOSE|ER_CMD_CONNECTION_CLOSED|ER_CONN_PVT_ERROR|ER_POOL_ALREADY_CLOSED)$/;
const ACCESS_CODES = /^(ER_ACCESS_DENIED_ERROR|ER_DBACCESS_DENIED_ERROR|ER_TABLEACCESS_DENIED_ERROR|ER_COLUMNACCESS_DENIED_ERROR|ER_BAD_DB_ERROR)$/;

export class MariadbDatabase implements RowDatabase {
  readonly kind = 'mariadb';
  readonly rowMark = '0';
  readonly contentMark = 'CRC32(data)';
  private pool: Promise<Mariadb.Pool> | undefined;

  constructor(
    private readonly connection: MariadbConnection,
    private readonly where: string,
    private readonly poolSize = 8,
  ) {}

  quote(identifier: string): string {
    return `\`${identifier.replace(/`/g, '``')}\``;
  }

  async tables(queries: RowQueries, prefix: string): Promise<TableColumns[]> {
    // information_schema lists only the tables the user may read: a storage the user cannot
    // read is "no table", as in PostgreSQL's catalog.
    const rows = await queries.all<{ table: string; column: string; type: string }>(
      `SELECT TABLE_NAME AS \`table\`, COLUMN_NAME AS \`column\`, LOWER(COLUMN_TYPE) AS type
       FROM information_schema.COLUMNS
       WHERE TABLE_SCHEMA = DATABASE() AND LEFT(TABLE_NAME, ?) = ?
       ORDER BY TABLE_NAME, ORDINAL_POSITION`,
      [prefix.length, prefix],
    );
    const tables = new Map<string, Map<string, string>>();
    for (const row of rows) {
      const name = String(row.table);
      // LEFT() compares by the collation: keep only exact prefixes.
      if (!name.startsWith(prefix)) continue;
      const columns = tables.get(name) ?? new Map<string, string>();
      columns.set(String(row.column), String(row.type));
      tables.set(name, columns);
    }
    return [...tables].map(([name, columns]) => ({ name, columns }));
  }

  async snapshot<T>(fn: (queries: RowQueries) => Promise<T>): Promise<T> {
    const connection = await (await this.connectionPool()).getConnection();
    let broken = false;
    try {
      await connection.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
      const result = await fn(queriesOf(connection));
      await connection.query('COMMIT');
      return result;
    } catch (error) {
      broken = isConnectionError(error);
      if (!broken) await connection.query('ROLLBACK').catch(() => void (broken = true));
      throw error;
    } finally {
      if (broken) connection.destroy();
      else await connection.release();
    }
  }

  async single<T>(fn: (queries: RowQueries) => Promise<T>): Promise<T> {
    const pool = await this.connectionPool();
    return fn({ all: async <R>(sql: string, params: readonly unknown[] = []) => (await pool.query({ sql }, [...params])) as R[] });
  }

  explain(error: unknown): unknown {
    if (isAppError(error)) return error;
    const code = (error as { code?: unknown } | null)?.code;
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    if (isConnectionError(error)) {
      return new StorageError('STORAGE_UNAVAILABLE', `${this.where}: cannot reach the database (${message})`, { cause: error });
    }
    if (typeof code === 'string' && ACCESS_CODES.test(code)) {
      return new StorageError('STORAGE_UNAVAILABLE', `${this.where}: ${message} (the user needs SELECT on the storage's tables)`, { cause: error });
    }
    return new StorageError('STORAGE_IO', `${this.where}: ${message}${typeof code === 'string' ? ` (${code})` : ''}`, { cause: error });
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    if (pool !== undefined) await (await pool.catch(() => undefined))?.end();
  }

  /** The pool, made on the first read: the connector is loaded only by a command that reads such a storage. */
  private connectionPool(): Promise<Mariadb.Pool> {
    this.pool ??= this.makePool();
    return this.pool;
  }

  private async makePool(): Promise<Mariadb.Pool> {
    const mariadb = await import('mariadb');
    const config: Mariadb.PoolConfig = {
      host: this.connection.host,
      port: this.connection.port,
      user: this.connection.user,
      database: this.connection.database,
      ...(this.connection.password === undefined ? {} : { password: this.connection.password }),
      connectionLimit: this.poolSize,
      minimumIdle: 0,
      idleTimeout: 30,
      connectTimeout: 10_000,
      acquireTimeout: 15_000,
      bigIntAsNumber: false,
      decimalAsNumber: false,
      permitLocalInfile: false,
      initSql: ['SET SESSION TRANSACTION READ ONLY', 'SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ'],
    };
    try {
      // One connection first: a refused login or an unknown database fails now with the server's
      // own words (the pool would retry until its acquire timeout and then say only that).
      const probe = await mariadb.createConnection(config);
      await probe.end();
    } catch (error) {
      this.pool = undefined;
      throw error;
    }
    return mariadb.createPool(config);
  }
}

function queriesOf(connection: Mariadb.PoolConnection): RowQueries {
  return { all: async <T>(sql: string, params: readonly unknown[] = []) => (await connection.query({ sql }, [...params])) as T[] };
}

function isConnectionError(error: unknown): boolean {
  if (isAppError(error)) return false;
  const e = error as { code?: unknown; fatal?: unknown } | null;
  if (e?.fatal === true) return true;
  return typeof e?.code === 'string' && CONNECTION_CODES.test(e.code);
}
