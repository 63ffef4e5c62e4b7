import { request, type ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import type { UnsentAnswers } from '../../src/http/guard/unsent-answers.js';
import { SLICE_BYTES } from '../../src/sql/answer-rows.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { closedAfterEach } from '../helpers/serving/left-open.js';
import { listenOnLoopback } from '../helpers/serving/loopback.js';
import { graphsBuilt, registeredStorage } from '../helpers/serving/registered-storage.js';

/**
 * Streamed SQL answers (CSV, NDJSON, Parquet) count against --max-unsent-bytes as the NDJSON
 * export does. Before, they were not counted at all: clients that asked for big results and stopped
 * reading each left a slice of rows (up to 4 MiB, more as text) in the server outside the budget,
 * as many as there were such clients, while the budget said there was room for every other big
 * answer; a new stream was started however much they held.
 *
 * The stalled clients here are the server's own sockets corked (they hand the kernel nothing, as
 * when a client's window is full), so that what the streams hold is all in the process, counted,
 * whatever the kernel's buffers would take on loopback: the budget is full, and stays full, by
 * state, not by timing. Their answers are read whole once the sockets are uncorked.
 */

const GRAPH = join(CONFORMANCE_DIR, 'storages', 'graph');
/** Streams that stop being read. */
const CLIENTS = 4;
/**
 * Rows of about 1.9 kB: one chunk of DuckDB's 2,048 rows is one slice (under SLICE_BYTES) of
 * nearly 4 MB as NDJSON. The budget lets every stalled stream start even if all of them count the
 * whole slice each expects at the same moment, and their four slices then fill it.
 */
const FILLER = 1900;
const ROWS = 10_000;
/** The rows of a stream of small slices (2,048 rows of about 280 bytes). */
const SMALL_FILLER = 250;
const CAPACITY = (CLIENTS - 1) * SLICE_BYTES + 1;
/** A new stream waits this long for room before its 503 (the room wait is one --stall-timeout at most). */
const ROOM_WAIT_MS = 2000;
const SQL = statement(FILLER);

/** ROWS rows of `filler` bytes each besides their number. */
function statement(filler: number): string {
  return `SELECT i, '${'x'.repeat(filler)}' AS filler FROM range(${ROWS}) t(i)`;
}

const open = closedAfterEach();

interface Served {
  readonly port: number;
  readonly unsent: UnsentAnswers;
  /** The server's sockets corked so far (the first `cork` connections). */
  readonly corked: Socket[];
  /** The server's log lines (pino's JSON, debug and above). */
  readonly logged: string[];
  /** The responses to SQL statements, in the order their requests came. */
  readonly statements: ServerResponse[];
}

/**
 * The server: its first `cork` connections corked; no request timeout (no idle-socket timeout
 * ends a stalled stream) and no SQL stall bound (nothing ends them but their clients), so that
 * they hold the budget until the test reads them; --stall-timeout bounds a new stream's wait for
 * room (its 503).
 */
async function served(cork: number, capacity = CAPACITY): Promise<Served> {
  const { registry, storage, close } = await registeredStorage(GRAPH);
  const logged: string[] = [];
  const app = buildApp(storage, {
    instance: 'microstream',
    api: registry,
    logger: { level: 'debug', stream: { write: (line: string) => void logged.push(line) } },
    sql: { maxConcurrent: CLIENTS + 4, streamStallMs: 0, timeoutMs: 0 },
    requestTimeoutMs: 0,
    stallTimeoutMs: ROOM_WAIT_MS,
    maxUnsentBytes: capacity,
  });
  await graphsBuilt(registry);
  const corked: Socket[] = [];
  const statements: ServerResponse[] = [];
  app.server.on('request', (req: { url?: string }, res: ServerResponse) => {
    if (req.url === '/api/v1/sql') statements.push(res);
  });
  app.server.on('connection', (socket: Socket) => {
    if (corked.length >= cork) return;
    socket.cork();
    corked.push(socket);
  });
  const port = await listenOnLoopback(app);
  open.closeServer = async () => {
    await app.close();
    await close();
  };
  return { port, unsent: app.unsentAnswers, corked, logged, statements };
}

interface Answer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly body: Buffer;
}

/** A statement's answer in `accept`, read whole (once the server sends it). */
function ask(port: number, accept: string, sql = SQL): Promise<Answer> {
  const answer = new Promise<Answer>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v1/sql', headers: { 'content-type': 'application/json', accept }, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: Buffer.concat(parts) }));
      res.on('error', reject);
    });
    req.on('socket', (socket) => open.sockets.push(socket));
    req.on('error', reject);
    req.end(JSON.stringify({ sql }));
  });
  // A test that fails leaves its streams unread; their sockets destroyed after it are no failure of their own.
  answer.catch(() => undefined);
  return answer;
}

function health(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/health', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The server's metrics as Prometheus text. */
function metricsText(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/metrics', agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A client that asks for a streamed answer and can leave before it has a byte of it. */
function leavingClient(port: number, accept: string): { leave: () => void } {
  const body = JSON.stringify({ sql: SQL });
  const socket = new Socket();
  socket.connect(port, '127.0.0.1', () =>
    socket.write(`POST /api/v1/sql HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: ${accept}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`),
  );
  socket.on('error', () => undefined);
  open.sockets.push(socket);
  return { leave: () => socket.destroy() };
}

/** The highest count of the budget seen on any turn of the event loop until `stop`. */
function peakOf(unsent: UnsentAnswers): { peak: () => number; stop: () => void } {
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, unsent.held)), 1);
  return { peak: () => Math.max(peak, unsent.held), stop: () => clearInterval(timer) };
}

/** The whole NDJSON answer of `statement(fillerBytes)`, row by row: `i` ascending from 0 (a BIGINT, as a decimal string) and its filler. */
function expectWholeNdjson(body: Buffer, fillerBytes = FILLER): void {
  const lines = body.toString('utf8').split('\n');
  expect(lines.pop()).toBe('');
  expect(lines.length).toBe(ROWS);
  const filler = 'x'.repeat(fillerBytes);
  for (let i = 0; i < ROWS; i++) {
    const row = JSON.parse(lines[i]!) as { i: string; filler: string };
    if (row.i !== String(i) || row.filler !== filler) expect({ line: i, row: row.i, fillerLength: row.filler.length }).toEqual({ line: i, row: String(i), fillerLength: fillerBytes });
  }
}

/**
 * Starts a stream and waits until its first slice is here and counted: the budget then holds more
 * than before, and less than before plus a whole slice (what the stream counts while it waits for
 * its first rows). Streams started this way never find each other's expectation in the budget.
 */
async function startedAlone(unsent: UnsentAnswers, start: () => Promise<Answer>): Promise<{ readonly answer: Promise<Answer> }> {
  const before = unsent.held;
  const answer = start();
  await expect
    .poll(() => unsent.held > before && unsent.held < before + SLICE_BYTES - 64 * 1024, { timeout: 60_000, interval: 10 })
    .toBe(true);
  // Wrapped: an async function's promise would take on the answer's and wait for it.
  return { answer };
}

describe('streamed SQL answers whose clients stop reading', () => {
  it('hold at most the unsent-bytes budget plus one slice; a new stream gets 503 with Retry-After, /health answers, and the stalled ones are whole once read', { timeout: 120_000 }, async () => {
    const { port, unsent, corked } = await served(CLIENTS);
    const sampled = peakOf(unsent);
    try {
      const stalled = Array.from({ length: CLIENTS }, () => ask(port, 'application/x-ndjson'));
      // Every stalled stream has its first slice here and counted: the budget is full.
      await expect.poll(() => corked.length, { timeout: 30_000, interval: 20 }).toBe(CLIENTS);
      await expect.poll(() => unsent.held, { timeout: 60_000, interval: 20 }).toBeGreaterThanOrEqual(CAPACITY);
      // New streams of every kind are refused before any byte, with a hint when to ask again.
      const refused = await Promise.all(['application/x-ndjson', 'text/csv', 'application/vnd.apache.parquet'].map((accept) => ask(port, accept)));
      for (const answer of refused) {
        expect([answer.status, answer.retryAfter]).toEqual([503, '1']);
        const problem = JSON.parse(answer.body.toString('utf8')) as { title: string; detail: string };
        expect(problem.title).toBe('Server Busy');
        expect(problem.detail).toContain(`at or above its limit of ${CAPACITY} bytes (--max-unsent-bytes)`);
      }
      // Small answers never wait.
      expect(await health(port)).toBe(200);
      // Held meanwhile: the budget and at most the one slice a stream counted before it had it.
      expect(unsent.held).toBeGreaterThanOrEqual(CAPACITY);
      expect(sampled.peak()).toBeLessThanOrEqual(CAPACITY + SLICE_BYTES);

      // Their clients read again: each gets its whole answer, in order, and nothing stays held.
      for (const socket of corked) socket.uncork();
      const answers = await Promise.all(stalled);
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expectWholeNdjson(answer.body);
      }
      expect(sampled.peak()).toBeLessThanOrEqual(CAPACITY + SLICE_BYTES);
      await expect.poll(() => unsent.held, { timeout: 20_000, interval: 20 }).toBe(0);
    } finally {
      sampled.stop();
    }
  });

  it('count a Parquet answer read from its file until its client takes it', { timeout: 120_000 }, async () => {
    // One corked Parquet answer: what is read of its file waits in the server, counted.
    const { port, unsent, corked } = await served(1);
    const answer = ask(port, 'application/vnd.apache.parquet', 'SELECT md5(i::VARCHAR) AS a FROM range(200000) t(i)');
    await expect.poll(() => corked.length, { timeout: 30_000, interval: 20 }).toBe(1);
    await expect.poll(() => unsent.held, { timeout: 60_000, interval: 20 }).toBeGreaterThan(0);
    expect(unsent.held).toBeLessThan(CAPACITY);
    corked[0]!.uncork();
    const read = await answer;
    expect(read.status).toBe(200);
    // A Parquet file: its magic at both ends.
    expect([read.body.subarray(0, 4).toString('latin1'), read.body.subarray(-4).toString('latin1')]).toEqual(['PAR1', 'PAR1']);
    await expect.poll(() => unsent.held, { timeout: 20_000, interval: 20 }).toBe(0);
  });

  it('keep a stream whose client reads from asking for more rows while they fill the budget, and let it go on once they are read', { timeout: 120_000 }, async () => {
    // A stream of small slices (about 0.6 MB) first, then three of big ones (about 3.9 MB): each
    // starts with room (10 MiB is more than A and two big slices), and the three big ones alone
    // fill the budget. None is read; then A's client reads again: it takes A's first slice, and A
    // must wait for room before its statement hands it the next.
    const capacity = 10 * 1024 * 1024;
    const { port, unsent, corked } = await served(CLIENTS, capacity);
    const sampled = peakOf(unsent);
    try {
      const { answer: a } = await startedAlone(unsent, () => ask(port, 'application/x-ndjson', statement(SMALL_FILLER)));
      const aSlice = unsent.held;
      const big: Promise<Answer>[] = [];
      for (let i = 0; i < CLIENTS - 1; i++) big.push((await startedAlone(unsent, () => ask(port, 'application/x-ndjson'))).answer);
      // What the case stands on: the big ones alone fill the budget.
      expect(unsent.held - aSlice).toBeGreaterThanOrEqual(capacity);
      expect(corked.length).toBe(CLIENTS);
      corked[0]!.uncork();
      // A's client took its first slice; A now waits for room, its statement asking for nothing.
      await expect.poll(() => unsent.waiters, { timeout: 30_000, interval: 10 }).toBe(1);
      expect(unsent.held).toBeGreaterThanOrEqual(capacity);
      // The others are read: room comes, and every answer is whole.
      for (const socket of corked.slice(1)) socket.uncork();
      const answers = await Promise.all([a, ...big]);
      for (const answer of answers) expect(answer.status).toBe(200);
      expectWholeNdjson(answers[0]!.body, SMALL_FILLER);
      for (const answer of answers.slice(1)) expectWholeNdjson(answer.body);
      expect(sampled.peak()).toBeLessThanOrEqual(capacity + SLICE_BYTES);
      await expect.poll(() => unsent.held, { timeout: 20_000, interval: 20 }).toBe(0);
      expect(unsent.waiters).toBe(0);
    } finally {
      sampled.stop();
    }
  });

  it('that start at the same moment count the slice each expects before it has it: the budget plus one slice at most', { timeout: 120_000 }, async () => {
    // Room for about one slice. Each stream finds room only if the budget has some, and counts a
    // whole slice as soon as it has: those asking while it waits for its rows find none. Without
    // that, all four found room (nothing was counted yet) and held four slices.
    const capacity = SLICE_BYTES + 1;
    const { port, unsent, corked } = await served(CLIENTS, capacity);
    const sampled = peakOf(unsent);
    try {
      const streams = Array.from({ length: CLIENTS }, () => ask(port, 'application/x-ndjson'));
      await expect.poll(() => corked.length, { timeout: 30_000, interval: 20 }).toBe(CLIENTS);
      await expect.poll(() => unsent.held, { timeout: 60_000, interval: 10 }).toBeGreaterThanOrEqual(capacity);
      expect(sampled.peak()).toBeLessThanOrEqual(capacity + SLICE_BYTES);
      for (const socket of corked) socket.uncork();
      // Each is refused before any byte or answered whole, whichever its wait for room came to.
      for (const answer of await Promise.all(streams)) {
        if (answer.status === 200) expectWholeNdjson(answer.body);
        else expect([answer.status, answer.retryAfter]).toEqual([503, '1']);
      }
      expect(sampled.peak()).toBeLessThanOrEqual(capacity + SLICE_BYTES);
      await expect.poll(() => unsent.held, { timeout: 20_000, interval: 20 }).toBe(0);
    } finally {
      sampled.stop();
    }
  });
  it('whose client leaves while it waits for room: the wait ends, nothing stays counted, and no server error is logged or counted', { timeout: 120_000 }, async () => {
    // Before: the wait's AbortError reached the API's error handler, which threw on its numeric
    // code; fastify's default handler then answered 500 (its own log line off in the API's instance).
    const { port, unsent, corked, logged, statements } = await served(CLIENTS);
    const stalled = Array.from({ length: CLIENTS }, () => ask(port, 'application/x-ndjson'));
    await expect.poll(() => corked.length, { timeout: 30_000, interval: 20 }).toBe(CLIENTS);
    await expect.poll(() => unsent.held, { timeout: 60_000, interval: 20 }).toBeGreaterThanOrEqual(CAPACITY);
    // A new stream finds the budget full and waits for room; its client goes away meanwhile.
    const leaving = leavingClient(port, 'application/x-ndjson');
    await expect.poll(() => unsent.waiters, { timeout: 30_000, interval: 10 }).toBe(1);
    expect(statements.length).toBe(CLIENTS + 1);
    const left = statements[CLIENTS]!;
    leaving.leave();
    // The wait ends at once (the room wait's own bound, --stall-timeout, is far off), answered as
    // a search whose client left is: 499, to no one.
    await expect.poll(() => unsent.waiters, { timeout: 30_000, interval: 10 }).toBe(0);
    await expect.poll(() => left.statusCode, { timeout: 30_000, interval: 10 }).toBe(499);
    const entries = logged.map((line) => JSON.parse(line) as { level: number; msg: string; url?: string; reqId?: string });
    // One debug line naming the request; nothing at warn or above.
    const gone = entries.filter((entry) => entry.msg.includes('the client went away'));
    expect(gone.map((entry) => [entry.level, entry.url])).toEqual([[20, '/api/v1/sql']]);
    expect(gone[0]!.reqId).toMatch(/^req-/);
    expect(entries.filter((entry) => entry.level >= 40).map((entry) => entry.msg)).toEqual([]);
    expect(await metricsText(port)).not.toMatch(/http_requests_total\{[^}]*status="5\d\d"\}/);

    // The stalled clients read again: their answers are whole, and the budget is empty (nothing of
    // the stream that left stays counted).
    for (const socket of corked) socket.uncork();
    for (const answer of await Promise.all(stalled)) {
      expect(answer.status).toBe(200);
      expectWholeNdjson(answer.body);
    }
    await expect.poll(() => unsent.held, { timeout: 20_000, interval: 20 }).toBe(0);
    expect(unsent.waiters).toBe(0);
    expect(logged.filter((line) => (JSON.parse(line) as { level: number }).level >= 40)).toEqual([]);
  });
});
