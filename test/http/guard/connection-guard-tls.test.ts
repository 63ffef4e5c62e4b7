import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect as connectTcp, type AddressInfo, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionGuard } from '../../../src/http/guard/connections.js';

/**
 * ConnectionGuard (connections.ts) on a loopback HTTPS server: requests are tracked through the
 * TLS socket over each raw connection, a refused newcomer is closed without a plaintext answer,
 * and connections still in their handshake are closed by a shutdown and make room at the cap.
 */

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../security/fixtures');
const CERT = readFileSync(join(FIXTURES, 'localhost-cert.pem'));
const KEY = readFileSync(join(FIXTURES, 'localhost-key.pem'));

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

async function guarded(maxConnections: number): Promise<{ guard: ConnectionGuard; held: Held[]; port: number }> {
  const held: Held[] = [];
  server = createServer({ cert: CERT, key: KEY }, (request, response) => held.push({ request, response }));
  const guard = new ConnectionGuard(server, maxConnections, true);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { guard, held, port: (server.address() as AddressInfo).port };
}

interface Client {
  readonly socket: Socket;
  readonly text: () => string;
  readonly closed: Promise<void>;
}

function watch(socket: Socket): Client {
  socket.on('error', () => undefined);
  sockets.push(socket);
  let text = '';
  socket.on('data', (data: Buffer) => (text += data.toString('latin1')));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return { socket, text: () => text, closed };
}

/** A client that speaks TLS, trusting the test certificate. */
const tlsClient = (port: number): Client => watch(connectTls({ host: '127.0.0.1', port, ca: CERT, servername: 'localhost' }));
/** A plain TCP connection to the TLS port: it never starts its handshake. */
const tcpClient = (port: number): Client => watch(connectTcp(port, '127.0.0.1'));

const GET = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`;

describe('connection guard over TLS', { timeout: 5_000 }, () => {
  it('tracks the requests of a TLS connection: in flight until answered, pipelined ones waiting their turn', async () => {
    const { guard, held, port } = await guarded(10);
    const a = tlsClient(port);
    a.socket.write(GET('/first') + GET('/second'));
    await expect.poll(() => held.length).toBe(2);
    expect(guard.stats).toEqual({ open: 1, inFlight: 2, refused: 0, evicted: 0 });
    let secondMayGo = false;
    const second = guard.earlierResponsesSent(held[1]!.request).then(() => (secondMayGo = true));
    await expect.poll(() => guard.waitingForEarlierResponses).toBe(1);
    expect(secondMayGo).toBe(false);
    held[0]!.response.end('1');
    await second;
    held[1]!.response.end('2');
    await expect.poll(() => guard.stats.inFlight).toBe(0);
    await expect.poll(() => a.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n1HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n2$/);
  });

  it('refuses a newcomer when every connection is busy by closing it, without a plaintext answer', async () => {
    const { guard, held, port } = await guarded(1);
    const busy = tlsClient(port);
    busy.socket.write(GET('/busy'));
    await expect.poll(() => held.length).toBe(1);
    const refused = tcpClient(port);
    await refused.closed;
    expect(refused.text()).toBe('');
    expect(guard.stats).toEqual({ open: 1, inFlight: 1, refused: 1, evicted: 0 });
  });

  it('closes connections still in their handshake when it shuts down', async () => {
    const { guard, port } = await guarded(10);
    const handshaking = tcpClient(port);
    await expect.poll(() => guard.stats.open).toBe(1);
    expect(await guard.drain(60_000)).toEqual({ inFlightAtStart: 0, cut: 0, unanswered: 0 });
    await handshaking.closed;
  });

  it('at the cap, closes a connection that never began its handshake to make room, like an idle one', async () => {
    // Otherwise as many silent TCP connections as the cap would lock every client out until
    // their handshake timed out (two minutes by default).
    const { guard, held, port } = await guarded(1);
    const silent = tcpClient(port);
    await expect.poll(() => guard.stats.open).toBe(1);
    const newcomer = tlsClient(port);
    await Promise.race([silent.closed, newcomer.closed]);
    expect(guard.stats).toMatchObject({ refused: 0, evicted: 1 });
    expect(silent.socket.destroyed).toBe(true);
    newcomer.socket.write(GET('/newcomer'));
    await expect.poll(() => held.length).toBe(1);
    expect(guard.stats).toEqual({ open: 1, inFlight: 1, refused: 0, evicted: 1 });
  });
});
