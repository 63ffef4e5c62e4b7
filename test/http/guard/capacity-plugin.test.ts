import Fastify, { type FastifyInstance } from 'fastify';
import { Agent, request as httpRequest } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { capacityPlugin } from '../../../src/http/guard/capacity-plugin.js';
import { ConnectionGuard, defaultMaxConnections } from '../../../src/http/guard/connections.js';
import { DEFAULT_MAX_UNSENT_BYTES, UnsentAnswers } from '../../../src/http/guard/unsent-answers.js';

/**
 * The capacity plugin (capacity-plugin.ts) in a fastify application on a loopback port: its
 * connection guard and unsent-bytes budget of the sizes given, every answer counted against the
 * budget until sent, big answers admitted through the same guard and budget, and a shutdown that
 * closes the connections of answers in flight and refuses big answers not yet started.
 */

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** Resolves a pending promise from outside (a route waits for the test). */
function later(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function get(port: number, path: string, agent: Agent | false = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function listening(options: { maxConnections?: number; maxUnsentBytes?: number }, routes: (app: FastifyInstance) => void): Promise<number> {
  app = Fastify({ logger: false });
  await app.register(capacityPlugin, { ...options, tls: false });
  routes(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

/** The error a refused big answer ends with, as the route answers it. */
function failure(error: unknown): { code: unknown; status: unknown; message: unknown } {
  const e = error as { code?: unknown; status?: unknown; message?: unknown };
  return { code: e.code, status: e.status, message: e.message };
}

describe('capacity plugin', { timeout: 5_000 }, () => {
  it('gives the application a connection guard and an unsent-bytes budget of the sizes asked, or the defaults', async () => {
    app = Fastify({ logger: false });
    await app.register(capacityPlugin, { maxConnections: 7, maxUnsentBytes: 1000, tls: false });
    await app.ready();
    // The name other plugins declare as their dependency.
    expect(app.hasPlugin('capacity')).toBe(true);
    expect(app.connections).toBeInstanceOf(ConnectionGuard);
    expect(app.connections.maxConnections).toBe(7);
    expect(app.unsentAnswers).toBeInstanceOf(UnsentAnswers);
    expect(app.unsentAnswers.capacity).toBe(1000);
    expect(app.bigAnswers.closing).toBe(false);
    await app.close();
    app = Fastify({ logger: false });
    await app.register(capacityPlugin, { tls: false });
    await app.ready();
    expect(app.connections.maxConnections).toBe(defaultMaxConnections());
    expect(app.unsentAnswers.capacity).toBe(DEFAULT_MAX_UNSENT_BYTES);
  });

  it('counts every text or binary answer against the budget until its client has it; a stream counts itself', async () => {
    const counted: Record<string, number> = {};
    const port = await listening({}, (app) => {
      app.get('/text', async () => 'x'.repeat(1000));
      // 500 characters, 1,500 bytes in UTF-8: the budget is of bytes held, not of characters.
      app.get('/euro', async (_request, reply) => reply.type('text/plain; charset=utf-8').send('€'.repeat(500)));
      app.get('/binary', async (_request, reply) => reply.type('application/octet-stream').send(Buffer.alloc(2000, 1)));
      app.get('/stream', async (_request, reply) => reply.type('text/plain').send(Readable.from(['streamed'])));
      // Registered after the plugin's hook: sees what it counted.
      app.addHook('onSend', (request, _reply, payload, next) => {
        counted[request.url] = app.unsentAnswers.held;
        next(null, payload);
      });
    });
    expect((await get(port, '/text')).body).toBe('x'.repeat(1000));
    await expect.poll(() => app!.unsentAnswers.held).toBe(0);
    expect((await get(port, '/euro')).body).toBe('€'.repeat(500));
    await expect.poll(() => app!.unsentAnswers.held).toBe(0);
    expect((await get(port, '/binary')).body.length).toBe(2000);
    await expect.poll(() => app!.unsentAnswers.held).toBe(0);
    expect((await get(port, '/stream')).body).toBe('streamed');
    expect(counted).toEqual({ '/text': 1000, '/euro': 1500, '/binary': 2000, '/stream': 0 });
    expect(app!.unsentAnswers.held).toBe(0);
  });

  it('admits a big answer only with room in the same budget: 503 at its deadline while another answer holds it', async () => {
    const holding = later();
    const port = await listening({ maxUnsentBytes: 100 }, (app) => {
      app.get('/holding', async (_request, reply) => {
        app.unsentAnswers.hold(100, reply.raw);
        await holding.promise;
        return 'held';
      });
      app.get('/big', async (request) => {
        const admission = app.bigAnswers.admission(request.raw, Date.now() + 50);
        try {
          await admission.acquire();
          return 'built';
        } catch (error) {
          return failure(error);
        } finally {
          admission.finish();
        }
      });
    });
    const held = get(port, '/holding');
    await expect.poll(() => app!.unsentAnswers.held).toBe(100);
    expect(JSON.parse((await get(port, '/big')).body)).toMatchObject({ code: 'SERVER_BUSY', status: 503 });
    holding.resolve();
    expect((await held).body).toBe('held');
    await expect.poll(() => app!.unsentAnswers.held).toBe(0);
    expect((await get(port, '/big')).body).toBe('built');
  });

  it('makes a big answer wait for the answers before it on its connection (pipelining)', async () => {
    const first = later();
    const port = await listening({}, (app) => {
      app.get('/first', async () => {
        await first.promise;
        return 'first';
      });
      app.get('/big', async (request) => {
        const admission = app.bigAnswers.admission(request.raw, Number.POSITIVE_INFINITY);
        await admission.acquire();
        admission.finish();
        return 'big';
      });
    });
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (data: Buffer) => (text += data.toString('latin1')));
    socket.write('GET /first HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    try {
      await expect.poll(() => app!.connections.waitingForEarlierResponses).toBe(1);
      first.resolve();
      await expect.poll(() => text).toMatch(/\r\n\r\nfirstHTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nbig$/);
      // Not shutting down: the answers keep their connection open.
      expect(text.match(/\r\nConnection: keep-alive\r\n/gi)).toHaveLength(2);
      expect(text).not.toMatch(/\r\nconnection: close\r\n/i);
    } finally {
      socket.destroy();
    }
  });

  it('while shutting down, closes the connection of an answer in flight and refuses a big answer not yet started', async () => {
    const entered = later();
    const proceed = later();
    const port = await listening({}, (app) => {
      app.get('/slow', async (request) => {
        entered.resolve();
        await proceed.promise;
        const admission = app.bigAnswers.admission(request.raw, Number.POSITIVE_INFINITY);
        try {
          await admission.acquire();
          return 'built';
        } catch (error) {
          return failure(error);
        } finally {
          admission.finish();
        }
      });
    });
    // A keep-alive client: the connection closes because the server says so.
    const agent = new Agent({ keepAlive: true });
    try {
      const answer = get(port, '/slow', agent);
      await entered.promise;
      const closed = app!.close();
      await expect.poll(() => app!.bigAnswers.closing).toBe(true);
      proceed.resolve();
      const { headers, body } = await answer;
      expect(headers['connection']).toBe('close');
      expect(JSON.parse(body)).toEqual({
        code: 'SHUTTING_DOWN',
        status: 503,
        message: 'the server is shutting down; this big answer was not started (answers already started are completed)',
      });
      await closed;
    } finally {
      agent.destroy();
    }
    app = undefined;
  });
});
