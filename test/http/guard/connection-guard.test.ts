import { getEventListeners } from 'node:events';
import { createServer, IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, Socket, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectionGuard, defaultMaxConnections, DESCRIPTOR_RESERVE } from '../../../src/http/guard/connections.js';
import { descriptorLimit } from '../../../src/storage/source/file-reader.js';

/**
 * ConnectionGuard (connections.ts) on a plain loopback HTTP server, raw sockets as clients: the
 * responses in flight per connection, pipelined requests waiting for the earlier answers, the
 * idle connection evicted for a newcomer, and a shutdown that waits for answers in flight and
 * counts what it had to cut.
 */

interface Held {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
}

let server: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  vi.useRealTimers();
  for (const socket of sockets.splice(0)) socket.destroy();
  if (server !== undefined) await new Promise<void>((resolve) => server!.close(() => resolve()));
  server = undefined;
});

/** A server whose requests wait in `held` until the test answers them. */
async function guarded(maxConnections: number, onRequest?: (guard: ConnectionGuard, held: Held) => void): Promise<{ guard: ConnectionGuard; held: Held[]; port: number }> {
  const held: Held[] = [];
  server = createServer((request, response) => {
    held.push({ request, response });
    onRequest?.(guard, { request, response });
  });
  const guard = new ConnectionGuard(server, maxConnections, false);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { guard, held, port: (server.address() as AddressInfo).port };
}

function client(port: number, allowHalfOpen = false): { socket: Socket; text: () => string; closed: Promise<void> } {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen });
  socket.on('error', () => undefined);
  sockets.push(socket);
  let text = '';
  socket.on('data', (data: Buffer) => (text += data.toString('latin1')));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return { socket, text: () => text, closed };
}

const GET = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

/** Connections the server itself holds open (refused ones included, until they are closed). */
function serverConnections(): Promise<number> {
  return new Promise((resolve, reject) => server!.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

/** Resolves after the I/O and timers due now have run (what a connection's close set off has happened). */
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

// Each test takes well under a second; a guard that never answers fails it in five, not in the suite's sixty.
describe('connection guard', { timeout: 5_000 }, () => {
  it('counts open connections and responses in flight, each until it is sent', async () => {
    const { guard, held, port } = await guarded(10);
    expect(guard.stats).toEqual({ open: 0, inFlight: 0, refused: 0, evicted: 0 });
    const a = client(port);
    a.socket.write(GET('/a'));
    client(port);
    await expect.poll(() => held.length).toBe(1);
    await expect.poll(() => guard.stats.open).toBe(2);
    expect(guard.stats.inFlight).toBe(1);
    held[0]!.response.end('done');
    await expect.poll(() => guard.stats.inFlight).toBe(0);
    // Sent is handed to the kernel, not yet read by the client: its bytes arrive a turn or more later.
    await expect.poll(() => a.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\nContent-Length: 4\r\n\r\ndone$/);
    a.socket.destroy();
    await expect.poll(() => guard.stats.open).toBe(1);
  });

  it('lets a pipelined request wait until the answers before it are sent', async () => {
    const { guard, held, port } = await guarded(10);
    const a = client(port);
    a.socket.write(GET('/first') + GET('/second') + GET('/third'));
    await expect.poll(() => held.length).toBe(3);
    expect(guard.stats.inFlight).toBe(3);
    const order: string[] = [];
    await guard.earlierResponsesSent(held[0]!.request);
    order.push('first may go');
    const second = guard.earlierResponsesSent(held[1]!.request).then(() => order.push('second may go'));
    const third = guard.earlierResponsesSent(held[2]!.request).then(() => order.push('third may go'));
    await expect.poll(() => guard.waitingForEarlierResponses).toBe(2);
    expect(order).toEqual(['first may go']);
    held[0]!.response.end('1');
    await second;
    expect(order).toEqual(['first may go', 'second may go']);
    expect(guard.waitingForEarlierResponses).toBe(1);
    held[1]!.response.end('2');
    await third;
    expect(order).toEqual(['first may go', 'second may go', 'third may go']);
    held[2]!.response.end('3');
    await expect.poll(() => guard.stats.inFlight).toBe(0);
    // A request whose answer is sent already waits for nothing.
    await guard.earlierResponsesSent(held[1]!.request);
  });

  it('has tracked a request by the time the server\'s handler runs, so that a wait asked at once waits its turn', async () => {
    const order: string[] = [];
    const { guard, held, port } = await guarded(10, (guard, { request }) => {
      void guard.earlierResponsesSent(request).then(() => order.push(`${request.url} may go`));
    });
    const a = client(port);
    a.socket.write(GET('/first') + GET('/second'));
    await expect.poll(() => held.length).toBe(2);
    await expect.poll(() => order).toEqual(['/first may go']);
    expect(guard.waitingForEarlierResponses).toBe(1);
    held[0]!.response.end('1');
    await expect.poll(() => order).toEqual(['/first may go', '/second may go']);
    held[1]!.response.end('2');
  });

  it('stops a pipelined request\'s wait when its signal aborts, or its connection closes', async () => {
    const { guard, held, port } = await guarded(10);
    const a = client(port);
    a.socket.write(GET('/first') + GET('/second') + GET('/third'));
    await expect.poll(() => held.length).toBe(3);
    const abort = new AbortController();
    const aborted = guard.earlierResponsesSent(held[1]!.request, abort.signal);
    abort.abort(new Error('shutting down'));
    await expect(aborted).rejects.toThrow('shutting down');
    const third = guard.earlierResponsesSent(held[2]!.request);
    a.socket.destroy();
    await third;
    await expect.poll(() => guard.stats.open).toBe(0);
  });

  it('leaves no listener on the signal of a wait that ended (the shutdown signal is shared by every request)', async () => {
    const { guard, held, port } = await guarded(10);
    const a = client(port);
    a.socket.write(GET('/first') + GET('/second'));
    await expect.poll(() => held.length).toBe(2);
    const shutdown = new AbortController();
    const second = guard.earlierResponsesSent(held[1]!.request, shutdown.signal);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
    held[0]!.response.end('1');
    await second;
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
    held[1]!.response.end('2');
  });

  it('at the cap, closes the connection idle the longest for a newcomer, and refuses one when all are busy', async () => {
    const { guard, held, port } = await guarded(2);
    const busy = client(port);
    busy.socket.write(GET('/busy'));
    await expect.poll(() => held.length).toBe(1);
    const idle = client(port);
    await expect.poll(() => guard.stats.open).toBe(2);
    const newcomer = client(port);
    await idle.closed;
    expect(guard.stats).toMatchObject({ open: 2, evicted: 1, refused: 0 });
    newcomer.socket.write(GET('/new'));
    await expect.poll(() => held.length).toBe(2);
    const refused = client(port);
    await refused.closed;
    const body = 'Service Unavailable: this storage-inspector has as many connections as it accepts (--max-connections), all of them busy. Try again in a moment.\n';
    expect(refused.text()).toBe(
      'HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain;charset=utf-8\r\nRetry-After: 1\r\n' +
        'X-Storage-Inspector-Error: TOO_MANY_CONNECTIONS: all connections are busy (--max-connections)\r\nConnection: close\r\n' +
        `Content-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(guard.stats).toMatchObject({ open: 2, evicted: 1, refused: 1 });
    expect(busy.text()).toBe('');
  });

  it('evicts the connection idle the longest, not a newer idle one', async () => {
    const { guard, held, port } = await guarded(2);
    const older = client(port);
    older.socket.write(GET('/older'));
    await expect.poll(() => held.length).toBe(1);
    const newer = client(port);
    newer.socket.write(GET('/newer'));
    await expect.poll(() => held.length).toBe(2);
    held[1]!.response.end('newer');
    await expect.poll(() => newer.text()).toContain('newer');
    held[0]!.response.end('older');
    await expect.poll(() => older.text()).toContain('older');
    // Both idle now; "newer" has been idle the longest.
    client(port);
    await newer.closed;
    expect(older.socket.destroyed).toBe(false);
    expect(guard.stats).toMatchObject({ open: 2, evicted: 1 });
  });

  it('shuts down at once without connections, and closes idle ones at once', async () => {
    const { guard, port } = await guarded(10);
    expect(await guard.drain(60_000)).toEqual({ inFlightAtStart: 0, cut: 0, unanswered: 0 });
    const idle = client(port);
    await expect.poll(() => guard.stats.open).toBe(1);
    expect(await guard.drain(60_000)).toEqual({ inFlightAtStart: 0, cut: 0, unanswered: 0 });
    await idle.closed;
  });

  it('lets the answers in flight finish before it closes their connections', async () => {
    const { guard, held, port } = await guarded(10);
    const a = client(port);
    a.socket.write(GET('/slow'));
    const idle = client(port);
    await expect.poll(() => held.length).toBe(1);
    await expect.poll(() => guard.stats.open).toBe(2);
    const drained = guard.drain(60_000);
    await idle.closed;
    expect(a.socket.destroyed).toBe(false);
    held[0]!.response.end('the answer');
    expect(await drained).toEqual({ inFlightAtStart: 1, cut: 0, unanswered: 0 });
    await a.closed;
    expect(a.text()).toContain('the answer');
  });

  it('while shutting down, keeps a connection open until the last of its pipelined answers is sent', async () => {
    const { guard, held, port } = await guarded(10);
    const a = client(port);
    a.socket.write(GET('/first') + GET('/second'));
    await expect.poll(() => held.length).toBe(2);
    const drained = guard.drain(60_000);
    held[0]!.response.end('1');
    await expect.poll(() => a.text()).toMatch(/\r\n\r\n1$/);
    await expect.poll(() => guard.stats.inFlight).toBe(1);
    await settled();
    expect(a.socket.destroyed).toBe(false);
    held[1]!.response.end('2');
    expect(await drained).toEqual({ inFlightAtStart: 2, cut: 0, unanswered: 0 });
    await a.closed;
    expect(a.text()).toMatch(/\r\n\r\n1HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n2$/);
  });

  it('cuts what is still in flight when the shutdown time is up, counting answers begun and not begun', async () => {
    const { guard, held, port } = await guarded(10);
    const begun = client(port);
    begun.socket.write(GET('/begun'));
    const waiting = client(port);
    waiting.socket.write(GET('/waiting'));
    await expect.poll(() => held.length).toBe(2);
    const begunAt = held.findIndex((h) => h.request.url === '/begun');
    held[begunAt]!.response.writeHead(200, { 'content-type': 'text/plain' });
    held[begunAt]!.response.write('part');
    await expect.poll(() => begun.text()).toContain('part');
    expect(await guard.drain(1)).toEqual({ inFlightAtStart: 2, cut: 1, unanswered: 1 });
    await begun.closed;
    await waiting.closed;
  });

  it('keeps a keep-alive connection open after its answer, for its next request', async () => {
    const { guard, held, port } = await guarded(10);
    const a = client(port);
    a.socket.write(GET('/first'));
    await expect.poll(() => held.length).toBe(1);
    held[0]!.response.end('1');
    await expect.poll(() => guard.stats.inFlight).toBe(0);
    a.socket.write(GET('/second'));
    await expect.poll(() => held.length).toBe(2);
    held[1]!.response.end('2');
    await expect.poll(() => a.text()).toMatch(/\r\n\r\n1HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n2$/);
    expect(a.socket.destroyed).toBe(false);
    expect(guard.stats).toMatchObject({ open: 1, inFlight: 0 });
  });

  it('lets a request this guard never saw (another server\'s) wait for nothing', async () => {
    const { guard } = await guarded(10);
    await guard.earlierResponsesSent(new IncomingMessage(new Socket()));
    expect(guard.waitingForEarlierResponses).toBe(0);
  });

  it('hands a refused connection to no one, and closes it two seconds later when its client keeps it open', async () => {
    const { guard, held, port } = await guarded(1);
    const busy = client(port);
    busy.socket.write(GET('/busy'));
    await expect.poll(() => held.length).toBe(1);
    const refused = client(port, true);
    refused.socket.write(GET('/refused'));
    await expect.poll(() => refused.text()).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n[\s\S]*Try again in a moment\.\n$/);
    expect(await serverConnections()).toBe(2);
    // The server's side of the refused connection is closed after its linger; nothing read its request.
    await expect.poll(serverConnections, { timeout: 4_000 }).toBe(1);
    await settled();
    expect(held.map((h) => h.request.url)).toEqual(['/busy']);
    expect(guard.stats).toMatchObject({ open: 1, inFlight: 1, refused: 1 });
  });

  it('survives a refused client that resets its connection instead of closing it', async () => {
    const escaped: unknown[] = [];
    const monitor = (error: unknown): void => void escaped.push(error);
    process.on('uncaughtExceptionMonitor', monitor);
    try {
      const { guard, held, port } = await guarded(1);
      const busy = client(port);
      busy.socket.write(GET('/busy'));
      await expect.poll(() => held.length).toBe(1);
      const resetting = client(port);
      resetting.socket.once('data', () => resetting.socket.resetAndDestroy());
      await resetting.closed;
      await expect.poll(serverConnections).toBe(1);
      await settled();
      expect(escaped).toEqual([]);
      expect(guard.stats.refused).toBe(1);
    } finally {
      process.off('uncaughtExceptionMonitor', monitor);
    }
  });

  it('makes server.close() close the idle connections at once, not those with an answer in flight', async () => {
    const { held, port } = await guarded(10);
    const busy = client(port);
    busy.socket.write(GET('/busy'));
    const idle = client(port);
    await expect.poll(() => held.length).toBe(1);
    await expect.poll(serverConnections).toBe(2);
    const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
    await idle.closed;
    expect(busy.socket.destroyed).toBe(false);
    held[0]!.response.end('still answered');
    await expect.poll(() => busy.text()).toContain('\r\n\r\nstill answered');
    busy.socket.destroy();
    await closed;
    server = undefined;
  });

  it('shuts down once every connection has closed, not when the first one does', async () => {
    const { guard, held, port } = await guarded(10);
    client(port).socket.write(GET('/a'));
    client(port).socket.write(GET('/b'));
    await expect.poll(() => held.length).toBe(2);
    let drained = false;
    const drain = guard.drain(60_000).then((result) => {
      drained = true;
      return result;
    });
    held[0]!.response.end('a');
    await expect.poll(() => guard.stats.open).toBe(1);
    await settled();
    expect(drained).toBe(false);
    held[1]!.response.end('b');
    expect(await drain).toEqual({ inFlightAtStart: 2, cut: 0, unanswered: 0 });
  });

  it('shuts down an idle connection whose client would keep its side open', async () => {
    const { guard, port } = await guarded(10);
    const halfOpen = client(port, true);
    const ended = new Promise<void>((resolve) => halfOpen.socket.once('end', () => resolve()));
    await expect.poll(() => guard.stats.open).toBe(1);
    expect(await guard.drain(60_000)).toEqual({ inFlightAtStart: 0, cut: 0, unanswered: 0 });
    await ended;
  });

  it('of connections idle since the same moment, closes the one opened first for a newcomer', async () => {
    // Date.now() stands still: every connection is idle since the same millisecond.
    // (expect.poll would move the fake clock on: this waits turn by turn of the event loop instead.)
    vi.useFakeTimers({ toFake: ['Date'] });
    const { guard, port } = await guarded(2);
    const until = async (condition: () => boolean): Promise<void> => {
      while (!condition()) await settled();
    };
    const first = client(port);
    await until(() => guard.stats.open === 1);
    const second = client(port);
    await until(() => guard.stats.open === 2);
    client(port);
    await Promise.race([first.closed, second.closed]);
    expect([first.socket.destroyed, second.socket.destroyed]).toEqual([true, false]);
    expect(guard.stats).toMatchObject({ open: 2, evicted: 1, refused: 0 });
  });

  it('defaults the cap below the descriptor limit, keeping a quarter of it for the storage and 256 more', () => {
    expect(DESCRIPTOR_RESERVE).toBe(256);
    expect(defaultMaxConnections(1024)).toBe(512);
    expect(defaultMaxConnections(4096)).toBe(2816);
    expect(defaultMaxConnections(20_000)).toBe(4096);
    expect(defaultMaxConnections(Number.POSITIVE_INFINITY)).toBe(4096);
    expect(defaultMaxConnections(100)).toBe(16);
    // Without an argument, this process's own limit (1024 where it cannot be told).
    const limit = descriptorLimit();
    if (process.platform === 'linux') expect(limit).toBeGreaterThan(1024);
    expect(defaultMaxConnections()).toBe(defaultMaxConnections(limit ?? 1024));
  });
});
