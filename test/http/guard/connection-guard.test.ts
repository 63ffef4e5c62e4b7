import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionGuard } from '../../../src/http/guard/connections.js';

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
  for (const socket of sockets.splice(0)) socket.destroy();
  if (server !== undefined) await new Promise<void>((resolve) => server!.close(() => resolve()));
  server = undefined;
});

/** A server whose requests wait in `held` until the test answers them. */
async function guarded(maxConnections: number): Promise<{ guard: ConnectionGuard; held: Held[]; port: number }> {
  const held: Held[] = [];
  server = createServer((request, response) => held.push({ request, response }));
  const guard = new ConnectionGuard(server, maxConnections, false);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { guard, held, port: (server.address() as AddressInfo).port };
}

function client(port: number): { socket: Socket; text: () => string; closed: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  sockets.push(socket);
  let text = '';
  socket.on('data', (data: Buffer) => (text += data.toString('latin1')));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return { socket, text: () => text, closed };
}

const GET = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

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
    expect(a.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\nContent-Length: 4\r\n\r\ndone$/);
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
});
