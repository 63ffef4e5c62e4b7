import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverLogger } from '../../../src/cli/output/server-logger.js';
import { loadAuthConfig } from '../../../src/http/guard/auth.js';
import { loadMetricsToken } from '../../../src/http/guard/metrics-token.js';
import { FollowStatus } from '../../../src/storage/follow/follow-status.js';
import { corpusStorage, send, startServer, type TestServer } from '../../security/server.js';

const GRAPH = corpusStorage('graph');
const TOKEN = 'main-token-0123456789abcdef';
const METRICS_TOKEN = 'metrics-token-fedcba9876543210';
const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'si-ops-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function secretFile(name: string, text: string): string {
  const path = join(tmp, name);
  writeFileSync(path, text);
  chmodSync(path, 0o600);
  return path;
}

/** The value of an unlabelled sample in Prometheus text. */
function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

describe('health, readiness and metrics', () => {
  let server: TestServer;
  let follow: FollowStatus;
  let clockMs = 0;
  const log = new PassThrough();
  let logged = '';
  beforeAll(async () => {
    log.on('data', (d: Buffer) => (logged += d.toString()));
    follow = new FollowStatus({ following: true, staleAfterMs: 10_000, now: () => clockMs });
    server = await startServer(GRAPH, { follow, logger: await serverLogger('json', 'info', log) });
  });
  afterAll(() => server.close());

  it('GET /health answers that the process is alive, never cached', async () => {
    const answer = await send(server.port, 'GET', '/health');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(answer.body.toString())).toEqual({ status: 'ok' });
    expect((await send(server.port, 'HEAD', '/health')).status).toBe(200);
  });

  it('GET /ready is 200 while following keeps up and 503 with the reason otherwise', async () => {
    follow.record({ kind: 'unchanged', ms: 0 });
    const ready = await send(server.port, 'GET', '/ready');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body.toString())).toEqual({ status: 'ready', entities: 1263, generation: 1, following: true, followLagSeconds: 0, problems: [] });

    follow.record({ kind: 'failed', error: new Error('channel_1: transactions log shrank') });
    const failed = await send(server.port, 'GET', '/ready');
    expect(failed.status).toBe(503);
    expect(JSON.parse(failed.body.toString())).toMatchObject({ status: 'not ready', reason: expect.stringMatching(/^following failed: channel_1: transactions log shrank/) });

    follow.record({ kind: 'unchanged', ms: 0 });
    clockMs += 12_000;
    const behind = await send(server.port, 'GET', '/ready');
    expect(behind.status).toBe(503);
    expect(JSON.parse(behind.body.toString())).toMatchObject({ reason: 'following is behind: the storage was last seen current 12.0 s ago', followLagSeconds: 12 });
    follow.record({ kind: 'unchanged', ms: 0 });
  });

  it('GET /metrics counts requests by route pattern and reports the storage', async () => {
    await send(server.port, 'GET', '/microstream/object/1000000000000000028');
    await send(server.port, 'GET', '/microstream/object/1000000000000000029?valueLength=3');
    await send(server.port, 'GET', '/microstream/object/abc');
    await send(server.port, 'GET', '/no/such/route');
    const answer = await send(server.port, 'GET', '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = answer.body.toString();
    expect(text).toContain('storage_inspector_http_requests_total{route="/microstream/object/:oid",method="GET",status="200"} 2');
    expect(text).toContain('storage_inspector_http_requests_total{route="/microstream/object/:oid",method="GET",status="404"} 1');
    expect(text).toContain('storage_inspector_http_requests_total{route="unmatched",method="GET",status="404"} 1');
    expect(text).toContain('storage_inspector_http_request_duration_seconds_count{route="/microstream/object/:oid",method="GET"} 3');
    expect(text).toMatch(/storage_inspector_http_response_bytes_total\{route="\/microstream\/object\/:oid"\} \d{3,}/);
    // The figures of filesStatistics and of the index.
    expect(sample(text, 'storage_inspector_storage_entities')).toBe(1263);
    expect(sample(text, 'storage_inspector_storage_data_files')).toBe(21);
    expect(sample(text, 'storage_inspector_storage_live_bytes')).toBe(76760);
    expect(sample(text, 'storage_inspector_storage_total_bytes')).toBe(83783);
    expect(sample(text, 'storage_inspector_storage_index_bytes')).toBe(server.storage.channels.reduce((n, c) => n + c.objects.byteSize, 0));
    expect(sample(text, 'storage_inspector_storage_last_commit_timestamp_seconds')).toBeCloseTo(Number(server.storage.lastCommitTimestamp / 1000n) / 1e6);
    expect(sample(text, 'storage_inspector_storage_last_commit_timestamp_seconds')).toBeGreaterThan(1.5e9);
    expect(sample(text, 'storage_inspector_ready')).toBe(1);
    expect(sample(text, 'storage_inspector_follow_lag_seconds')).toBe(0);
    expect(text).toMatch(/storage_inspector_follow_refreshes_total\{outcome="failed"\} 1/);
    expect(sample(text, 'storage_inspector_process_resident_memory_bytes')).toBeGreaterThan(0);
    // Record reads, by whether the cache of records read lately answered them.
    const cache = server.storage.recordCache!;
    expect(sample(text, 'storage_inspector_record_cache_lookups_total{result="miss"}')).toBe(cache.misses);
    expect(cache.misses).toBeGreaterThan(0);
    expect(sample(text, 'storage_inspector_record_cache_bytes')).toBe(cache.bytes);
    const hitsBefore = sample(text, 'storage_inspector_record_cache_lookups_total{result="hit"}') ?? 0;
    await send(server.port, 'GET', '/microstream/object/1000000000000000028');
    const after = (await send(server.port, 'GET', '/metrics')).body.toString();
    expect(sample(after, 'storage_inspector_record_cache_lookups_total{result="hit"}')).toBe(hitsBefore + 1);
    expect(sample(after, 'storage_inspector_record_cache_lookups_total{result="miss"}')).toBe(cache.misses);
  });

  it('leaves the operations routes out of the request log', async () => {
    logged = '';
    await send(server.port, 'GET', '/health');
    await send(server.port, 'GET', '/ready');
    await send(server.port, 'GET', '/metrics');
    await send(server.port, 'GET', '/microstream/root');
    const lines = logged.trim().split('\n').map((l) => JSON.parse(l) as { url?: string });
    expect(lines.map((l) => l.url)).toEqual(['/microstream/root']);
  });
});

describe('access control of the operations routes', () => {
  let server: TestServer;
  beforeAll(async () => {
    const auth = loadAuthConfig({ env: { STORAGE_INSPECTOR_TOKEN: TOKEN }, warn: () => undefined });
    const metricsToken = loadMetricsToken(secretFile('metrics-token', `${METRICS_TOKEN}\n`), () => undefined);
    server = await startServer(GRAPH, { auth, metricsToken });
  });
  afterAll(() => server.close());

  it('asks for credentials on /health and /ready like on every route', async () => {
    expect((await send(server.port, 'GET', '/health')).status).toBe(401);
    expect((await send(server.port, 'GET', '/ready')).status).toBe(401);
    expect((await send(server.port, 'GET', '/health', bearer(TOKEN))).status).toBe(200);
  });

  it('opens /metrics with the metrics token or the main credentials, and nothing else with the metrics token', async () => {
    expect((await send(server.port, 'GET', '/metrics')).status).toBe(401);
    expect((await send(server.port, 'GET', '/metrics', bearer(METRICS_TOKEN))).status).toBe(200);
    expect((await send(server.port, 'GET', '/metrics', bearer(TOKEN))).status).toBe(200);
    for (const path of ['/microstream/root', '/health', '/metrics/', '/metricsx', '/viewer/']) {
      expect((await send(server.port, 'GET', path, bearer(METRICS_TOKEN))).status, path).toBe(401);
    }
    expect((await send(server.port, 'OPTIONS', '/metrics', bearer(METRICS_TOKEN))).status).toBe(401);
  });
});

describe('a metrics token without other access control', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(GRAPH, { metricsToken: loadMetricsToken(secretFile('metrics-only', METRICS_TOKEN), () => undefined) });
  });
  afterAll(() => server.close());

  it('guards /metrics only', async () => {
    const refused = await send(server.port, 'GET', '/metrics');
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="storage-inspector"');
    expect((await send(server.port, 'GET', '/metrics', bearer(METRICS_TOKEN))).status).toBe(200);
    expect((await send(server.port, 'GET', '/health')).status).toBe(200);
    expect((await send(server.port, 'GET', '/microstream/root')).status).toBe(200);
  });

  it('refuses unusable token files', () => {
    expect(() => loadMetricsToken(join(tmp, 'missing'), () => undefined)).toThrow(/cannot read --metrics-token-file .*missing/);
    expect(() => loadMetricsToken(secretFile('blank', ' \n'), () => undefined)).toThrow(/--metrics-token-file .*blank: the token must be non-empty printable ASCII/);
    const warnings: string[] = [];
    const shared = secretFile('shared', METRICS_TOKEN);
    chmodSync(shared, 0o644);
    loadMetricsToken(shared, (m) => warnings.push(m));
    expect(warnings.join('\n')).toMatch(/--metrics-token-file .*shared is readable by all users/);
  });
});

describe('--log-format pretty', () => {
  it('writes one readable line per request', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const server = await startServer(GRAPH, { logger: await serverLogger('pretty', 'info', out) });
    try {
      await send(server.port, 'GET', '/microstream/root');
      await send(server.port, 'GET', '/microstream/object/abc');
    } finally {
      await server.close();
    }
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/microstream\/root 200 [\d.]+ ms$/m);
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/microstream\/object\/abc 404 [\d.]+ ms$/m);
    expect(text).not.toContain('{');
  });
});
