import { request } from 'node:http';
import { connect, Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp, type AppOptions } from '../../src/http/app.js';
import type { SqlServiceOptions } from '../../src/http/api-v1/sql/sql-engines.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { closedAfterEach } from '../helpers/serving/left-open.js';
import { listenOnLoopback } from '../helpers/serving/loopback.js';
import { graphsBuilt, registeredStorage } from '../helpers/serving/registered-storage.js';

/**
 * Streamed SQL answers (CSV, NDJSON) of `serve` whose client keeps its connection open and reads
 * nothing. Each such statement holds one of the `--sql-max-concurrent` slots, a DuckDB connection
 * and its transaction; without a bound it held them until the connection closed: past the SQL
 * timeout, until the server's idle-socket timeout (request timeout + 5 s) cut it, or never with
 * `--request-timeout 0`; meanwhile as many stalled clients as the limit refused every teammate's
 * statement (503). With one slot, one stalled client is that many. A client that goes away gives
 * its slot back at once, bound or not (the last test).
 */

const GRAPH = join(CONFORMANCE_DIR, 'storages', 'graph');
/**
 * A terabyte: the statement is still running when its reader stalls. Rows of a kilobyte fill the
 * kernel's socket buffers within a few chunks, so the stall comes long before the SQL timeout.
 */
const HUGE = `SELECT '${'x'.repeat(1000)}' AS filler FROM range(1000000000)`;

const open = closedAfterEach();

async function serve(sql: SqlServiceOptions): Promise<number> {
  return (await served(sql)).port;
}

/**
 * The server with its warnings kept (`warnings`, pino's JSON lines) and the application's other
 * options given; its request timeout 0, so that no idle-socket timeout ends a stalled answer.
 */
async function served(sql: SqlServiceOptions, options: Pick<AppOptions, 'maxConnections'> = {}): Promise<{ port: number; app: FastifyInstance; warnings: string[] }> {
  const { registry, storage, close } = await registeredStorage(GRAPH);
  const warnings: string[] = [];
  const logger = { level: 'warn', stream: { write: (line: string) => void warnings.push(line) } };
  const app = buildApp(storage, { instance: 'microstream', api: registry, sql, requestTimeoutMs: 0, logger, ...options });
  await graphsBuilt(registry);
  const port = await listenOnLoopback(app);
  open.closeServer = async () => {
    await app.close();
    await close();
  };
  return { port, app, warnings };
}

/** The message of the first warning that contains `text`, once there is one. */
async function warned(warnings: readonly string[], text: string): Promise<string> {
  await expect.poll(() => warnings.some((line) => line.includes(text)), { timeout: 30_000, interval: 20 }).toBe(true);
  return (JSON.parse(warnings.find((line) => line.includes(text))!) as { msg: string }).msg;
}

/**
 * A client that asks for a streamed answer, takes its first bytes (`started`: the statement holds
 * its slot now) and then reads nothing until `resume` (a paused socket sees its connection closed
 * only once it reads again); `closed` says when it has seen the end.
 */
function stalledReader(port: number, accept: string, sql = HUGE, highWaterMark?: number): { started: Promise<string>; resume: () => void; closed: () => boolean; leave: () => void } {
  const body = JSON.stringify({ sql });
  // highWaterMark: how much the socket takes from the kernel before it stops (Node's default when undefined).
  const socket = new Socket(highWaterMark === undefined ? {} : ({ highWaterMark } as ConstructorParameters<typeof Socket>[0]));
  socket.connect(port, '127.0.0.1', () =>
    socket.write(`POST /api/v1/sql HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: ${accept}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`),
  );
  socket.on('error', () => undefined);
  let closed = false;
  socket.on('close', () => (closed = true));
  const started = new Promise<string>((resolve) =>
    socket.once('data', (first: Buffer) => {
      socket.pause();
      resolve(first.toString('latin1', 0, 12));
    }),
  );
  open.sockets.push(socket);
  return { started, resume: () => socket.resume(), closed: () => closed, leave: () => socket.destroy() };
}

/** A teammate's small statement: its status and body. */
function teammate(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v1/sql', headers: { 'content-type': 'application/json' }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ sql: 'SELECT 42 AS answer' }));
  });
}

/** Asks until a teammate's statement is answered 200; every refusal on the way is the stalled statement's slot (503 busy). */
async function teammateAnswered(port: number): Promise<string> {
  let last = { status: 0, body: '' };
  await expect
    .poll(
      async () => {
        last = await teammate(port);
        if (last.status !== 200) expect(last.status).toBe(503);
        return last.status;
      },
      { timeout: 20_000, interval: 100 },
    )
    .toBe(200);
  return last.body;
}

/**
 * A client that keeps reading at about `bytesPerSecond` (it pauses after each read for as long as
 * the bytes read take at that rate) until it has `wanted` bytes: resolves with what it got and
 * whether its connection was cut before.
 */
function steadyReader(port: number, sql: string, wanted: number, bytesPerSecond: number): Promise<{ bytes: number; cut: boolean }> {
  const body = JSON.stringify({ sql });
  const socket = connect(port, '127.0.0.1', () =>
    socket.write(`POST /api/v1/sql HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/csv\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`),
  );
  open.sockets.push(socket);
  return new Promise((resolve) => {
    let bytes = 0;
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ bytes, cut: true }));
    socket.on('data', (d: Buffer) => {
      bytes += d.length;
      if (bytes >= wanted) {
        resolve({ bytes, cut: false });
        socket.destroy();
        return;
      }
      socket.pause();
      setTimeout(() => socket.resume(), (d.length * 1000) / bytesPerSecond);
    });
  });
}

describe('a streamed SQL answer whose client stops reading', () => {
  for (const accept of ['text/csv', 'application/x-ndjson']) {
    it(`(${accept}) is ended after --sql-stall-timeout, its slot given back to a teammate`, { timeout: 60_000 }, async () => {
      const { port, warnings } = await served({ maxConcurrent: 1, streamStallMs: 300, timeoutMs: 0 });
      const reader = stalledReader(port, accept);
      expect(await reader.started).toBe('HTTP/1.1 200');
      const body = await teammateAnswered(port);
      expect(JSON.parse(body)).toMatchObject({ rows: [[42]], rowCount: 1 });
      // The log says why.
      expect(await warned(warnings, 'answer ended')).toContain(`the SQL ${accept === 'text/csv' ? 'CSV' : 'NDJSON'} answer ended: its client took nothing of it for 300 ms (--sql-stall-timeout)`);
      // The stalled client's connection is cut (its answer cannot be told complete otherwise): read
      // again, it finds the end instead of the rest of a billion rows.
      reader.resume();
      await expect.poll(() => reader.closed(), { timeout: 20_000 }).toBe(true);
    });
  }

  it('is ended by --sql-timeout too, however long the stall bound', { timeout: 60_000 }, async () => {
    const { port, warnings } = await served({ maxConcurrent: 1, streamStallMs: 0, timeoutMs: 3000 });
    const reader = stalledReader(port, 'text/csv');
    expect(await reader.started).toBe('HTTP/1.1 200');
    const body = await teammateAnswered(port);
    expect(JSON.parse(body)).toMatchObject({ rows: [[42]], rowCount: 1 });
    expect(await warned(warnings, 'answer ended')).toContain("the SQL CSV answer ended: it was still streaming at the statement's timeout of 3000 ms (--sql-timeout)");
    reader.resume();
    await expect.poll(() => reader.closed(), { timeout: 20_000 }).toBe(true);
  });

  it('is not ended while its client keeps reading, however large the chunks it is sent in', { timeout: 60_000 }, async () => {
    // Rows of 10 kB: the engine hands them over in slices of up to 4 MiB (answer-rows.ts), each
    // taking this reader of 2 MB/s about two seconds, twice the bound; it still takes something
    // every few tens of milliseconds. Three slices and more.
    const port = await serve({ maxConcurrent: 1, streamStallMs: 1000, timeoutMs: 0 });
    const wanted = 12 * 1024 ** 2;
    const read = await steadyReader(port, `SELECT '${'x'.repeat(10_000)}' AS filler FROM range(1000000000)`, wanted, 2_000_000);
    expect(read.cut).toBe(false);
    expect(read.bytes).toBeGreaterThanOrEqual(wanted);
  });

  it('gives back its slot when its client goes away, with no bound set', { timeout: 60_000 }, async () => {
    const port = await serve({ maxConcurrent: 1, streamStallMs: 0, timeoutMs: 0 });
    const reader = stalledReader(port, 'application/x-ndjson');
    expect(await reader.started).toBe('HTTP/1.1 200');
    reader.leave();
    const body = await teammateAnswered(port);
    expect(JSON.parse(body)).toMatchObject({ rows: [[42]], rowCount: 1 });
  });
  it('(Parquet) is ended after --sql-stall-timeout: its connection destroyed, its slot free for a teammate, a warning logged', { timeout: 120_000 }, async () => {
    // The file is written whole before its first byte is sent; then the client stops reading (its
    // socket takes 1 KiB from the kernel). Tens of MB of hashes, which zstd cannot shrink much: far
    // more than the kernel's socket buffers take. Before, nothing bounded this but the idle-socket
    // timeout (none here): the open file (removed, its disk space kept until closed) and the
    // connection were held for ever. One connection at most: the stalled answer holds the only slot.
    const { port, app, warnings } = await served({ maxConcurrent: 1, streamStallMs: 300, timeoutMs: 0 }, { maxConnections: 1 });
    const sql = 'SELECT md5(i::VARCHAR) AS a, md5((i + 1)::VARCHAR) AS b, md5((i + 2)::VARCHAR) AS c FROM range(600000) t(i)';
    const reader = stalledReader(port, 'application/vnd.apache.parquet', sql, 1024);
    expect(await reader.started).toBe('HTTP/1.1 200');
    await expect.poll(() => app.connections.stats.open, { timeout: 30_000, interval: 20 }).toBe(0);
    expect(await warned(warnings, 'the SQL Parquet answer ended')).toContain('its client took nothing of it for 300 ms (--sql-stall-timeout)');
    // The connection slot is free: a teammate's statement is answered.
    const answered = await teammate(port);
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body)).toMatchObject({ rows: [[42]], rowCount: 1 });
    reader.resume();
    await expect.poll(() => reader.closed(), { timeout: 20_000 }).toBe(true);
  });
});
