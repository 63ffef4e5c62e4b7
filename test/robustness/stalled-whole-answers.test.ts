import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { closedAfterEach } from '../helpers/serving/left-open.js';
import { corpusStorage, send, startServer, type TestServer } from '../security/server.js';

/**
 * Big answers built whole (here the Java-compatible `/object` of a 7.1 MiB list with its
 * references; search, graph, GigaMap, analysis and /api/v1 answers are counted and bounded the same
 * way) whose client keeps its connection open and stops reading. Each held its unsent bytes against
 * --max-unsent-bytes and its connection until the idle-socket timeout (request timeout + 5 s), or
 * for ever with `--request-timeout 0`: a few such clients kept every big answer of everyone else
 * waiting for room. Now such an answer is ended after --stall-timeout, like a streamed one, while a
 * client that keeps reading, however slowly, gets its answer whole.
 */

const BIG = '/microstream/object/1000000000000000071?references=true';
const BIG_BYTES = 7447633;

const open = closedAfterEach();

/** A server whose warnings (pino's JSON lines) are kept; no request timeout, so no idle-socket timeout ends anything. */
async function serving(stallTimeoutMs: number, maxConnections: number): Promise<{ server: TestServer; warnings: string[] }> {
  const warnings: string[] = [];
  const logger = { level: 'warn', stream: { write: (line: string) => void warnings.push(line) } };
  // The budget is smaller than one answer: while the stalled answer is held, no other is built.
  const server = await startServer(corpusStorage('collections'), { stallTimeoutMs, requestTimeoutMs: 0, maxConnections, maxUnsentBytes: 4 * 1024 * 1024, logger });
  open.closeServer = () => server.close();
  return { server, warnings };
}

/**
 * A raw client that asks for BIG. `bytesPerSecond` undefined: it takes its first bytes and then
 * reads nothing until `resume` (its socket takes 1 KiB from the kernel before it stops). Else it
 * reads steadily at about that rate until the server closes the connection.
 */
function client(port: number, bytesPerSecond?: number): { started: Promise<string>; resume: () => void; closed: Promise<void>; received: () => number } {
  const socket = new Socket(bytesPerSecond === undefined ? ({ highWaterMark: 1024 } as ConstructorParameters<typeof Socket>[0]) : {});
  socket.connect(port, '127.0.0.1', () => socket.write(`GET ${BIG} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
  socket.on('error', () => undefined);
  open.sockets.push(socket);
  let received = 0;
  const started = new Promise<string>((resolve) => socket.once('data', (first: Buffer) => resolve(first.toString('latin1', 0, 12))));
  socket.on('data', (data: Buffer) => {
    const first = received === 0;
    received += data.length;
    if (bytesPerSecond === undefined) {
      if (first) socket.pause();
    } else {
      socket.pause();
      setTimeout(() => socket.resume(), (data.length * 1000) / bytesPerSecond);
    }
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return { started, resume: () => socket.resume(), closed, received: () => received };
}

describe('a big answer built whole whose client stops reading', () => {
  it('is ended after --stall-timeout: connection destroyed, bytes given back, a warning logged, a teammate served', { timeout: 120_000 }, async () => {
    const { server, warnings } = await serving(500, 2);
    const whole = await send(server.port, 'GET', BIG);
    expect(whole.status).toBe(200);
    expect(whole.body.length).toBe(BIG_BYTES);
    await expect.poll(() => server.app.connections.stats.open, { timeout: 10_000 }).toBe(0);

    const stalled = client(server.port);
    expect(await stalled.started).toBe('HTTP/1.1 200');
    // A teammate asks meanwhile: its big answer waits for room while the stalled one is held.
    const teammate = send(server.port, 'GET', BIG);
    await expect.poll(() => warnings.find((line) => line.includes(`the answer of ${BIG_BYTES} bytes ended`)), { timeout: 30_000, interval: 20 }).toBeDefined();
    const warning = JSON.parse(warnings.find((line) => line.includes('bytes ended'))!) as { msg: string; url: string; stallMs: number; takenBytes: number; level: number };
    expect(warning.level).toBe(40);
    expect(warning.msg).toContain('its client took nothing of it for 500 ms (--stall-timeout)');
    expect([warning.url, warning.stallMs]).toEqual([BIG, 500]);
    // Some of it went (into the kernel's buffers), most of it was still here.
    expect(warning.takenBytes).toBeGreaterThan(0);
    expect(warning.takenBytes).toBeLessThan(BIG_BYTES);

    // The teammate gets the answer whole, byte for byte; then nothing is held and no connection is open.
    const answer = await teammate;
    expect(answer.status).toBe(200);
    expect(answer.body.equals(whole.body)).toBe(true);
    await expect.poll(() => server.app.connections.stats.open, { timeout: 10_000 }).toBe(0);
    expect(server.app.unsentAnswers.held).toBe(0);
    expect(warnings.filter((line) => line.includes('bytes ended'))).toHaveLength(1);

    // Reading again, the stalled client finds its answer cut short.
    stalled.resume();
    await stalled.closed;
    expect(stalled.received()).toBeLessThan(BIG_BYTES);
  });

  it('is not ended while its client reads, however slowly: it gets the answer whole', { timeout: 120_000 }, async () => {
    // 1.5 MB/s against a bound of 2 s: the answer takes a few bounds to read, some of it is taken
    // within each (seen in steps of up to a third of the kernel's send buffer), though Node counts
    // the answer's single write pending until its last byte is taken.
    const { server, warnings } = await serving(2000, 2);
    const reader = client(server.port, 1.5 * 1024 * 1024);
    expect(await reader.started).toBe('HTTP/1.1 200');
    await expect.poll(() => server.app.unsentAnswers.held, { timeout: 20_000 }).toBe(BIG_BYTES);
    await reader.closed;
    expect(reader.received()).toBeGreaterThan(BIG_BYTES);
    expect(warnings).toEqual([]);
    expect(server.app.unsentAnswers.held).toBe(0);
  });
});
