import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AppOptions } from '../../src/http/app.js';
import { describe, expect, it } from 'vitest';
import { BIG_ANSWER_SLOTS } from '../../src/http/guard/big-answers.js';
import { closedAfterEach } from '../helpers/serving/left-open.js';
import { rawRequest } from '../helpers/serving/raw-http.js';
import { corpusStorage, send, startServer, type TestServer } from '../security/server.js';

/**
 * Clients that ask for big answers and never read them. Without a bound, each one's answer stays
 * in this process's memory until its connection times out: with hundreds of them, gigabytes.
 * Here the bytes held for unsent answers stay near --max-unsent-bytes, the waiting requests hold
 * nothing, and other clients keep being served. (CI-sized: 16 clients and a 8 MiB budget; the
 * 300-client measurement is `npm run bench:abuse -- slow-readers`.)
 */

const BIG = '/microstream/object/1000000000000000071?references=true';
const BIG_BYTES = 7447633;
const CAPACITY = 8 * 1024 * 1024;
const CLIENTS = 16;

const open = closedAfterEach();

/** The collections corpus served with `options`, closed after the test (after its clients). */
async function serve(options: Partial<AppOptions>): Promise<TestServer> {
  const server = await startServer(corpusStorage('collections'), options);
  open.closeServer = () => server.close();
  return server;
}

/** A connection that sends a request and never reads the answer. */
function nonReader(port: number, target: string): Socket {
  const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
  socket.pause();
  socket.on('error', () => undefined);
  open.sockets.push(socket);
  return socket;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('clients that do not read', () => {
  it('hold at most the unsent-bytes budget plus the answers being built, while /root keeps answering', { timeout: 120_000 }, async () => {
    // No stall bound: this measures the budget alone (stalled-whole-answers ends such readers).
    const server = await serve({ maxUnsentBytes: CAPACITY, stallTimeoutMs: 0 });
    const port = server.port;
    const unsent = server.app.unsentAnswers;
    for (let i = 0; i < CLIENTS; i++) nonReader(port, BIG);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let peakHeld = 0;
    let roots = 0;
    const look = async (): Promise<void> => {
      const root = await rawRequest(agent, port, 'GET', '/microstream/root', { Host: `127.0.0.1:${port}` });
      expect(root.status).toBe(200);
      roots++;
      peakHeld = Math.max(peakHeld, unsent.held);
      await sleep(50);
    };
    let rootsAtRest = 0;
    try {
      // Until nothing more can be built (however long building takes on a busy machine): the
      // budget full and every building slot taken by a request waiting for room; the other
      // requests queue for a slot.
      while (!(unsent.held >= CAPACITY && unsent.waiters === BIG_ANSWER_SLOTS)) await look();
      const heldAtRest = unsent.held;
      // In that state /root keeps answering and nothing more is built.
      for (; rootsAtRest < 5; rootsAtRest++) await look();
      expect(unsent.held).toBe(heldAtRest);
      expect(unsent.waiters).toBe(BIG_ANSWER_SLOTS);
    } finally {
      agent.destroy();
    }
    // Unbounded, 16 answers of 7.1 MiB (114 MiB) would be held; bounded: the budget, overshot by
    // the answers that were being built when it filled (at most one per building slot). The
    // server's memory under 300 such clients is measured by `npm run bench:abuse -- slow-readers`.
    console.log(`slow readers: held by the budget ${unsent.held} bytes (peak ${peakHeld}); ${unsent.waiters} requests waiting for room; /root answered ${roots} times`);
    expect(unsent.held).toBeGreaterThanOrEqual(CAPACITY);
    expect(peakHeld).toBeLessThan(CAPACITY + BIG_ANSWER_SLOTS * BIG_BYTES);
    expect(rootsAtRest).toBe(5);

    // When the clients go, their answers are released and the waiting requests proceed.
    for (const s of open.sockets.splice(0)) s.destroy();
    await expect.poll(() => unsent.held, { timeout: 10_000 }).toBe(0);
    await expect.poll(() => unsent.waiters, { timeout: 10_000 }).toBe(0);
  });

  it('answers 503 naming the budget to a big request that found no room before its deadline', async () => {
    // The deadline leaves the first answer time to be built on a busy machine; it is far bigger
    // than what the kernel's socket buffers take, so most of it stays held. Nothing ends the
    // reader that does not read while the test runs, however busy the machine: no stall bound,
    // and no idle-socket timeout (else request timeout + 5 s after its last byte, which on a
    // loaded machine could come before the second request's deadline and give it room).
    const server = await serve({ maxUnsentBytes: 1024 * 1024, requestTimeoutMs: 5000, stallTimeoutMs: 0 });
    server.app.server.setTimeout(0);
    nonReader(server.port, BIG);
    await expect.poll(() => server.app.unsentAnswers.held, { timeout: 30_000 }).toBeGreaterThanOrEqual(1024 * 1024);
    const answer = await send(server.port, 'GET', BIG);
    expect(answer.status).toBe(503);
    expect(String(answer.headers['x-storage-inspector-error'])).toMatch(/^SERVER_BUSY: the server holds \d+ bytes of answers that their clients have not read yet/);
    expect(answer.body.toString()).toContain('--max-unsent-bytes');
    // Small answers never wait.
    expect((await send(server.port, 'GET', '/microstream/object/1000000000000000071?variableLength=10')).status).toBe(200);
  });

  it('builds the answers of pipelined requests one after the other, as the client takes them', async () => {
    const server = await serve({ maxUnsentBytes: 64 * 1024 * 1024, stallTimeoutMs: 0 });
    const port = server.port;
    const socket = connect(port, '127.0.0.1');
    open.sockets.push(socket);
    socket.pause();
    const request = `GET ${BIG} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
    socket.write(request.repeat(3));
    // One answer is held for the connection; the later two wait until it has been taken.
    await expect.poll(() => server.app.unsentAnswers.held, { timeout: 20_000 }).toBeGreaterThan(0);
    await expect.poll(() => server.app.connections.waitingForEarlierResponses, { timeout: 20_000 }).toBe(2);
    expect(server.app.unsentAnswers.held).toBeLessThan(2 * BIG_BYTES);
    expect(server.app.unsentAnswers.waiters).toBe(0);
    let received = 0;
    socket.on('data', (d: Buffer) => (received += d.length));
    socket.resume();
    await expect.poll(() => received, { timeout: 20_000 }).toBeGreaterThan(3 * BIG_BYTES);
  });
});
