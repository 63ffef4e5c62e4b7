import { errorMessage, type Api } from '../model/api.js';
import type { ApiV1 } from '../model/api-v1.js';
import type { SqlResult, SqlTable } from './sql-types.js';

/**
 * Client of `/api/v1/sql` and `/api/v1/sql/schema` (the SQL engine's contract): run a
 * statement (abortable: Cancel aborts the fetch and the server interrupts the query), the tables
 * and columns of the storage, and the whole result as a file (CSV) for downloads.
 */

export type { SqlColumn, SqlResult, SqlTable, SqlValue } from './sql-types.js';
export { quoteIdentifier, quoteLiteral } from './sql-types.js';

/** A statement the server refused or could not run; `position` is where DuckDB located it. */
export class SqlError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly position: number | undefined,
  ) {
    super(message);
  }
}

/** The text of an error of a statement: DuckDB's own message for a refused one. */
export function sqlErrorMessage(error: unknown): string {
  return error instanceof SqlError ? error.message : errorMessage(error);
}

export const MAX_ROWS = 10_000;

export class SqlApi {
  private schemaAnswer: Promise<readonly SqlTable[]> | undefined;

  constructor(
    private readonly api: Api,
    private readonly v1: ApiV1,
  ) {}

  async query(sql: string, limit: number, signal?: AbortSignal): Promise<SqlResult> {
    const response = await this.post(sql, limit, 'application/json', signal);
    return (await response.json()) as SqlResult;
  }

  /** Forget the tables (another storage is shown). */
  reset(): void {
    this.schemaAnswer = undefined;
  }

  /** The tables of this storage (asked once per storage). */
  schema(): Promise<readonly SqlTable[]> {
    this.schemaAnswer ??= this.api
      .send(this.v1.url('/sql/schema'), { method: 'GET' })
      .then(async (response) => {
        if (!response.ok) throw await problemOf(response);
        return ((await response.json()) as { tables: SqlTable[] }).tables;
      })
      .catch((error: unknown) => {
        this.schemaAnswer = undefined;
        throw error;
      });
    return this.schemaAnswer;
  }

  /**
   * Whether this server runs SQL: its OpenAPI document has the route and the schema answers.
   * (Asked through the document first: a 404 of the route would count as an error in the console.)
   */
  async available(): Promise<boolean> {
    try {
      const response = await this.api.send(`${this.api.base}/api/v1/openapi.json`, { method: 'GET' });
      if (!response.ok) return false;
      const document = (await response.json()) as { paths?: Record<string, unknown> };
      if (document.paths?.['/api/v1/sql/schema'] === undefined) return false;
      await this.schema();
      return true;
    } catch {
      return false;
    }
  }

  /** The whole result streamed as a file of the given type (`text/csv`; raw: CSV cells not neutralised). */
  async download(sql: string, accept: string, signal?: AbortSignal, rawCsv = false): Promise<Blob> {
    const response = await this.post(sql, MAX_ROWS, accept, signal, rawCsv);
    return response.blob();
  }

  private async post(sql: string, limit: number, accept: string, signal?: AbortSignal, rawCsv = false): Promise<Response> {
    const response = await this.api.send(this.v1.url(rawCsv ? '/sql?rawCsv=true' : '/sql'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify({ sql, limit: Math.min(MAX_ROWS, Math.max(1, limit)) }),
      ...(signal === undefined ? {} : { signal }),
    });
    if (!response.ok) throw await problemOf(response);
    return response;
  }
}

async function problemOf(response: Response): Promise<SqlError> {
  const text = await response.text();
  try {
    const problem = JSON.parse(text) as { title?: string; detail?: string; position?: number };
    return new SqlError(problem.detail ?? problem.title ?? `the server answered ${response.status}`, response.status, typeof problem.position === 'number' ? problem.position : undefined);
  } catch {
    return new SqlError(response.status === 404 ? 'this server has no SQL engine (/api/v1/sql)' : `the server answered ${response.status}`, response.status, undefined);
  }
}
