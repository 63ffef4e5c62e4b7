import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type AppOptions } from '../../../src/http/app.js';
import { hostAllowList } from '../../../src/http/guard/host-check.js';
import { Storage } from '../../../src/storage/storage.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';

/**
 * The Java routes' lane (java-lane.ts): requests to the Java-compatible paths are answered
 * outside fastify, with the bytes fastify's catch-all would send. A request with a body (here
 * `Content-Length: 0`) always goes through fastify, which gives the comparison over real sockets.
 */

const TOKEN = 'lane-test-token';

/** One HTTP/1.1 exchange on a fresh connection: the raw head (without Date) and the body. */
function exchange(port: number, head: string): Promise<{ head: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      const lines = all.subarray(0, end).toString('latin1').split('\r\n').filter((l) => !/^date:/i.test(l));
      resolve({ head: lines.join('\n'), body: all.subarray(end + 4) });
    });
    // Not half-closed: Node's server drops the answers still pending on a connection its client ended.
    socket.write(`${head}\r\nConnection: close\r\n\r\n`);
  });
}

async function withApp<T>(options: Partial<AppOptions>, run: (port: number, app: ReturnType<typeof buildApp>, fastifyRequests: () => number) => Promise<T>): Promise<T> {
  const app = buildApp(storage, { instance: 'microstream', ...options });
  let seen = 0;
  // onResponse: it runs for every answer fastify sends, also those its access checks gave.
  app.addHook('onResponse', (_request, _reply, done) => {
    seen++;
    done();
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    return await run((app.server.address() as AddressInfo).port, app, () => seen);
  } finally {
    await app.close();
  }
}

let storage: Storage;
beforeAll(async () => {
  storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', 'graph'));
});
afterAll(async () => {
  await storage.close();
});

describe('the Java routes lane', () => {
  it('answers the Java-compatible paths without fastify, everything else with it', async () => {
    await withApp({}, async (port, _app, fastifyRequests) => {
      const host = `Host: 127.0.0.1:${port}`;
      expect((await exchange(port, `GET /microstream/root HTTP/1.1\r\n${host}`)).head).toMatch(/^HTTP\/1.1 200/);
      expect((await exchange(port, `HEAD /microstream/dictionary HTTP/1.1\r\n${host}`)).head).toMatch(/^HTTP\/1.1 200/);
      expect(fastifyRequests()).toBe(0);
      // Our own routes, other methods, bodies, the route list at / and encoded first segments: fastify.
      for (const line of ['GET /health', 'OPTIONS /microstream/root', 'GET /', 'GET /%6Dicrostream/root']) {
        await exchange(port, `${line} HTTP/1.1\r\n${host}`);
      }
      await exchange(port, `GET /microstream/root HTTP/1.1\r\n${host}\r\nContent-Length: 0`);
      expect(fastifyRequests()).toBe(5);
    });
  });

  const targets = [
    'GET /microstream/root',
    'GET /microstream/object/1000000000000000028',
    'GET /microstream/object/1000000000000000028?fixedLength=1&variableLength=2&references=true',
    'GET /microstream/object/12',
    'GET /microstream/object/abc',
    'GET /microstream/object/1000000000000000028?valueLength=%zz',
    'GET /microstream/dictionary',
    'GET /microstream/maintenance/filesStatistics',
    'GET /microstream/nothing/here',
    'GET /other/root',
    'HEAD /microstream/root',
    'HEAD /microstream/nothing',
  ];
  const setups: { name: string; options: Partial<AppOptions>; headers: (port: number) => string }[] = [
    { name: 'no access control', options: {}, headers: (port) => `Host: 127.0.0.1:${port}` },
    {
      name: 'credentials, CORS and a host list',
      options: {
        auth: { tokenDigests: [createHash('sha256').update(TOKEN).digest()], basicDigests: [] },
        cors: { origins: new Set(['https://viewer.example']), any: false },
        allowedHosts: hostAllowList('127.0.0.1', undefined),
      },
      headers: (port) => `Host: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nOrigin: https://viewer.example`,
    },
    { name: 'missing credentials', options: { auth: { tokenDigests: [createHash('sha256').update(TOKEN).digest()], basicDigests: [] } }, headers: (port) => `Host: 127.0.0.1:${port}` },
    { name: 'a foreign Host', options: { allowedHosts: hostAllowList('127.0.0.1', undefined) }, headers: () => 'Host: attacker.example' },
  ];

  it.each(setups)('sends the bytes fastify sends ($name)', async ({ options, headers }) => {
    await withApp(options, async (port, _app, fastifyRequests) => {
      for (const target of targets) {
        const laned = await exchange(port, `${target} HTTP/1.1\r\n${headers(port)}`);
        const before = fastifyRequests();
        const viaFastify = await exchange(port, `${target} HTTP/1.1\r\n${headers(port)}\r\nContent-Length: 0`);
        expect(fastifyRequests(), target).toBe(before + 1);
        // The statistics name the moment they were taken (as Java does), in a text whose length
        // varies (Java leaves out trailing zeros of the milliseconds): each head's length is its
        // own body's, and the heads are the same but for it.
        const length = /^content-length: (\d+)$/m;
        for (const answer of [laned, viaFastify]) {
          const given = length.exec(answer.head)?.[1];
          if (given !== undefined && !target.startsWith('HEAD')) expect(Number(given), target).toBe(answer.body.length);
        }
        const lengthless = (head: string): string => head.replace(length, 'content-length: …');
        expect(lengthless(laned.head), target).toBe(lengthless(viaFastify.head));
        const moment = (body: Buffer): string => body.toString('latin1').replace(/"creationTime":"[^"]*"/g, '"creationTime":"…"');
        expect(moment(laned.body), target).toBe(moment(viaFastify.body));
      }
    });
  });

  it('counts its answers in /metrics and logs a line for each (the operators\' routes have none)', async () => {
    const stream = new PassThrough();
    const lines: Record<string, unknown>[] = [];
    stream.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
    });
    await withApp({ logger: { level: 'info', stream } }, async (port) => {
      const host = `Host: 127.0.0.1:${port}`;
      for (let i = 0; i < 3; i++) await exchange(port, `GET /microstream/object/1000000000000000028 HTTP/1.1\r\n${host}`);
      await exchange(port, `GET /microstream/object/12 HTTP/1.1\r\n${host}`);
      const metrics = (await exchange(port, `GET /metrics HTTP/1.1\r\n${host}`)).body.toString('utf8');
      expect(metrics).toContain('storage_inspector_http_requests_total{route="/microstream/object/:oid",method="GET",status="200"} 3');
      expect(metrics).toContain('storage_inspector_http_requests_total{route="/microstream/object/:oid",method="GET",status="404"} 1');
      expect(metrics).toContain('storage_inspector_http_request_duration_seconds_count{route="/microstream/object/:oid",method="GET"} 4');
      expect(metrics).toMatch(/storage_inspector_http_request_duration_seconds_bucket\{le="\+Inf",route="\/microstream\/object\/:oid",method="GET"\} 4/);
      expect(metrics).toMatch(/storage_inspector_http_response_bytes_total\{route="\/microstream\/object\/:oid"\} \d{3,}/);
    });
    const requests = lines.filter((l) => l['msg'] === 'request');
    expect(requests.map((l) => [l['method'], l['url'], l['status']])).toEqual([
      ['GET', '/microstream/object/1000000000000000028', 200],
      ['GET', '/microstream/object/1000000000000000028', 200],
      ['GET', '/microstream/object/1000000000000000028', 200],
      ['GET', '/microstream/object/12', 404],
    ]);
    expect(requests.every((l) => typeof l['ms'] === 'number')).toBe(true);
    // One numbering with fastify's requests (the /metrics request between them took req-5).
    expect(requests.map((l) => l['reqId'])).toEqual(['req-1', 'req-2', 'req-3', 'req-4']);
  });
});
