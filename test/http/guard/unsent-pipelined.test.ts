import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { UnsentAnswers } from '../../../src/http/guard/unsent-answers.js';
import { closedAfterEach } from '../../helpers/serving/left-open.js';

/**
 * Answers of pipelined requests (unsent-answers.ts `hold`) queued behind an earlier answer of
 * their connection when that connection closes. Node emits `close` only on the response the
 * connection is sending: those queued behind it never get one, and their counted bytes stayed held
 * for the life of the process, a little less room for every big answer of everyone, whether the
 * client left or the stall bound ended it.
 */

/** Far more than loopback's socket buffers take for a client that does not read. */
const BIG = 24 * 1024 * 1024;
const SMALL = 3000;

const open = closedAfterEach();

/** A server answering its first request with BIG bytes and every later one with SMALL, each built whole and counted. */
async function serving(stallMs: number, late = false): Promise<{ port: number; answers: UnsentAnswers; responses: ServerResponse[] }> {
  const answers = new UnsentAnswers(1024 * 1024 * 1024, stallMs, { warn: () => undefined });
  const responses: ServerResponse[] = [];
  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    const first = responses.length === 0;
    const body = Buffer.alloc(first ? BIG : SMALL, 'x');
    const answer = (): void => {
      responses.push(response);
      answers.hold(body.length, response);
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
      response.end(body);
    };
    // `late`: the later answers are built only once their connection has closed (a slow build).
    if (first || !late) answer();
    else {
      responses.push(response);
      request.socket.once('close', () => {
        responses.pop();
        answer();
      });
    }
  };
  const server = createServer(handler);
  open.closeServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, answers, responses };
}

/** A client that sends `count` requests at once on one connection and reads nothing after its first bytes. */
async function pipelining(port: number, count: number): Promise<Socket> {
  const socket = new Socket({ highWaterMark: 1024 } as ConstructorParameters<typeof Socket>[0]);
  socket.on('error', () => undefined);
  open.sockets.push(socket);
  socket.once('data', () => socket.pause());
  await new Promise<void>((resolve) => socket.connect(port, '127.0.0.1', resolve));
  socket.write(`GET / HTTP/1.1\r\nHost: localhost\r\n\r\n`.repeat(count));
  return socket;
}

describe('answers of pipelined requests queued behind an unread one', () => {
  for (const ended of ['its client leaves', 'the stall bound ends it'] as const) {
    it(`are given back when their connection closes (${ended})`, { timeout: 60_000 }, async () => {
      const { port, answers, responses } = await serving(ended === 'its client leaves' ? 0 : 300);
      const client = await pipelining(port, 4);
      // All four answered: the first is being sent, the three others wait behind it, counted.
      await expect.poll(() => responses.length, { timeout: 20_000 }).toBe(4);
      expect(answers.held).toBe(BIG + 3 * SMALL);
      if (ended === 'its client leaves') client.destroy();
      await new Promise<void>((resolve) => (responses[0]!.closed ? resolve() : responses[0]!.once('close', () => resolve())));
      await expect.poll(() => answers.held, { timeout: 20_000 }).toBe(0);
    });
  }

  it('are not counted once their connection has closed', { timeout: 60_000 }, async () => {
    const { port, answers, responses } = await serving(0, true);
    const client = await pipelining(port, 3);
    await expect.poll(() => responses.length, { timeout: 20_000 }).toBe(3);
    expect(answers.held).toBe(BIG);
    client.destroy();
    // The two later answers are built and counted after their connection closed: never sent.
    await new Promise<void>((resolve) => (responses[0]!.closed ? resolve() : responses[0]!.once('close', () => resolve())));
    await expect.poll(() => responses.filter((response) => response.writableEnded).length, { timeout: 20_000 }).toBe(3);
    expect(answers.held).toBe(0);
  });
});
