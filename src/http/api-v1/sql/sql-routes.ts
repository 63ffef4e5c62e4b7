import { open, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { isAppError } from '../../../errors.js';
import type { CsvCells, JsonCell } from '../../../sql/answers/result-values.js';
import type { SqlEngine, SqlColumn } from '../../../sql/sql-engine.js';
import type { SqlError } from '../../../sql/sandbox/sql-error.js';
import type { StorageContext, StorageRegistry } from '../../../registry/storage-registry.js';
import { DEFAULT_STREAM_STALL_MS } from '../../../sql/sql-limits.js';
import { sqlEngineOf, type SqlServiceOptions } from './sql-engines.js';
import { StallWatch } from '../../guard/stalled-answers.js';
import { roomBeforeStream, roomForMore } from '../../guard/streamed-room.js';
import type { UnsentAnswers } from '../../guard/unsent-answers.js';
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

/** What bounds a streamed answer: its stall bound, and the unsent-bytes budget it counts against (none without the capacity plugin). */
interface StreamBounds {
  readonly stallMs: number;
  readonly unsent: UnsentAnswers | undefined;
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

/** What a streamed answer hands its reader at a time (the stall bound's measure of progress). */
const PIECE = 64 * 1024;

/**
 * The whole result as CSV or NDJSON. The statement starts (and fails, with a problem answer)
 * before the first byte is sent; after that rows are pulled only as the client reads them.
 *
 * Two bounds end it while its client does not read, each destroying the connection (a stream under
 * way has no other way to say it is incomplete) and stopping the statement, which gives back its
 * slot, DuckDB connection and transaction:
 * - the stall bound, `--sql-stall-timeout`, watched by the shared StallWatch (stalled-answers.ts)
 *   as every streamed answer is: the client took nothing for the bound while bytes of it waited here;
 * - the statement's timeout, `--sql-timeout`, a timer of this stream's own: it is not a stall rule
 *   (a client reading too slowly for the statement's time is cut by it too), and DuckDB's interrupt,
 *   which enforces the timeout elsewhere, cannot reach a statement waiting here for its reader or
 *   for room.
 *
 * Its bytes in this process (queued, in the stream, the response and its socket) count against
 * `--max-unsent-bytes`: before the statement starts it waits for room (else 503 with Retry-After,
 * before any byte), and before it asks DuckDB for the next slice of rows too, while its client's
 * taking gives bytes back. A slice's size is known only once it is there, and many statements may
 * find room at once: so as soon as one has room it counts the slice it expects (a whole slice's
 * bytes before the first, then its last slice's), and the others see it. Without this, every
 * stalled client held a slice of up to 4 MiB (more as text) outside the budget, and many of them
 * held memory without bound while every other big answer was built as if there were room.
 */
async function streamAnswer(
  engine: SqlEngine,
  sql: string,
  format: 'csv' | 'ndjson',
  cells: CsvCells,
  abort: AbortController,
  reply: FastifyReply,
  bounds: StreamBounds,
): Promise<Readable> {
  const { csvCell } = await import('../../../sql/answers/result-values.js');
  const { SLICE_BYTES } = await import('../../../sql/answer-rows.js');
  const { stallMs, unsent } = bounds;
  const response = reply.raw;
  const count = unsent?.holdStream(response);
  /** The last slice's size (a whole slice before the first): what is counted for the next before it is here. */
  let expected = SLICE_BYTES;
  /** Bytes counted for a slice asked for and not yet here. */
  let reserved = 0;
  const what = `the SQL ${format === 'csv' ? 'CSV' : 'NDJSON'} answer`;
  let columns: readonly SqlColumn[] = [];
  let started: () => void = () => undefined;
  let failed: (error: unknown) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    started = resolve;
    failed = reject;
  });
  let wake: (() => void) | undefined;
  const queue: Buffer[] = [];
  let done = false;
  let failure: unknown;
  const line = (row: JsonCell[]): string =>
    format === 'csv' ? `${row.map((v) => csvCell(v, cells)).join(',')}\r\n` : `${JSON.stringify(Object.fromEntries(columns.map((c, i) => [c.name, row[i] ?? null])))}\n`;
  /** The statement's wait for its reader to take what is queued, when it waits. */
  let pull: (() => void) | undefined;
  const release = (): void => {
    const p = pull;
    pull = undefined;
    p?.();
  };
  let readable: Readable | undefined;
  /** Bytes queued by the statement so far, and handed to the stream so far. */
  let produced = 0;
  let handed = 0;
  /** Bytes of this answer in this process after the queue: in the stream's buffer and the response's (its socket too). */
  const buffered = (): number => (readable?.readableLength ?? 0) + response.writableLength;
  const taken = (): number => handed - buffered();
  /** This answer's count in the budget: what it holds here (produced and not taken) and what it expects. */
  const update = (): void => count?.(produced - taken() + reserved);
  /** Room found (streamed-room.ts): the next slice is counted from now, so that others asking find it counted. */
  const claim = (): void => {
    reserved = expected;
    update();
  };
  // The client took all the response buffered: count it given back now rather than at the next slice.
  if (count !== undefined) response.on('drain', update);
  const watch = new StallWatch(response, {
    stallMs,
    taken,
    // Queued here, or handed and not yet taken by the kernel: it waits for the client.
    waiting: () => produced > taken(),
    what,
    option: '--sql-stall-timeout',
    log: reply.log,
    // The connection is destroyed; stop the statement at once, also if it waits for its reader.
    stalled: () => {
      abort.abort();
      release();
      readable?.destroy();
    },
  });
  /** `slice`: rows of the statement (what was expected and counted ahead), not the CSV header. */
  const enqueue = (text: string, slice = true): void => {
    const bytes = Buffer.from(text);
    queue.push(bytes);
    produced += bytes.length;
    if (slice) {
      // What was expected is here: counted as what it is.
      expected = bytes.length;
      reserved = 0;
    }
    update();
    // Something waits for the client from now on: it must take some of it within each bound.
    watch.arm();
  };
  let deadline = Infinity;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = (): void => {
    if (pull === undefined) return;
    endAtTimeout();
  };
  const endAtTimeout = (): void => {
    watch.stop();
    reply.log.warn(
      { url: reply.request.url, timeoutMs: engine.limits.timeoutMs },
      `${what} ended: it was still streaming at the statement's timeout of ${engine.limits.timeoutMs} ms (--sql-timeout); its connection is destroyed (the client sees the answer end early), its statement stopped`,
    );
    abort.abort();
    response.destroy();
    release();
  };
  // Before the statement takes a slot: no room in time, a 503 before any byte.
  await roomBeforeStream(unsent, bounds.requestTimeoutMs, response, claim);
  const running = engine
    .stream(
      sql,
      abort.signal,
      (c) => {
        columns = c;
        // The statement runs from here (its timeout started just before): it ends by then.
        if (engine.limits.timeoutMs > 0) deadline = Date.now() + engine.limits.timeoutMs;
        if (format === 'csv') enqueue(`${columns.map((col) => csvCell(col.name, cells)).join(',')}\r\n`, false);
        started();
      },
      async (rows) => {
        enqueue(rows.map(line).join(''));
        wake?.();
        // Wait until the reader has taken what is queued: one chunk ahead at most. The stall
        // watch ends a reader that takes nothing; the statement's timeout one still here by then.
        if (abort.signal.aborted) return false;
        await new Promise<void>((resolve) => {
          pull = resolve;
          if (Number.isFinite(deadline)) timer = setTimeout(timedOut, Math.max(0, deadline - Date.now()));
        });
        clearTimeout(timer);
        if (abort.signal.aborted) return false;
        if (unsent === undefined) return true;
        // The next slice only once the answers not yet taken leave room (this one's count kept true meanwhile).
        const outcome = await roomForMore(unsent, update, abort.signal, deadline, claim);
        if (outcome === 'deadline') endAtTimeout();
        return outcome === 'room';
      },
    )
    .then(
      () => {
        done = true;
        reserved = 0;
        update();
        started();
        wake?.();
      },
      (error: unknown) => {
        done = true;
        reserved = 0;
        update();
        failure = error;
        failed(error);
        wake?.();
      },
    );
  await ready;
  reply.type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson');
  async function* lines(): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        if (queue.length > 0) {
          // In pieces: a slice of rows can be 4 MiB (answer-rows.ts), and Node counts a write
          // pending whole until the kernel has taken its last byte: each piece taken moves what
          // the stall watch sees, so a slow reader that still reads is not cut.
          for (const bytes of queue.splice(0)) {
            for (let at = 0; at < bytes.length; at += PIECE) {
              const piece = bytes.subarray(at, at + PIECE);
              handed += piece.length;
              yield piece;
              // Asked for more: what the client took meanwhile is given back.
              update();
            }
          }
          continue;
        }
        if (done) break;
        const next = new Promise<void>((resolve) => (wake = resolve));
        release();
        await next;
      }
      if (failure !== undefined) throw failure;
    } finally {
      abort.abort();
      release();
      await running;
    }
  }
  readable = Readable.from(lines(), { objectMode: false });
  return readable;
}

/**
 * The whole result as a Parquet file DuckDB wrote into the engine's private answers directory:
 * opened, removed from the directory at once (the open file is still read), then streamed. A client
 * that takes nothing of it for the stall bound has its connection cut (stalled-answers.ts): else it
 * held the open file (its disk space, for a removed file, until closed) and its connection until the
 * idle-socket timeout, or never with `--request-timeout 0`. What of the file is read and not yet
 * handed to the kernel counts against `--max-unsent-bytes`: the statement waits for room before it
 * runs (else 503 with Retry-After), and the file is read on only while there is room.
 */
async function parquetAnswer(engine: SqlEngine, sql: string, abort: AbortController, reply: FastifyReply, bounds: StreamBounds): Promise<Readable> {
  const { unsent } = bounds;
  const response = reply.raw;
  await roomBeforeStream(unsent, bounds.requestTimeoutMs, response);
  const file = await engine.parquetFile(sql, abort.signal);
  let handle;
  try {
    handle = await open(file, 'r');
  } finally {
    await rm(file, { force: true });
  }
  const { size } = await handle.stat();
  reply.type('application/vnd.apache.parquet');
  reply.header('content-length', size);
  reply.header('content-disposition', 'attachment; filename="answer.parquet"');
  const reading = handle.createReadStream({ autoClose: true });
  const count = unsent?.holdStream(response);
  let handed = 0;
  let stream: Readable | undefined;
  /** Read from the file and not yet taken by the kernel: read ahead, in the stream, the response and its socket. */
  const buffered = (): number => reading.readableLength + (stream?.readableLength ?? 0) + response.writableLength;
  const update = (): void => count?.(buffered());
  if (count !== undefined) response.on('drain', update);
  async function* pieces(): AsyncGenerator<Buffer> {
    for await (const piece of reading) {
      handed += (piece as Buffer).length;
      yield piece as Buffer;
      if (unsent !== undefined && (await roomForMore(unsent, update, abort.signal)) !== 'room') return;
    }
  }
  stream = Readable.from(pieces(), { objectMode: false });
  const watch = new StallWatch(response, {
    stallMs: bounds.stallMs,
    taken: () => handed - (stream?.readableLength ?? 0) - response.writableLength,
    waiting: () => buffered() > 0,
    what: 'the SQL Parquet answer',
    option: '--sql-stall-timeout',
    log: reply.log,
    stalled: () => {
      stream?.destroy();
      reading.destroy();
    },
  });
  // The file is complete: what is read of it from now on waits for the client until taken.
  watch.arm();
  return stream;
}

export { sendProblem };
