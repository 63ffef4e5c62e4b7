import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAuthConfig } from '../../../src/http/guard/auth.js';
import { hostAllowList } from '../../../src/http/guard/host-check.js';
import { OpeningServer } from '../../../src/http/ops/opening-server.js';
import { corpusStorage, send, startServer, type TestServer } from '../../security/server.js';

/**
 * The port's stand-in while storages open (opening-server.ts): liveness yes, readiness no (in the
 * shape the application's /ready has), everything else 503 with Retry-After, access checked as the
 * application checks it; then the port is handed over to the application.
 */

const TOKEN = 'opening-token-0123456789abcdef';

describe('the port while the storages open', () => {
  let opening: OpeningServer;
  let app: TestServer;
  beforeAll(async () => {
    opening = await OpeningServer.listen({
      host: '127.0.0.1',
      port: 0,
      status: () => 'opening the storage, 3 s so far',
      following: true,
      allowedHosts: hostAllowList('127.0.0.1', undefined),
    });
    app = await startServer(corpusStorage('graph'));
  });
  afterAll(async () => {
    await opening.handOver();
    await app.close();
  });

  it('GET /health is 200 as the application answers it, and nothing keeps the connection', async () => {
    const answer = await send(opening.port, 'GET', '/health');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers['connection']).toBe('close');
    expect(JSON.parse(answer.body.toString())).toEqual({ status: 'ok' });
    const head = await send(opening.port, 'HEAD', '/health');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });

  it('GET /ready is 503 with what is being opened, with the fields the application gives', async () => {
    const answer = await send(opening.port, 'GET', '/ready?x=1');
    expect(answer.status).toBe(503);
    const body = JSON.parse(answer.body.toString()) as Record<string, unknown>;
    expect(body).toEqual({ status: 'not ready', reason: 'opening the storage, 3 s so far', entities: 0, generation: 0, following: true, followLagSeconds: 0, problems: [] });
    const later = JSON.parse((await send(app.port, 'GET', '/ready')).body.toString()) as Record<string, unknown>;
    expect(Object.keys(body).filter((k) => k !== 'reason')).toEqual(Object.keys(later).map((k) => k).filter((k) => k !== 'reason'));
  });

  it('answers every other route 503 with Retry-After', async () => {
    for (const target of ['/microstream/root', '/api/v1/storage', '/viewer/', '/metrics']) {
      const answer = await send(opening.port, 'GET', target);
      expect(answer.status, target).toBe(503);
      expect(answer.headers['retry-after']).toBe('5');
      expect(answer.body.toString()).toBe('Service Unavailable: opening the storage, 3 s so far; try again shortly.\n');
    }
  });

  it('refuses a foreign Host as the application does', async () => {
    const answer = await send(opening.port, 'GET', '/health', { Host: 'rebound.example' });
    expect(answer.status).toBe(421);
  });
});

describe('the stand-in with credentials, and its hand-over', () => {
  it('asks for the credentials the application asks for, then gives the port up', async () => {
    const auth = loadAuthConfig({ env: { STORAGE_INSPECTOR_TOKEN: TOKEN }, warn: () => undefined });
    const opening = await OpeningServer.listen({ host: '127.0.0.1', port: 0, status: () => 'opening 2 storages, 0 s so far', following: false, auth });
    const refused = await send(opening.port, 'GET', '/health');
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="storage-inspector"');
    expect((await send(opening.port, 'GET', '/health', { Authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    const port = opening.port;
    await opening.handOver();
    await expect(send(port, 'GET', '/health')).rejects.toThrow(/ECONNREFUSED/);
    // The port is free for the application.
    const next = createServer((_request, response) => response.end('next'));
    await new Promise<void>((resolve) => next.listen({ host: '127.0.0.1', port }, resolve));
    expect((await send(port, 'GET', '/')).body.toString()).toBe('next');
    await new Promise<void>((resolve) => next.close(() => resolve()));
  });
});
