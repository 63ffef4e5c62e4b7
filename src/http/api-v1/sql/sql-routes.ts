import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { isAppError } from '../../../errors.js';
import type { CsvCells } from '../../../sql/answers/result-values.js';
import type { SqlEngine } from '../../../sql/sql-engine.js';
import type { SqlError } from '../../../sql/sandbox/sql-error.js';
import type { StorageContext, StorageRegistry } from '../../../registry/storage-registry.js';
import { DEFAULT_STREAM_STALL_MS } from '../../../sql/sql-limits.js';
import { sqlEngineOf, type SqlServiceOptions } from './sql-engines.js';
import type { UnsentAnswers } from '../../guard/unsent-answers.js';
import { parquetAnswer, streamAnswer, type StreamBounds } from './streamed-answers.js';
import { ApiProblem, notFound, problemResponse, sendProblem } from '../machinery/problem-details.js';
import { API_PREFIX } from '../../../api-contract/schemas.js';
import { StorageParams } from '../../../api-contract/schemas.js';

/**
 * `POST /api/v1/sql` and `GET /api/v1/sql/schema` (and per named storage): one read-only
 * statement over the storage's tables, answered as JSON (at most `limit` rows) or streamed whole
 * as CSV or NDJSON (`Accept`), pulled chunk by chunk as the client reads (back-pressure). A client
 * that goes away interrupts its statement; so does one that keeps its connection but takes nothing
 * for `--sql-stall-timeout`, or past the statement's `--sql-timeout`: a stalled reader would else
 * hold its statement's slot (of `--sql-max-concurrent`), DuckDB connection and open transaction
 * until its connection closed, and a few of them would refuse every other statement as busy.
 * A streamed answer's bytes not yet handed to the kernel count against `--max-unsent-bytes` as the
 * NDJSON export's do (guard/streamed-room.ts): it asks for room before its statement starts (503
 * with Retry-After when none comes in time) and before each further slice of rows.
 */

const SqlBody = Type.Object(
  {
    sql: Type.String({ minLength: 1, maxLength: 100_000, description: 'one read-only statement (SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN)' }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000, description: 'rows at most in a JSON answer' })),
  },
  { additionalProperties: false },
);

const SqlQuery = Type.Object(
  {
    rawCsv: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "CSV answers: write every value as it is. By default a text beginning with =, +, -, @, a tab or a carriage return (one a spreadsheet would run as a formula) gets a ' in front (OWASP's rule for CSV injection); plain numbers such as -12.5 stay as they are.",
      }),
    ),
  },
);

const Column = Type.Object({ name: Type.String(), type: Type.String({ description: 'DuckDB type, e.g. BIGINT, VARCHAR, TIMESTAMP' }) });

const SqlAnswer = Type.Object({
  columns: Type.Array(Column),
  rows: Type.Array(Type.Array(Type.Unknown({ description: 'BIGINT/DECIMAL as decimal strings, small integers and floats as numbers, TIMESTAMP ISO-8601, NULL null' }))),
  rowCount: Type.Integer({ minimum: 0 }),
  truncated: Type.Boolean({ description: 'more rows existed than limit' }),
  elapsedMs: Type.Number(),
});

const SchemaAnswer = Type.Object({
  tables: Type.Array(
    Type.Object({
      name: Type.String({ description: 'exact SQL name (quote it): "com.acme.Customer", _objects' }),
      alias: Type.Union([Type.String(), Type.Null()], { description: 'a view under the simple name, when unambiguous' }),
      kind: Type.Union([Type.Literal('type'), Type.Literal('system')]),
      typeName: Type.Union([Type.String(), Type.Null()]),
      typeIds: Type.Array(Type.String()),
      columns: Type.Array(Type.Object({ name: Type.String(), type: Type.String(), objectId: Type.Boolean({ description: 'holds object ids' }) })),
    }),
  ),
});

const SQL_PROBLEMS = {
  400: problemResponse('invalid or refused statement (not read-only, file or network access, more than one statement); position: where DuckDB located it'),
  404: problemResponse('no such storage, or SQL is off (--no-sql)'),
  408: problemResponse('interrupted by the SQL timeout (--sql-timeout)'),
  413: problemResponse('a row (--sql-max-row-bytes) or the whole JSON answer (--sql-max-answer-bytes) is over its limit'),
  503: problemResponse('too many statements running at once, or the answers being sent hold the whole answer budget (--sql-answer-budget, or for CSV, NDJSON and Parquet --max-unsent-bytes; Retry-After), or the graph index is being built, or a setting of the server keeps SQL from running (its TMPDIR names no directory, or one inside the storage directory)'),
};

export interface SqlRoutesOptions {
  readonly registry: StorageRegistry;
  /** false: SQL is off (--no-sql). */
  readonly sql: SqlServiceOptions | false;
  /** The server's request timeout (0: none): a streamed answer waits for room before its first byte within 90 % of it. */
  readonly requestTimeoutMs: number;
}

export async function sqlRoutes(scope: FastifyInstance, options: SqlRoutesOptions): Promise<void> {
  // The application parses no bodies; this scope reads the JSON of its statements.
  scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 256 * 1024 }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new ApiProblem(400, 'Bad Request', 'the body is not JSON'), undefined);
    }
  });
  for (const named of [false, true]) {
    const prefix = `${API_PREFIX}${named ? '/storages/:storage' : ''}`;
    const params = named ? { params: StorageParams } : {};
    const suffix = named ? ' (a named storage)' : '';
    scope.post(
      `${prefix}/sql`,
      {
        schema: {
          summary: `Runs one read-only SQL statement over the storage's tables${suffix}`,
          description:
            'Every type with instances is a table named by its Java type name (plus a view under its simple name), with `_objects`, `_references`, `_elements`, `_values`, `_gigamap_entities` and `_gigamap_index`. `Accept: text/csv` or `application/x-ndjson` streams the whole result (CSV cells a spreadsheet would run as formulas are neutralised unless `rawCsv=true`); `Accept: application/vnd.apache.parquet` answers the whole result of a SELECT as one Parquet file (zstd).',
          tags: ['sql'],
          // Off (--no-sql): the routes answer 404 and are left out of the OpenAPI document, so that clients (the viewer) do not offer SQL.
          hide: options.sql === false,
          ...params,
          body: SqlBody,
          querystring: SqlQuery,
          produces: ['application/json', 'text/csv', 'application/x-ndjson', 'application/vnd.apache.parquet'],
          response: { 200: SqlAnswer, ...SQL_PROBLEMS },
        },
      },
      async (request, reply) => {
        const engine = engineFor(request, options);
        const body = request.body as Static<typeof SqlBody>;
        const accept = String(request.headers.accept ?? '');
        const format = /text\/csv/.test(accept) ? 'csv' : /application\/x-ndjson/.test(accept) ? 'ndjson' : /application\/vnd\.apache\.parquet/.test(accept) ? 'parquet' : 'json';
        const abort = new AbortController();
        reply.raw.on('close', () => abort.abort());
        try {
          if (format === 'json') return await engine.query(body.sql, { limit: body.limit ?? 1000, signal: abort.signal });
          const bounds: StreamBounds = {
            stallMs: options.sql === false ? 0 : (options.sql.streamStallMs ?? DEFAULT_STREAM_STALL_MS),
            unsent: request.server.unsentAnswers as UnsentAnswers | undefined,
            requestTimeoutMs: options.requestTimeoutMs,
          };
          if (format === 'parquet') return await parquetAnswer(engine, body.sql, abort, reply, bounds);
          const cells: CsvCells = (request.query as Static<typeof SqlQuery>).rawCsv === true ? 'raw' : 'safe';
          return await streamAnswer(engine, body.sql, format, cells, abort, reply, bounds);
        } catch (error) {
          throw asProblem(error, request);
        }
      },
    );
    scope.get(
      `${prefix}/sql/schema`,
      { schema: { summary: `The SQL tables of the storage and their columns${suffix}`, tags: ['sql'], hide: options.sql === false, ...params, response: { 200: SchemaAnswer, ...SQL_PROBLEMS } } },
      async (request) => {
        try {
          return await engineFor(request, options).schema();
        } catch (error) {
          throw asProblem(error, request);
        }
      },
    );
  }
}

function engineFor(request: FastifyRequest, options: SqlRoutesOptions): SqlEngine {
  if (options.sql === false) throw notFound('SQL is off on this server (--no-sql)');
  const name = (request.params as { storage?: string } | undefined)?.storage;
  const context: StorageContext | undefined = options.registry.get(name);
  if (context === undefined) throw notFound(name === undefined ? 'no storage is served' : `no storage named ${name} is served`);
  return sqlEngineOf(context, options.sql);
}

function asProblem(error: unknown, request: FastifyRequest): unknown {
  // A setting of the server keeps its SQL from running (a TMPDIR naming no directory or one
  // inside the storage directory: temporary-directory.ts's error, told by its name as SqlError
  // is, without loading the SQL modules): the client is told so, the operator who can fix it
  // reads it in the log, and the server goes on (before: 500 Internal Server Error, logged with a
  // stack). Other usage errors are not this and stay what they were.
  if (isAppError(error) && error.name === 'TemporaryDirectoryError') {
    request.log.warn({ url: request.url }, `SQL cannot run: ${error.message}`);
    return new ApiProblem(503, 'SQL Unavailable', error.message);
  }
  if (!(error instanceof Error) || error.name !== 'SqlError') return error;
  const e = error as SqlError;
  const extra = e.position === undefined ? {} : { position: e.position };
  switch (e.kind) {
    case 'timeout':
      return new ApiProblem(408, 'Statement Timeout', e.message);
    case 'busy':
      return new ApiProblem(503, 'Too Many Statements', e.message, { 'retry-after': '1' });
    case 'cancelled':
      return new ApiProblem(499, 'Cancelled', e.message);
    case 'too-large':
      return new ApiProblem(413, 'Answer Too Large', e.message);
    case 'refused':
      return new ApiProblem(400, 'Statement Refused', e.message, {}, extra);
    default:
      return new ApiProblem(400, 'Invalid Statement', e.message, {}, extra);
  }
}

export { sendProblem };
