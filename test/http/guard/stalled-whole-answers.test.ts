import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { Socket, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { UnsentAnswers } from '../../../src/http/guard/unsent-answers.js';
import { closedAfterEach } from '../../helpers/serving/left-open.js';

/**
 * The stall bound of answers built whole (unsent-answers.ts `hold`, stalled-answers.ts) on a plain
 * loopback server, over TCP and TLS, with real clients: one that stops reading has its connection
 * destroyed after the bound, its bytes given back and one warning logged; one that reads slowly but
 * steadily gets its whole answer; a small answer handed to the kernel at once gets no timer.
 */

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../security/fixtures');
const CERT = readFileSync(join(FIXTURES, 'localhost-cert.pem'));
const KEY = readFileSync(join(FIXTURES, 'localhost-key.pem'));

/** Far more than the kernel's socket buffers on loopback take for a client that does not read (a few MB). */
const BIG = 24 * 1024 * 1024;
const PATH = '/whole';

interface Warning {
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

const open = closedAfterEach();

/**
 * A server that answers every request with `bytes` bytes built whole, counted by `answers` as the
 * application's onSend hook and Java lane do (held, then written in one `end`). `responses` gets
 * each response once it is written.
 */
async function serving(
  tls: boolean,
  bytes: number,
  stallMs: number,
): Promise<{ port: number; answers: UnsentAnswers; warnings: Warning[]; responses: ServerResponse[]; written: Promise<ServerResponse> }> {
  const warnings: Warning[] = [];
  const answers = new UnsentAnswers(1024 * 1024 * 1024, stallMs, { warn: (fields, message) => void warnings.push({ fields, message }) });
  const body = Buffer.alloc(bytes, 'x');
  const responses: ServerResponse[] = [];
  let firstWritten: (response: ServerResponse) => void = () => undefined;
  const written = new Promise<ServerResponse>((resolve) => (firstWritten = resolve));
  const handler = (_request: IncomingMessage, response: ServerResponse): void => {
    answers.hold(body.length, response);
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    response.end(body);
    responses.push(response);
    firstWritten(response);
  };
  const server: Server = tls ? createHttpsServer({ cert: CERT, key: KEY }, handler) : createHttpServer(handler);
  open.closeServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, answers, warnings, responses, written };
}

interface Client {
  /** Bytes received so far (headers and body). */
  readonly received: () => number;
  readonly closed: Promise<void>;
  readonly socket: Socket;
}

/**
 * A raw client that asks for the answer. `bytesPerSecond` undefined: it takes its first bytes and
 * then reads nothing until resumed (its socket takes 1 KiB from the kernel before it stops).
 * Infinity: it reads all as it comes. Else it reads steadily at about that rate (each chunk, then a
 * pause as long as the chunk takes at that rate), until the server closes the connection.
 */
function client(port: number, tls: boolean, bytesPerSecond?: number): Client {
  const options = { highWaterMark: 1024 } as ConstructorParameters<typeof Socket>[0];
  const ask = `GET ${PATH} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`;
  let socket: Socket;
  if (tls) {
    // A TLS socket paused and resumed with so small a buffer stops taking anything from the kernel
    // after a few MB (Node 20): only the client that stops reading gets it.
    const small = bytesPerSecond === undefined ? { highWaterMark: 1024 } : {};
    socket = connectTls({ host: '127.0.0.1', port, ca: CERT, servername: 'localhost', ...small }, () => socket.write(ask));
  } else {
    socket = new Socket(options);
    socket.connect(port, '127.0.0.1', () => socket.write(ask));
  }
  socket.on('error', () => undefined);
  open.sockets.push(socket);
  let received = 0;
  socket.on('data', (data: Buffer) => {
    const first = received === 0;
    received += data.length;
    if (bytesPerSecond === undefined) {
      if (first) socket.pause();
    } else if (bytesPerSecond !== Infinity) {
      socket.pause();
      setTimeout(() => socket.resume(), (data.length * 1000) / bytesPerSecond);
    }
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return { received: () => received, closed, socket };
}

/** Resolves once the response has closed (sent completely, or destroyed). */
function responseClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => (response.closed ? resolve() : response.once('close', () => resolve())));
}

describe('an answer built whole', () => {
  for (const tls of [false, true]) {
    const over = tls ? 'TLS' : 'TCP';

    it(`whose client stops reading is ended after the stall bound: connection destroyed, bytes given back, one warning (${over})`, { timeout: 60_000 }, async () => {
      const { port, answers, warnings, responses } = await serving(tls, BIG, 300);
      const stalled = client(port, tls);
      await expect.poll(() => stalled.received(), { timeout: 20_000 }).toBeGreaterThan(0);
      await expect.poll(() => warnings.length, { timeout: 30_000, interval: 20 }).toBe(1);
      const [warning] = warnings;
      expect(warning!.message).toBe(
        `the answer of ${BIG} bytes ended: its client took nothing of it for 300 ms (--stall-timeout); its connection is destroyed (the client sees the answer end early) and what it held is given back`,
      );
      expect(warning!.fields).toMatchObject({ url: PATH, stallMs: 300 });
      // Ended with some of it taken (by the kernel's buffers) and most of it still here.
      const taken = warning!.fields['takenBytes'] as number;
      expect(taken).toBeGreaterThan(0);
      expect(taken).toBeLessThan(BIG);
      await responseClosed(responses[0]!);
      expect(answers.held).toBe(0);
      // Reading again, the client finds its answer cut short.
      stalled.socket.resume();
      await stalled.closed;
      expect(stalled.received()).toBeLessThan(BIG);
      expect(warnings).toHaveLength(1);
    });

    it(`whose client reads slowly but steadily is not ended (${over})`, { timeout: 120_000 }, async () => {
      // 1.5 MB/s against a bound of 2 s: reading takes several bounds, the client takes some within
      // each (the kernel wakes the server to write more once about a third of its send buffer is
      // taken, up to some 1.3 MB: that is the step in which progress is seen), though Node counts
      // the answer's single write pending until its last byte is taken.
      const { port, answers, warnings, written } = await serving(tls, BIG / 2, 2000);
      const reader = client(port, tls, 1.5 * 1024 * 1024);
      const response = await written;
      // Not taken at once: the answer waits here for its client, watched.
      expect(answers.held).toBe(BIG / 2);
      await reader.closed;
      expect(response.writableFinished).toBe(true);
      expect(reader.received()).toBeGreaterThan(BIG / 2);
      expect(warnings).toEqual([]);
      expect(answers.held).toBe(0);
    });
  }

  it('gets a timer only while bytes of it are left over once handed to its connection', { timeout: 60_000 }, async () => {
    // The watch is set, if at all, while the answer is written (`end`): right after, the count of
    // timers says whether it was. Nothing here waits on a timer.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // Small: the kernel takes it at once, no timer is set.
    const small = await serving(false, 2000, 300);
    const reader = client(small.port, false, Infinity);
    await small.written;
    expect(vi.getTimerCount()).toBe(0);
    await reader.closed;
    expect(small.answers.held).toBe(0);
    await open.closeServer?.();
    open.closeServer = undefined;
    // Big, to a client that does not read: one timer, for the answer, until its connection goes.
    const big = await serving(false, BIG, 300);
    const stalled = client(big.port, false);
    const response = await big.written;
    expect(vi.getTimerCount()).toBe(1);
    expect(big.answers.held).toBe(BIG);
    stalled.socket.destroy();
    await responseClosed(response);
    expect(vi.getTimerCount()).toBe(0);
    expect(big.answers.held).toBe(0);
  });
});
