import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAuthorization, loadAuthConfig, refuseSecretFlags, type AuthConfig } from '../../src/http/guard/auth.js';
import { parseCorsOrigins } from '../../src/http/guard/cors.js';
import { compareWithCase, CONFORMANCE_DIR, loadCases } from '../helpers/corpora/conformance.js';
import { rawRequest } from '../helpers/serving/raw-http.js';
import { corpusStorage, send, startServer, type TestServer } from './server.js';

const TOKEN = 'k3Y-9f2c1d0e8b7a6f5e4d3c2b1a0f9e8d7c';
const BASIC = 'alice:s3cret:with:colons';
const basicHeader = (pair: string): string => `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'si-auth-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function file(name: string, text: string, mode = 0o600): string {
  const path = join(tmp, name);
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

function config(env: Record<string, string>, files: { tokenFile?: string; basicAuthFile?: string } = {}): { auth: AuthConfig | undefined; warnings: string[] } {
  const warnings: string[] = [];
  const auth = loadAuthConfig({ ...files, env, warn: (m) => warnings.push(m) });
  return { auth, warnings };
}

describe('credentials configuration', () => {
  it('is off without environment variables or files', () => {
    expect(config({}).auth).toBeUndefined();
  });

  it('takes the token from the environment or from a file, trimmed', () => {
    const fromEnv = config({ STORAGE_INSPECTOR_TOKEN: ` ${TOKEN}\n` }).auth!;
    expect(checkAuthorization(fromEnv, `Bearer ${TOKEN}`)).toEqual({ ok: true });
    const fromFile = config({}, { tokenFile: file('token', `${TOKEN}\n`) });
    expect(fromFile.warnings).toEqual([]);
    expect(checkAuthorization(fromFile.auth!, `Bearer ${TOKEN}`)).toEqual({ ok: true });
    expect(checkAuthorization(fromFile.auth!, `bearer ${TOKEN}`)).toEqual({ ok: true });
  });

  it('warns when the token file is readable by others', () => {
    const { warnings } = config({}, { tokenFile: file('token-shared', TOKEN, 0o644) });
    expect(warnings.join('\n')).toMatch(/--auth-token-file .*token-shared is readable by all users \(mode 644\); consider chmod 600/);
  });

  it('refuses empty, unprintable, unreadable and doubly given secrets', () => {
    expect(() => config({ STORAGE_INSPECTOR_TOKEN: '  ' })).toThrow('environment variable STORAGE_INSPECTOR_TOKEN: the token is empty');
    expect(() => config({}, { tokenFile: file('empty', '\n') })).toThrow(/--auth-token-file .*empty: the token is empty/);
    expect(() => config({ STORAGE_INSPECTOR_TOKEN: 'a b' })).toThrow(/printable ASCII without spaces/);
    expect(() => config({}, { tokenFile: join(tmp, 'missing') })).toThrow(/cannot read --auth-token-file .*missing/);
    expect(() => config({ STORAGE_INSPECTOR_TOKEN: TOKEN }, { tokenFile: file('t2', TOKEN) })).toThrow(/both STORAGE_INSPECTOR_TOKEN and --auth-token-file/);
    expect(() => config({ STORAGE_INSPECTOR_BASIC_AUTH: 'nopassword' })).toThrow(/expected user:password/);
    expect(() => config({}, { basicAuthFile: file('basic-empty', '# nothing\n') })).toThrow(/holds no user:password line/);
  });

  it('refuses secrets given as command line values, pointing to the environment and files', () => {
    expect(() => refuseSecretFlags(['dir', '--auth-token', 'x'])).toThrow(
      /--auth-token is not accepted: .*STORAGE_INSPECTOR_TOKEN or in a file given with --auth-token-file/,
    );
    expect(() => refuseSecretFlags(['dir', '--auth-token=x'])).toThrow(/--auth-token is not accepted/);
    expect(() => refuseSecretFlags(['dir', '--basic-auth', 'a:b'])).toThrow(/STORAGE_INSPECTOR_BASIC_AUTH or in a file given with --basic-auth-file/);
    expect(() => refuseSecretFlags(['dir', '--auth-token-file', 'f'])).not.toThrow();
  });

  it('checks Bearer and Basic credentials', () => {
    const auth = config({ STORAGE_INSPECTOR_TOKEN: TOKEN }, { basicAuthFile: file('basic', `# users\nbob:pw1\n${BASIC}\n`) }).auth!;
    expect(checkAuthorization(auth, undefined)).toEqual({ ok: false, invalid: false });
    expect(checkAuthorization(auth, `Bearer ${TOKEN}x`)).toEqual({ ok: false, invalid: true });
    expect(checkAuthorization(auth, `Bearer ${TOKEN.slice(0, -1)}`)).toEqual({ ok: false, invalid: true });
    expect(checkAuthorization(auth, 'Bearer')).toEqual({ ok: false, invalid: true });
    expect(checkAuthorization(auth, basicHeader(BASIC))).toEqual({ ok: true });
    expect(checkAuthorization(auth, basicHeader('bob:pw1'))).toEqual({ ok: true });
    expect(checkAuthorization(auth, basicHeader('bob:pw2'))).toEqual({ ok: false, invalid: true });
    expect(checkAuthorization(auth, basicHeader(TOKEN))).toEqual({ ok: false, invalid: true });
    expect(checkAuthorization(auth, `Basic ${TOKEN}`)).toEqual({ ok: false, invalid: true });
    expect(checkAuthorization(auth, `Digest ${TOKEN}`)).toEqual({ ok: false, invalid: true });
  });
});

describe('authentication over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    const auth = config({ STORAGE_INSPECTOR_TOKEN: TOKEN, STORAGE_INSPECTOR_BASIC_AUTH: BASIC }).auth;
    server = await startServer(corpusStorage('graph'), { auth });
  });
  afterAll(() => server.close());

  // Every kind of route, including HEAD, OPTIONS, unknown paths and targets fastify cannot parse.
  const targets: [string, string][] = [
    ['GET', '/'],
    ['GET', '/microstream/root'],
    ['GET', '/microstream/dictionary'],
    ['GET', '/microstream/object/1000000000000000028'],
    ['GET', '/microstream/maintenance/filesStatistics'],
    ['HEAD', '/microstream/root'],
    ['OPTIONS', '/microstream/object/:oid'],
    ['GET', '/viewer/'],
    ['GET', '/docs'],
    ['POST', '/microstream/root'],
    ['GET', '/microstream/object/%zz'],
    ['GET', '/nothing/here'],
  ];

  it.each(targets)('%s %s needs credentials: 401 with challenges', async (method, target) => {
    const answer = await send(server.port, method, target);
    expect(answer.status).toBe(401);
    expect(answer.all('www-authenticate')).toEqual(['Bearer realm="storage-inspector"', 'Basic realm="storage-inspector", charset="UTF-8"']);
    if (method !== 'HEAD') {
      expect(answer.headers['content-type']).toBe('text/plain;charset=utf-8');
      expect(answer.body.toString()).toMatch(/^Unauthorized/);
    }
    const wrong = await send(server.port, method, target, { Authorization: `Bearer ${TOKEN}0` });
    expect(wrong.status).toBe(401);
    expect(wrong.all('www-authenticate')).toContain('Bearer realm="storage-inspector", error="invalid_token"');
  });

  it('answers like Java with a valid token or Basic credentials', async () => {
    for (const authorization of [`Bearer ${TOKEN}`, basicHeader(BASIC)]) {
      const answer = await send(server.port, 'GET', '/microstream/root', { Authorization: authorization });
      expect(answer.status).toBe(200);
      expect(answer.body.toString()).toBe('{"name":"ROOT","objectId":"1000000000000000028"}');
      expect(answer.headers['www-authenticate']).toBeUndefined();
    }
  });

  it('replays the recorded Java answers byte for byte when authorized (graph corpus)', async () => {
    const { header, cases } = loadCases(join(CONFORMANCE_DIR, 'cases', 'graph.jsonl'));
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    try {
      const failures: string[] = [];
      await Promise.all(
        cases.map(async (c) => {
          const headers = { Host: header.host, Authorization: `Bearer ${TOKEN}`, ...(c.headers ?? {}) };
          const response = await rawRequest(agent, server.port, c.method, c.request, headers);
          const problem = compareWithCase(c, header.storageDir, corpusStorage('graph'), response);
          if (problem !== undefined) failures.push(`${c.method} ${c.request}: ${problem}`);
        }),
      );
      expect(failures.slice(0, 5), `${failures.length} of ${cases.length}`).toEqual([]);
    } finally {
      agent.destroy();
    }
  });
});

describe('CORS', () => {
  let plain: TestServer;
  let guarded: TestServer;
  const origin = 'https://viewer.example.com';
  beforeAll(async () => {
    plain = await startServer(corpusStorage('noroot'));
    guarded = await startServer(corpusStorage('noroot'), {
      cors: parseCorsOrigins(`${origin}, http://localhost:8080`),
      auth: config({ STORAGE_INSPECTOR_TOKEN: TOKEN }).auth,
    });
  });
  afterAll(async () => {
    await plain.close();
    await guarded.close();
  });

  it('is off by default: no CORS headers, OPTIONS preflights reach the Java documentation route', async () => {
    const answer = await send(plain.port, 'GET', '/microstream/root', { Origin: origin });
    expect(Object.keys(answer.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const preflight = await send(plain.port, 'OPTIONS', '/microstream/root', { Origin: origin, 'Access-Control-Request-Method': 'GET' });
    expect(preflight.status).toBe(200);
    expect(preflight.headers['content-type']).toBe('application/json');
    expect(Object.keys(preflight.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('allows listed origins only', async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const allowed = await send(guarded.port, 'GET', '/microstream/root', { Origin: origin, ...auth });
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe(origin);
    expect(allowed.headers['vary']).toBe('Origin');
    const other = await send(guarded.port, 'GET', '/microstream/root', { Origin: 'https://evil.example.com', ...auth });
    expect(other.status).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers['vary']).toBe('Origin');
    // A 401 to an allowed origin carries the CORS headers, so that the page can read it.
    const unauthorized = await send(guarded.port, 'GET', '/microstream/root', { Origin: origin });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers['access-control-allow-origin']).toBe(origin);
  });

  it('answers preflights of allowed origins without credentials', async () => {
    const preflight = await send(guarded.port, 'OPTIONS', '/microstream/object/1', {
      Origin: 'http://localhost:8080',
      'Access-Control-Request-Method': 'GET',
      'Access-Control-Request-Headers': 'authorization',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('http://localhost:8080');
    expect(preflight.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    expect(preflight.headers['access-control-allow-headers']).toMatch(/Authorization/);
    const foreign = await send(guarded.port, 'OPTIONS', '/microstream/object/1', { Origin: 'https://evil.example.com', 'Access-Control-Request-Method': 'GET' });
    expect(foreign.status).toBe(401);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('validates the origin list', () => {
    expect(parseCorsOrigins('*').any).toBe(true);
    expect([...parseCorsOrigins('HTTPS://A.example.com:443,http://b:81').origins]).toEqual(['https://a.example.com', 'http://b:81']);
    expect(() => parseCorsOrigins('')).toThrow(/at least one origin/);
    expect(() => parseCorsOrigins('https://a.example.com/path')).toThrow(/not an origin/);
    expect(() => parseCorsOrigins('a.example.com')).toThrow(/not an origin/);
    expect(() => parseCorsOrigins('*,https://a.example.com')).toThrow(/cannot be combined/);
  });
});
