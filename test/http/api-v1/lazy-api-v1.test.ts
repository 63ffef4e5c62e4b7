import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverLogger } from '../../../src/cli/output/server-logger.js';
import { parseCorsOrigins } from '../../../src/http/guard/cors.js';
import { StorageRegistry } from '../../../src/registry/storage-registry.js';
import { corpusStorage, send, startServer, type TestServer } from '../../security/server.js';

/**
 * /api/v1 is made on its first request by an instance of its own (src/http/api-v1/lazy-api-v1.ts);
 * what the application did for its routes before still holds: the OpenAPI document lists them in
 * their place even when asked for first, the metrics count them by their own route, the request
 * log names them with the application's request id, and unknown paths get the API's problem.
 * (That nothing of the API loads before its first request: test/cli/startup-loading.test.ts.)
 */

describe('/api/v1 made on its first request', () => {
  let server: TestServer;
  let registry: StorageRegistry;
  const log = new PassThrough();
  let logged = '';
  beforeAll(async () => {
    log.on('data', (d: Buffer) => (logged += d.toString()));
    registry = new StorageRegistry();
    server = await startServer(corpusStorage('graph'), { api: registry, logger: await serverLogger('json', 'info', log) });
    registry.add('default', server.storage, {}, { instance: 'microstream' });
    // /api/v1/objects answers from the graph index.
    await registry.get()!.graph.ready();
  });
  afterAll(async () => {
    await server.close();
    await registry.close();
  });

  it('the document asked for first lists the API routes in their place, between the operations routes and the document', async () => {
    const answer = await send(server.port, 'GET', '/openapi.json');
    expect(answer.status).toBe(200);
    const paths = Object.keys((JSON.parse(answer.body.toString()) as { paths: Record<string, unknown> }).paths);
    const health = paths.indexOf('/health');
    const storage = paths.indexOf('/api/v1/storage');
    const referrers = paths.indexOf('/api/v1/objects/{oid}/referrers');
    const document = paths.indexOf('/openapi.json');
    expect(health).toBeGreaterThanOrEqual(0);
    expect(storage).toBeGreaterThan(health);
    expect(referrers).toBeGreaterThan(storage);
    expect(document).toBeGreaterThan(referrers);
    const api = await send(server.port, 'GET', '/api/v1/openapi.json');
    expect(api.status).toBe(200);
    expect(Object.keys((JSON.parse(api.body.toString()) as { paths: Record<string, unknown> }).paths)).toEqual(paths.filter((p) => p.startsWith('/api/v1/')));
  });

  it('answers, counted by the API route that answered and logged with the application request id', async () => {
    const storage = await send(server.port, 'GET', '/api/v1/storage');
    expect(storage.status).toBe(200);
    expect(JSON.parse(storage.body.toString())).toMatchObject({ entities: 1263 });
    const object = await send(server.port, 'GET', '/api/v1/objects/1000000000000000028');
    expect(object.status).toBe(200);
    const unknown = await send(server.port, 'GET', '/api/v1/no-such-route');
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    const post = await send(server.port, 'POST', '/api/v1/storage');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET');

    const metrics = (await send(server.port, 'GET', '/metrics')).body.toString();
    expect(metrics).toContain('storage_inspector_http_requests_total{route="/api/v1/storage",method="GET",status="200"} 1');
    expect(metrics).toContain('storage_inspector_http_requests_total{route="/api/v1/objects/:oid",method="GET",status="200"} 1');
    expect(metrics).toContain('storage_inspector_http_requests_total{route="/api/v1/*",method="GET",status="404"} 1');
    expect(metrics).toContain('storage_inspector_http_requests_total{route="/api/v1/*",method="POST",status="405"} 1');

    const lines = logged
      .split('\n')
      .filter((l) => l.includes('"msg":"request"'))
      .map((l) => JSON.parse(l) as { reqId: string; url: string; status: number });
    const line = lines.find((l) => l.url === '/api/v1/storage');
    expect(line).toMatchObject({ status: 200, reqId: expect.stringMatching(/^req-[0-9a-z]+$/) });
    // One numbering for the whole application: no two requests share an id.
    expect(new Set(lines.map((l) => l.reqId)).size).toBe(lines.length);
  });

  it('a body over its limit is the API problem 413 with the limit, not a 500', async () => {
    for (const [target, bytes] of [
      // The SQL route's own parser takes 256 KiB; any other route the application's 1 MiB.
      ['/api/v1/sql', 300 * 1024],
      ['/api/v1/storage', 2 * 1024 * 1024],
    ] as const) {
      const answer = await fetch(`http://127.0.0.1:${server.port}${target}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sql: `SELECT '${'x'.repeat(bytes)}'` }),
      });
      expect(answer.status, target).toBe(413);
      expect(answer.headers.get('content-type'), target).toContain('application/problem+json');
      expect((await answer.json()) as unknown, target).toMatchObject({ status: 413, title: 'Payload Too Large', detail: expect.stringContaining('Request body is too large') });
    }
  });

  it("answers with the application's headers: CORS for an allowed origin, on the first request and later", async () => {
    const origin = 'http://127.0.0.1:1';
    const corsRegistry = new StorageRegistry();
    const cors = await startServer(corpusStorage('graph'), { api: corsRegistry, cors: parseCorsOrigins(origin) });
    corsRegistry.add('default', cors.storage, {}, { instance: 'microstream' });
    try {
      // The first request makes the API instance; the second goes to the one made.
      for (const round of [1, 2]) {
        const answer = await send(cors.port, 'GET', '/api/v1/storage', { Origin: origin });
        expect(answer.status, `round ${round}`).toBe(200);
        expect(answer.headers['access-control-allow-origin'], `round ${round}`).toBe(origin);
        expect(answer.headers['vary'], `round ${round}`).toContain('Origin');
      }
      // A Java route of the same server says the same (what the API must match).
      expect((await send(cors.port, 'GET', '/microstream/root', { Origin: origin })).headers['access-control-allow-origin']).toBe(origin);
    } finally {
      await cors.close();
      await corsRegistry.close();
    }
  });
});
