import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { corpusStorage, send, startServer, type TestServer } from '../security/server.js';
import { collectGarbage } from './memory.js';

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

let server: TestServer | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close();
  server = undefined;
});

/** A connection that sends a request and never reads the answer. */
function nonReader(port: number, target: string): Socket {
  const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
  socket.pause();
  socket.on('error', () => undefined);
  sockets.push(socket);
  return socket;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function buffersInUse(): number {
  collectGarbage();
  return process.memoryUsage().arrayBuffers;
}

describe('clients that do not read', () => {
  it('hold at most the unsent-bytes budget plus the answers being built, while /root keeps answering', { timeout: 120_000 }, async () => {
    server = await startServer(corpusStorage('collections'), { maxUnsentBytes: CAPACITY });
    const port = server.port;
    const before = buffersInUse();
    for (let i = 0; i < CLIENTS; i++) nonReader(port, BIG);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let peak = 0;
    let roots = 0;
    const look = async (): Promise<void> => {
      const root = await rawRequest(agent, port, 'GET', '/microstream/root', { Host: `127.0.0.1:${port}` });
      expect(root.status).toBe(200);
      roots++;
      peak = Math.max(peak, buffersInUse() - before);
      await sleep(200);
    };
    try {
      // Until the budget is full (however long building takes on a busy machine) ...
      while (server.app.unsentAnswers.held < CAPACITY) await look();
      // ... and then long enough for all 16 answers to be built if nothing held them back.
      const end = Date.now() + 5000;
      while (Date.now() < end) await look();
    } finally {
      agent.destroy();
    }
    // Unbounded, 16 answers of 7.1 MiB (114 MiB) would be held; bounded: the budget, overshot by
    // the answers that were being built when it filled (2), plus slack for buffers not yet collected.
    console.log(`slow readers: peak ${(peak / 1048576).toFixed(1)} MiB of buffers held; held by the budget ${server.app.unsentAnswers.held} bytes; /root answered ${roots} times`);
    expect(peak).toBeLessThan(CAPACITY + 3 * BIG_BYTES);
    expect(server.app.unsentAnswers.held).toBeGreaterThanOrEqual(CAPACITY);
    expect(server.app.unsentAnswers.held).toBeLessThan(CAPACITY + 3 * BIG_BYTES);

    // When the clients go, their answers are released and the waiting requests proceed.
    for (const s of sockets.splice(0)) s.destroy();
    await expect.poll(() => server!.app.unsentAnswers.held, { timeout: 10_000 }).toBe(0);
  });

  it('answers 503 naming the budget to a big request that found no room before its deadline', async () => {
    // The deadline leaves the first answer time to be built on a busy machine; it is far bigger
    // than what the kernel's socket buffers take, so most of it stays held.
    server = await startServer(corpusStorage('collections'), { maxUnsentBytes: 1024 * 1024, requestTimeoutMs: 5000 });
    nonReader(server.port, BIG);
    await expect.poll(() => server!.app.unsentAnswers.held, { timeout: 10_000 }).toBeGreaterThan(0);
    const answer = await send(server.port, 'GET', BIG);
    expect(answer.status).toBe(503);
    expect(String(answer.headers['x-storage-inspector-error'])).toMatch(/^SERVER_BUSY: the server holds \d+ bytes of answers that their clients have not read yet/);
    expect(answer.body.toString()).toContain('--max-unsent-bytes');
    // Small answers never wait.
    expect((await send(server.port, 'GET', '/microstream/object/1000000000000000071?variableLength=10')).status).toBe(200);
  });

  it('builds the answers of pipelined requests one after the other, as the client takes them', async () => {
    server = await startServer(corpusStorage('collections'), { maxUnsentBytes: 64 * 1024 * 1024 });
    const port = server.port;
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    socket.pause();
    const request = `GET ${BIG} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
    socket.write(request.repeat(3));
    await expect.poll(() => server!.app.unsentAnswers.held, { timeout: 10_000 }).toBeGreaterThan(0);
    await sleep(1500);
    // One answer is held for the connection; the later two wait until it has been taken.
    expect(server.app.unsentAnswers.held).toBeLessThan(2 * BIG_BYTES);
    let received = 0;
    socket.on('data', (d: Buffer) => (received += d.length));
    socket.resume();
    await expect.poll(() => received, { timeout: 20_000 }).toBeGreaterThan(3 * BIG_BYTES);
  });
});
