import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { accessPlugin, sendAdmission } from '../../../src/http/guard/access-plugin.js';
import type { AdmissionOptions } from '../../../src/http/guard/admission.js';
import { loadAuthConfig, UNAUTHORIZED_BODY } from '../../../src/http/guard/auth.js';
import { parseCorsOrigins } from '../../../src/http/guard/cors.js';
import { hostAllowList, misdirectedText } from '../../../src/http/guard/host-check.js';

/**
 * The access plugin (access-plugin.ts) in a fastify application, through `inject`: the checks of
 * admission.ts run before every route, a refusal is answered in the route's place, and the
 * headers of an admitted request (CORS) are kept on the route's answer.
 */

const TOKEN = 'plugin-token-0123456789';
const METRICS_TOKEN = 'plugin-metrics-9876543210';
const ORIGIN = 'https://viewer.example.com';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** An application with the access plugin and two routes that count how often they ran. */
async function application(access: AdmissionOptions): Promise<{ app: FastifyInstance; ran: string[] }> {
  const ran: string[] = [];
  app = Fastify({ logger: false });
  await app.register(accessPlugin, { access });
  app.get('/data', async () => {
    ran.push('/data');
    return 'the data';
  });
  app.get('/metrics', async () => {
    ran.push('/metrics');
    return 'the metrics';
  });
  app.get('/no-refusal', async (_request, reply) => {
    ran.push('/no-refusal');
    sendAdmission(reply, { headers: {} });
    return 'the route answers';
  });
  await app.ready();
  return { app, ran };
}

const auth = (): AdmissionOptions['auth'] => loadAuthConfig({ env: { STORAGE_INSPECTOR_TOKEN: TOKEN }, warn: () => undefined });

describe('access plugin', () => {
  it('lets every request through without access options', async () => {
    const { app, ran } = await application({});
    // The name other plugins declare as their dependency.
    expect(app.hasPlugin('access')).toBe(true);
    const answer = await app.inject({ url: '/data', headers: { host: 'evil.example.com' } });
    expect([answer.statusCode, answer.body, answer.headers['vary'], answer.headers['cache-control']]).toEqual([200, 'the data', undefined, undefined]);
    expect(ran).toEqual(['/data']);
  });

  it('answers 421 for a Host not on the list, before the route', async () => {
    const { app, ran } = await application({ allowedHosts: hostAllowList('127.0.0.1', ['inspector.example.com'], ['127.0.0.1']) });
    const refused = await app.inject({ url: '/data', headers: { host: 'evil.example.com' } });
    expect(refused.statusCode).toBe(421);
    expect(refused.headers['content-type']).toBe('text/plain;charset=utf-8');
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(refused.body).toBe(misdirectedText('evil.example.com'));
    expect(ran).toEqual([]);
    const allowed = await app.inject({ url: '/data', headers: { host: 'inspector.example.com' } });
    expect([allowed.statusCode, allowed.body]).toEqual([200, 'the data']);
    expect(ran).toEqual(['/data']);
  });

  it('answers 401 with a challenge without credentials, and runs the route with them', async () => {
    const { app, ran } = await application({ auth: auth() });
    const refused = await app.inject({ url: '/data' });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toEqual(['Bearer realm="storage-inspector"']);
    expect(refused.headers['content-type']).toBe('text/plain;charset=utf-8');
    expect(refused.body).toBe(UNAUTHORIZED_BODY);
    expect(ran).toEqual([]);
    const allowed = await app.inject({ url: '/data', headers: { authorization: `Bearer ${TOKEN}` } });
    expect([allowed.statusCode, allowed.body]).toEqual([200, 'the data']);
    expect(ran).toEqual(['/data']);
  });

  it('opens /metrics with the metrics token, judged by the request\'s own method and URL', async () => {
    const metricsToken = loadAuthConfig({ env: { STORAGE_INSPECTOR_TOKEN: METRICS_TOKEN }, warn: () => undefined });
    const { app, ran } = await application({ auth: auth(), metricsToken });
    const metrics = await app.inject({ url: '/metrics?format=text', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect([metrics.statusCode, metrics.body]).toEqual([200, 'the metrics']);
    const data = await app.inject({ url: '/data', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(data.statusCode).toBe(401);
    expect(ran).toEqual(['/metrics']);
  });

  it('answers a CORS preflight itself (204, no body, no content type) and adds CORS headers to the route\'s answer', async () => {
    const { app, ran } = await application({ auth: auth(), cors: parseCorsOrigins(ORIGIN) });
    const preflight = await app.inject({ method: 'OPTIONS', url: '/data', headers: { origin: ORIGIN, 'access-control-request-method': 'GET' } });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.body).toBe('');
    expect(preflight.headers['content-type']).toBeUndefined();
    expect(preflight.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(preflight.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    expect(ran).toEqual([]);
    const answer = await app.inject({ url: '/data', headers: { origin: ORIGIN, authorization: `Bearer ${TOKEN}` } });
    expect([answer.statusCode, answer.body]).toEqual([200, 'the data']);
    expect(answer.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(answer.headers['vary']).toBe('Origin');
    expect(ran).toEqual(['/data']);
  });

  it('sends nothing for an admission without an answer', async () => {
    const { app, ran } = await application({});
    const answer = await app.inject({ url: '/no-refusal' });
    expect([answer.statusCode, answer.body]).toEqual([200, 'the route answers']);
    expect(ran).toEqual(['/no-refusal']);
  });
});
