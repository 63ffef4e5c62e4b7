import { open, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { CsvCells, JsonCell } from '../../../sql/answers/result-values.js';
import type { SqlEngine, SqlColumn } from '../../../sql/sql-engine.js';
import { StallWatch } from '../../guard/stalled-answers.js';
import { roomBeforeStream, roomForMore } from '../../guard/streamed-room.js';
import type { UnsentAnswers } from '../../guard/unsent-answers.js';

/**
 * The streamed answers of `POST /api/v1/sql` (sql-routes.ts picks one by `Accept`): the whole
 * result as CSV or NDJSON pulled as the client reads, or as one Parquet file; each ended when its
 * client stalls, and counted against `--max-unsent-bytes`.
 */

/** What bounds a streamed answer: its stall bound, and the unsent-bytes budget it counts against (none without the capacity plugin). */
export interface StreamBounds {
  readonly stallMs: number;
  readonly unsent: UnsentAnswers | undefined;
  readonly requestTimeoutMs: number;
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
export async function streamAnswer(
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
export async function parquetAnswer(engine: SqlEngine, sql: string, abort: AbortController, reply: FastifyReply, bounds: StreamBounds): Promise<Readable> {
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
