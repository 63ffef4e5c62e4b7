import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../src/cli/commands/serve.js';
import { defaultMaxConnections, DESCRIPTOR_RESERVE } from '../../src/http/guard/connections.js';
import { descriptorLimit, storageDescriptorBudget } from '../../src/storage/source/file-reader.js';
import { spawnCli } from '../security/cli.js';
import { corpusStorage, send, startServer, type TestServer } from '../security/server.js';

/**
 * A cap on open connections, below the descriptor limit: idle sockets cannot take every
 * descriptor (new clients would get nothing, and the storage could not open its files). At the cap
 * the longest idle connection makes room; when all are busy, the newcomer gets a polite 503.
 * (CI-sized; 20,000 idle sockets: `npm run bench:abuse -- idle-sockets`.)
 */

const BIG = '/microstream/object/1000000000000000071?references=true';

let server: TestServer | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close();
  server = undefined;
});

function open(port: number): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  sockets.push(socket);
  return socket;
}

function openConnections(s: TestServer): Promise<number> {
  return new Promise((resolve, reject) => s.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

/** Bytes that arrive on a raw socket until it closes. */
function received(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
    socket.on('close', () => resolve(data));
  });
}

describe('connection cap', () => {
  it('never holds more connections than the cap; idle ones make room for new clients', async () => {
    server = await startServer(corpusStorage('graph'), { maxConnections: 8 });
    // Every connection seen by the server (kept, closed to make room, or refused) before the next one opens.
    const stats = server.app.connections;
    const seen = (): number => stats.stats.open + stats.stats.evicted + stats.stats.refused;
    for (let i = 0; i < 30; i++) {
      open(server.port);
      await expect.poll(seen, { timeout: 20_000, interval: 5 }).toBe(i + 1);
    }
    expect(stats.stats.refused).toBe(0);
    expect(await openConnections(server)).toBeLessThanOrEqual(8);
    // A new client is served: the connection idle the longest was closed for it.
    const answer = await send(server.port, 'GET', '/microstream/root');
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('{"name":"ROOT","objectId":"1000000000000000028"}');
    expect(server.app.connections.stats.evicted).toBeGreaterThanOrEqual(22);
    expect(await openConnections(server)).toBeLessThanOrEqual(8);
  });

  it('answers 503 with Retry-After when every connection has a request in flight', async () => {
    // One big answer fills the unsent-bytes budget; the other big requests wait for room, busy.
    server = await startServer(corpusStorage('collections'), { maxConnections: 4, maxUnsentBytes: 1024 * 1024, requestTimeoutMs: 20_000 });
    for (let i = 0; i < 4; i++) {
      const socket = open(server.port);
      socket.pause();
      socket.write(`GET ${BIG} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`);
    }
    await expect.poll(() => server!.app.connections.stats.inFlight, { timeout: 10_000 }).toBe(4);
    const newcomer = open(server.port);
    const text = await received(newcomer);
    expect(text).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(text).toContain('\r\nRetry-After: 1\r\n');
    expect(text).toContain('TOO_MANY_CONNECTIONS');
    expect(text).toContain('(--max-connections)');
    expect(server.app.connections.stats.refused).toBe(1);
  });

  it('defaults below the descriptor limit, keeping descriptors for the storage', () => {
    // The storage may keep a quarter of the limit open (at most 4096), 256 more are kept aside.
    expect(defaultMaxConnections(1024)).toBe(1024 - 256 - DESCRIPTOR_RESERVE);
    expect(defaultMaxConnections(20_000)).toBe(4096);
    expect(defaultMaxConnections(4096)).toBe(4096 - 1024 - DESCRIPTOR_RESERVE);
    expect(defaultMaxConnections(100)).toBe(16);
    const limit = descriptorLimit();
    if (process.platform === 'linux') expect(limit).toBeGreaterThan(0);
    if (limit !== undefined) expect(defaultMaxConnections()).toBeLessThanOrEqual(limit - storageDescriptorBudget(limit) - DESCRIPTOR_RESERVE);
    expect(parseServeArgs(['dir', '--max-connections', '100'])).toMatchObject({ maxConnections: 100 });
    expect(() => parseServeArgs(['dir', '--max-connections', '0'])).toThrow(/invalid --max-connections "0": an integer from 1 to 1000000/);
  });

  it('serve warns when --max-connections leaves too few descriptors for the storage', async () => {
    const limit = descriptorLimit();
    if (limit === undefined || limit > 1_000_000) return;
    const run = spawnCli(['serve', corpusStorage('graph'), '--port', '0', '--quiet', '--no-follow', '--max-connections', String(limit)]);
    try {
      await run.port;
      const reserve = storageDescriptorBudget(limit) + DESCRIPTOR_RESERVE;
      expect(run.stderr()).toContain(`warning: --max-connections ${limit} leaves fewer than ${reserve} of the ${limit} file descriptors`);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect((await run.exit).code).toBe(0);
  });
});
