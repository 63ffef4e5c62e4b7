import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { admit, ALLOW_ALL } from '../../../src/http/guard/admission.js';
import { challenges, checkAuthorization, loadAuthConfig, refuseSecretFlags, UNAUTHORIZED_BODY, warnIfShared, type AuthConfig } from '../../../src/http/guard/auth.js';
import { allowedOrigin, isPreflight, parseCorsOrigins, preflightHeaders, responseHeaders } from '../../../src/http/guard/cors.js';
import { hostAllowed, hostAllowList, isLoopbackHost, listeningAddresses, misdirectedText, parseAllowedHosts } from '../../../src/http/guard/host-check.js';
import { loadMetricsToken } from '../../../src/http/guard/metrics-token.js';

/**
 * The access decisions of guard/ as functions, without a server (test/security/ runs them through
 * servers): the exact headers and bodies of CORS, 401 and 421 answers, the metrics token's reach,
 * how credentials are read and compared, and the Host rules at their edges.
 */

const tmp = mkdtempSync(join(tmpdir(), 'access-decisions-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function secret(name: string, text: string, mode = 0o600): string {
  const path = join(tmp, name);
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

const TOKEN = 'main-token-0123456789';
const METRICS = 'metrics-token-9876543210';
const bearer = (token: string): string => `Bearer ${token}`;
const basic = (pair: string): string => `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
// Made inside each test, not when the file loads: a mutation run then knows which test reads them.
const mainAuth = (): AuthConfig => loadAuthConfig({ env: { STORAGE_INSPECTOR_TOKEN: ` ${TOKEN}\n` }, warn: () => undefined })!;
const metricsAuth = (): AuthConfig => loadMetricsToken(secret('metrics', `${METRICS}\n`), () => undefined)!;
const EXPOSED = 'X-Storage-Inspector-Error, X-Storage-Inspector-Warning';

describe('CORS', () => {
  const listed = parseCorsOrigins('https://viewer.example.com, http://localhost:8080');
  const any = parseCorsOrigins('*');

  it('sends the origin back with Vary for a listed one, * for any, and exposes our own headers', () => {
    expect(responseHeaders(listed, 'https://viewer.example.com')).toEqual({ 'access-control-allow-origin': 'https://viewer.example.com', vary: 'Origin', 'access-control-expose-headers': EXPOSED });
    expect(responseHeaders(any, 'https://x.example')).toEqual({ 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED });
    expect(preflightHeaders(listed, 'http://localhost:8080')).toEqual({
      'access-control-allow-origin': 'http://localhost:8080',
      vary: 'Origin',
      'access-control-expose-headers': EXPOSED,
      'access-control-allow-methods': 'GET, HEAD, OPTIONS',
      'access-control-allow-headers': 'Authorization, Accept, X-HTTP-Method-Override',
      'access-control-max-age': '600',
    });
  });

  it('allows an origin only as the browser sends it: listed, in lower case, the first of repeated headers', () => {
    expect(allowedOrigin(listed, {})).toBeUndefined();
    expect(allowedOrigin(listed, { origin: 'https://viewer.example.com' })).toBe('https://viewer.example.com');
    expect(allowedOrigin(listed, { origin: 'HTTPS://VIEWER.example.com' })).toBe('HTTPS://VIEWER.example.com');
    expect(allowedOrigin(listed, { origin: 'https://viewer.example.com/' })).toBeUndefined();
    expect(allowedOrigin(listed, { origin: 'https://viewer.example.com:443' })).toBeUndefined();
    expect(allowedOrigin(listed, { origin: 'https://evil.example.com' })).toBeUndefined();
    expect(allowedOrigin(listed, { origin: 'not a url' })).toBeUndefined();
    expect(allowedOrigin(listed, { origin: ['http://localhost:8080', 'https://evil.example.com'] })).toBe('http://localhost:8080');
    expect(allowedOrigin(any, { origin: 'null' })).toBe('null');
  });

  it('tells a preflight by its method, Origin and Access-Control-Request-Method', () => {
    expect(isPreflight('OPTIONS', { origin: 'https://a.example', 'access-control-request-method': 'GET' })).toBe(true);
    expect(isPreflight('GET', { origin: 'https://a.example', 'access-control-request-method': 'GET' })).toBe(false);
    expect(isPreflight('OPTIONS', { 'access-control-request-method': 'GET' })).toBe(false);
    expect(isPreflight('OPTIONS', { origin: 'https://a.example' })).toBe(false);
  });

  it('refuses origins with a path, query, fragment, user, a trailing slash or another scheme, naming them', () => {
    for (const origin of ['https://a.example/x', 'https://a.example?q', 'https://a.example#f', 'https://u@a.example', 'https://a.example/', 'ftp://a.example']) {
      expect(() => parseCorsOrigins(origin), origin).toThrow(`--cors: "${origin}" is not an origin (expected scheme://host[:port], no path)`);
    }
    expect(() => parseCorsOrigins('a.example')).toThrow('--cors: "a.example" is not an origin (expected scheme://host[:port])');
    expect(() => parseCorsOrigins(' , ')).toThrow('--cors needs at least one origin (e.g. https://viewer.example.com) or *');
    expect(() => parseCorsOrigins('*, https://a.example')).toThrow('--cors: * cannot be combined with other origins');
    expect(parseCorsOrigins(' https://a.example ,, http://b.example:81 ')).toEqual({ origins: new Set(['https://a.example', 'http://b.example:81']), any: false });
    expect(parseCorsOrigins(' * ')).toEqual({ origins: new Set(), any: true });
  });
});

describe('admission', () => {
  it('lets everything through untouched when nothing is configured', () => {
    expect(admit({}, 'GET', '/', {})).toBe(ALLOW_ALL);
    expect(admit({ allowedHosts: hostAllowList('127.0.0.1', undefined) }, 'GET', '/', { host: 'localhost:1' })).toBe(ALLOW_ALL);
  });

  it('answers 421 with the refused Host, not cached, checking the first Host header', () => {
    const allowedHosts = hostAllowList('127.0.0.1', undefined)!;
    const refused = admit({ allowedHosts }, 'GET', '/', { host: 'evil.example' });
    expect(refused).toEqual({ headers: { 'cache-control': 'no-store' }, answer: { status: 421, contentType: 'text/plain;charset=utf-8', body: misdirectedText('evil.example') } });
    expect(admit({ allowedHosts }, 'GET', '/', { host: ['evil.example', 'localhost'] as unknown as string }).answer?.status).toBe(421);
    expect(admit({ allowedHosts }, 'GET', '/', { host: ['localhost', 'evil.example'] as unknown as string }).answer).toBeUndefined();
  });

  it('answers 401 with the challenges, not cached, and lets valid credentials through', () => {
    const auth = mainAuth();
    expect(admit({ auth }, 'GET', '/microstream/root', {})).toEqual({
      headers: { 'www-authenticate': ['Bearer realm="storage-inspector"'], 'cache-control': 'no-store' },
      answer: { status: 401, contentType: 'text/plain;charset=utf-8', body: UNAUTHORIZED_BODY },
    });
    expect(admit({ auth }, 'GET', '/', { authorization: bearer('wrong') }).headers['www-authenticate']).toEqual(['Bearer realm="storage-inspector", error="invalid_token"']);
    expect(admit({ auth }, 'GET', '/', { authorization: bearer(TOKEN) })).toEqual({ headers: {} });
    expect(UNAUTHORIZED_BODY).toBe('Unauthorized: this storage-inspector requires credentials (Authorization header).\n');
  });

  it('opens GET /metrics, with or without a query, and nothing else, with the metrics token', () => {
    const auth = mainAuth();
    const metricsToken = metricsAuth();
    const options = { auth, metricsToken };
    for (const url of ['/metrics', '/metrics?x=1']) expect(admit(options, 'GET', url, { authorization: bearer(METRICS) }), url).toEqual({ headers: {} });
    for (const [method, url] of [['GET', '/metrics/'], ['GET', '/metricsx'], ['HEAD', '/metrics'], ['GET', '/'], ['GET', '/x/metrics']]) {
      expect(admit(options, method!, url!, { authorization: bearer(METRICS) }).answer?.status, `${method} ${url}`).toBe(401);
    }
    expect(admit(options, 'GET', '/metrics', { authorization: bearer(TOKEN) })).toEqual({ headers: {} });
    // Without other access control the metrics token guards /metrics alone.
    expect(admit({ metricsToken }, 'GET', '/metrics', {}).answer?.status).toBe(401);
    expect(admit({ metricsToken }, 'GET', '/metrics', { authorization: bearer(TOKEN) }).answer?.status).toBe(401);
    expect(admit({ metricsToken }, 'GET', '/microstream/root', {})).toEqual({ headers: {} });
  });

  it('answers an allowed preflight before credentials, and adds CORS headers to other answers', () => {
    const auth = mainAuth();
    const cors = parseCorsOrigins('https://viewer.example.com');
    const origin = 'https://viewer.example.com';
    const preflight = admit({ auth, cors }, 'OPTIONS', '/', { origin, 'access-control-request-method': 'GET' });
    expect(preflight).toEqual({ headers: preflightHeaders(cors, origin), answer: { status: 204, body: '' } });
    const refused = admit({ auth, cors }, 'GET', '/', { origin });
    expect(refused.answer?.status).toBe(401);
    expect(refused.headers).toMatchObject({ 'access-control-allow-origin': origin, vary: 'Origin' });
    expect(admit({ cors }, 'GET', '/', { origin: 'https://evil.example' })).toEqual({ headers: { vary: 'Origin' } });
    expect(admit({ cors: parseCorsOrigins('*') }, 'GET', '/', {})).toEqual({ headers: {} });
    expect(admit({ cors }, 'OPTIONS', '/', { origin: 'https://evil.example', 'access-control-request-method': 'GET' })).toEqual({ headers: { vary: 'Origin' } });
  });

  it('checks the Host only with an allow-list, taking 80 over HTTP and 443 over TLS as a Host\'s port when it names none', () => {
    expect(admit({ auth: mainAuth() }, 'GET', '/', { host: 'evil.example', authorization: bearer(TOKEN) })).toEqual({ headers: {} });
    const tls = { cert: Buffer.from(''), key: Buffer.from('') };
    const on80 = hostAllowList('127.0.0.1', ['proxy.local:80'], ['127.0.0.1'])!;
    const on443 = hostAllowList('127.0.0.1', ['proxy.local:443'], ['127.0.0.1'])!;
    expect(admit({ allowedHosts: on80 }, 'GET', '/', { host: 'proxy.local' }).answer).toBeUndefined();
    expect(admit({ allowedHosts: on443 }, 'GET', '/', { host: 'proxy.local' }).answer?.status).toBe(421);
    expect(admit({ allowedHosts: on443, tls }, 'GET', '/', { host: 'proxy.local' }).answer).toBeUndefined();
    expect(admit({ allowedHosts: on80, tls }, 'GET', '/', { host: 'proxy.local' }).answer?.status).toBe(421);
  });

  it('reads the first Authorization header of repeated ones', () => {
    const auth = mainAuth();
    expect(admit({ auth }, 'GET', '/', { authorization: [bearer(TOKEN), bearer('x')] as unknown as string })).toEqual({ headers: {} });
  });
});

describe('credentials', () => {
  it('compares Bearer tokens and Basic pairs, each only where configured', () => {
    const auth = mainAuth();
    const both = loadAuthConfig({ env: { STORAGE_INSPECTOR_TOKEN: TOKEN, STORAGE_INSPECTOR_BASIC_AUTH: 'bob:pw' }, warn: () => undefined })!;
    const basicOnly = loadAuthConfig({ env: { STORAGE_INSPECTOR_BASIC_AUTH: ' bob:pw ' }, warn: () => undefined })!;
    expect(checkAuthorization(both, basic('bob:pw'))).toEqual({ ok: true });
    expect(checkAuthorization(basicOnly, basic('bob:pw'))).toEqual({ ok: true });
    expect(checkAuthorization(basicOnly, bearer('bob:pw'))).toEqual({ ok: false, invalid: true });
    expect(checkAuthorization(auth, basic(TOKEN))).toEqual({ ok: false, invalid: true });
    expect(checkAuthorization(auth, `Bearer   ${TOKEN}  `)).toEqual({ ok: true });
    expect(checkAuthorization(auth, `BEARER ${TOKEN}`)).toEqual({ ok: true });
    for (const header of [`Bearer ${TOKEN} x`, ` Bearer ${TOKEN}`, `Bearer\t${TOKEN}`, 'Bearer', '', `Be4rer ${TOKEN}`]) {
      expect(checkAuthorization(auth, header), JSON.stringify(header)).toEqual({ ok: false, invalid: true });
    }
    // Basic credentials that are not base64 are refused before decoding.
    expect(checkAuthorization(basicOnly, 'Basic Ym9iOnB3!')).toEqual({ ok: false, invalid: true });
    expect(checkAuthorization(basicOnly, 'Basic =Ym9iOnB3')).toEqual({ ok: false, invalid: true });
    expect(checkAuthorization(basicOnly, 'Basic Ym9iOnB3===')).toEqual({ ok: false, invalid: true });
    expect(checkAuthorization(loadAuthConfig({ env: { STORAGE_INSPECTOR_BASIC_AUTH: 'bo:pw' }, warn: () => undefined })!, 'Basic Ym86cHc=')).toEqual({ ok: true });
  });

  it('takes Basic pairs only under the Basic scheme', () => {
    const basicOnly = loadAuthConfig({ env: { STORAGE_INSPECTOR_BASIC_AUTH: 'bob:pw' }, warn: () => undefined })!;
    expect(checkAuthorization(basicOnly, `Digest ${Buffer.from('bob:pw').toString('base64')}`)).toEqual({ ok: false, invalid: true });
    // Node's base64 decoder skips what is not base64; the pattern refuses it first.
    expect(checkAuthorization(basicOnly, 'Basic !Ym9iOnB3')).toEqual({ ok: false, invalid: true });
  });

  it('reads the token from the environment or a file, trimmed, one way only, refusing empty and unprintable ones', () => {
    const noWarning = (): undefined => undefined;
    expect(loadAuthConfig({ env: {}, warn: noWarning })).toBeUndefined();
    const fromFile = loadAuthConfig({ tokenFile: secret('token', `  ${TOKEN}\n`), env: {}, warn: noWarning })!;
    expect(checkAuthorization(fromFile, bearer(TOKEN))).toEqual({ ok: true });
    expect(fromFile.basicDigests).toEqual([]);
    expect(checkAuthorization(mainAuth(), bearer(TOKEN))).toEqual({ ok: true });
    const file = secret('token-2', TOKEN);
    expect(() => loadAuthConfig({ tokenFile: file, env: { STORAGE_INSPECTOR_TOKEN: TOKEN }, warn: noWarning })).toThrow(
      'both STORAGE_INSPECTOR_TOKEN and --auth-token-file are set; give the token one way only',
    );
    expect(() => loadAuthConfig({ tokenFile: secret('blank', ' \n'), env: {}, warn: noWarning })).toThrow(`--auth-token-file ${join(tmp, 'blank')}: the token is empty`);
    expect(() => loadAuthConfig({ env: { STORAGE_INSPECTOR_TOKEN: '' }, warn: noWarning })).toThrow('environment variable STORAGE_INSPECTOR_TOKEN: the token is empty');
    for (const token of ['a b', 'ä1', '\u0001x']) {
      expect(() => loadAuthConfig({ env: { STORAGE_INSPECTOR_TOKEN: token }, warn: noWarning }), token).toThrow(
        'environment variable STORAGE_INSPECTOR_TOKEN: the token must be printable ASCII without spaces (it is sent in an HTTP header)',
      );
    }
    expect(() => loadAuthConfig({ tokenFile: secret('spaced-token', 'a b'), env: {}, warn: noWarning })).toThrow(`--auth-token-file ${join(tmp, 'spaced-token')}: the token must be printable ASCII`);
    const warnings: string[] = [];
    loadAuthConfig({ tokenFile: secret('shared-token', TOKEN, 0o644), env: {}, warn: (m) => warnings.push(m) });
    expect(warnings).toEqual([`--auth-token-file ${join(tmp, 'shared-token')} is readable by all users (mode 644); consider chmod 600`]);
    expect(() => loadAuthConfig({ basicAuthFile: secret('no-pairs', '# none\n\n'), env: {}, warn: noWarning })).toThrow(`--basic-auth-file ${join(tmp, 'no-pairs')} holds no user:password line`);
  });

  it('accepts any of several Basic pairs, whatever their order', () => {
    const file = secret('pairs', 'alice:a1\r\n  # comment\n\nbob:b2  \n');
    const config = loadAuthConfig({ basicAuthFile: file, env: {}, warn: () => undefined })!;
    expect(config.basicDigests).toHaveLength(2);
    expect(config.tokenDigests).toHaveLength(0);
    expect(checkAuthorization(config, basic('alice:a1'))).toEqual({ ok: true });
    expect(checkAuthorization(config, basic('bob:b2'))).toEqual({ ok: true });
    expect(checkAuthorization(config, basic('bob:a1'))).toEqual({ ok: false, invalid: true });
    expect(challenges(config, true)).toEqual(['Basic realm="storage-inspector", charset="UTF-8"']);
  });

  it('names the bad line of a Basic file and refuses pairs without a user or a password', () => {
    const file = secret('bad-pairs', 'alice:a1\nnocolon\n');
    expect(() => loadAuthConfig({ basicAuthFile: file, env: {}, warn: () => undefined })).toThrow(`--basic-auth-file ${file} line 2: expected user:password`);
    for (const pair of [':pw', 'user:', 'x']) {
      expect(() => loadAuthConfig({ env: { STORAGE_INSPECTOR_BASIC_AUTH: pair }, warn: () => undefined }), pair).toThrow('environment variable STORAGE_INSPECTOR_BASIC_AUTH: expected user:password');
    }
    expect(() => loadAuthConfig({ basicAuthFile: file, env: { STORAGE_INSPECTOR_BASIC_AUTH: 'a:b' }, warn: () => undefined })).toThrow(
      'both STORAGE_INSPECTOR_BASIC_AUTH and --basic-auth-file are set; give the credentials one way only',
    );
    expect(() => loadAuthConfig({ basicAuthFile: join(tmp, 'none'), env: {}, warn: () => undefined })).toThrow(`cannot read --basic-auth-file ${join(tmp, 'none')}: ENOENT`);
  });

  it('gives both challenges when both are configured, the Bearer one marked invalid only when credentials were wrong', () => {
    const both = loadAuthConfig({ env: { STORAGE_INSPECTOR_TOKEN: TOKEN, STORAGE_INSPECTOR_BASIC_AUTH: 'bob:pw' }, warn: () => undefined })!;
    expect(challenges(both, false)).toEqual(['Bearer realm="storage-inspector"', 'Basic realm="storage-inspector", charset="UTF-8"']);
    expect(challenges(both, true)).toEqual(['Bearer realm="storage-inspector", error="invalid_token"', 'Basic realm="storage-inspector", charset="UTF-8"']);
    expect(checkAuthorization(both, undefined)).toEqual({ ok: false, invalid: false });
  });

  it('refuses secrets as option values up to "--", with or without "="', () => {
    for (const flag of ['--auth-token', '--token', '--basic-auth', '--password', '--pg-password']) {
      expect(() => refuseSecretFlags([flag, 'x']), flag).toThrow(new RegExp(`^${flag} is not accepted: .*on the command line (is|are) visible to other users`));
      expect(() => refuseSecretFlags([`${flag}=x`]), flag).toThrow(`${flag} is not accepted`);
    }
    expect(() => refuseSecretFlags(['--pg-password', 'x'])).toThrow(/--pg-password-file, in PGPASSFILE or ~\/\.pgpass, or in PGPASSWORD/);
    expect(() => refuseSecretFlags(['--', '--auth-token', 'x'])).not.toThrow();
    expect(() => refuseSecretFlags(['dir', '--auth-token-file=x', '--tokens'])).not.toThrow();
  });

  it('warns about a secret file the group can read, and says nothing of a private one', () => {
    const warnings: string[] = [];
    warnIfShared(secret('group', 'x', 0o640), '--auth-token-file', (m) => warnings.push(m));
    warnIfShared(secret('private', 'x', 0o600), '--auth-token-file', (m) => warnings.push(m));
    warnIfShared(secret('others', 'x', 0o604), '--auth-token-file', (m) => warnings.push(m));
    warnIfShared(join(tmp, 'gone'), '--auth-token-file', (m) => warnings.push(m));
    expect(warnings).toEqual([
      `--auth-token-file ${join(tmp, 'group')} is readable by its group (mode 640); consider chmod 600`,
      `--auth-token-file ${join(tmp, 'others')} is readable by all users (mode 604); consider chmod 600`,
    ]);
  });

  it('reads the metrics token once, trimmed, as a token of its own', () => {
    const metricsToken = metricsAuth();
    expect(loadMetricsToken(undefined, () => undefined)).toBeUndefined();
    expect(metricsToken.basicDigests).toEqual([]);
    expect(metricsToken.tokenDigests).toHaveLength(1);
    expect(() => loadMetricsToken(join(tmp, 'no-such-file'), () => undefined)).toThrow(`cannot read --metrics-token-file ${join(tmp, 'no-such-file')}: ENOENT`);
    const shared: string[] = [];
    loadMetricsToken(secret('metrics-shared', METRICS, 0o640), (m) => shared.push(m));
    expect(shared).toEqual([`--metrics-token-file ${join(tmp, 'metrics-shared')} is readable by its group (mode 640); consider chmod 600`]);
    expect(checkAuthorization(metricsToken, bearer(METRICS))).toEqual({ ok: true });
    expect(checkAuthorization(metricsToken, bearer(`${METRICS}\n`.trim() + 'x'))).toEqual({ ok: false, invalid: true });
    expect(() => loadMetricsToken(secret('spaced', 'a b'), () => undefined)).toThrow(/the token must be non-empty printable ASCII without spaces \(it is sent in an HTTP header\)/);
    const warnings: string[] = [];
    loadMetricsToken(secret('metrics-private', METRICS), (m) => warnings.push(m));
    expect(warnings).toEqual([]);
  });
});

describe('Host rules at their edges', () => {
  it('tells loopback hosts', () => {
    for (const host of ['127.0.0.1', '127.255.0.9', '::1', 'LOCALHOST']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['128.0.0.1', '127.0.0.1.example', 'x127.0.0.1', '::2', 'localhost.example', '[::1]']) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('shows at most 100 printable characters of the refused Host in the 421 text', () => {
    const text = (shown: string): string =>
      `Misdirected Request: this storage-inspector does not answer for the host "${shown}". It accepts localhost, 127.0.0.1, [::1], the addresses it listens on and the names given with --allowed-hosts (protection against DNS rebinding).\n`;
    expect(misdirectedText('evil.example')).toBe(text('evil.example'));
    expect(misdirectedText(undefined)).toBe(text(''));
    expect(misdirectedText('a\u0000b\u00e9c\u007f~ ')).toBe(text('a?b?c?~ '));
    expect(misdirectedText('x'.repeat(150))).toBe(text('x'.repeat(100)));
  });

  it('normalises --allowed-hosts items and accepts names, IPv4 and bracketed IPv6 with ports', () => {
    expect(parseAllowedHosts(' A.Example , ,b-c.example:8080,10.0.0.1:1,[::1]:443, [FE80::1] ')).toEqual(['a.example', 'b-c.example:8080', '10.0.0.1:1', '[::1]:443', '[fe80::1]']);
    for (const bad of ['-a.example', 'a-.example', 'a..example', 'a.example:123456', '[::g]', '[1.2.3.4]', 'a.example:', '::1']) {
      expect(() => parseAllowedHosts(bad), bad).toThrow(`--allowed-hosts: "${bad}" is not a host name, IPv4 address or [IPv6] address with an optional :port`);
    }
    expect(() => parseAllowedHosts(' , ')).toThrow('--allowed-hosts needs at least one host name (e.g. inspector.example.com) or *');
    expect(() => parseAllowedHosts('a.example,*')).toThrow('--allowed-hosts: * cannot be combined with names');
    expect(parseAllowedHosts(' * ')).toBe('any');
    expect(hostAllowList('127.0.0.1', 'any')).toBeUndefined();
    expect(hostAllowList('127.0.0.1', undefined, ['127.0.0.1'])).toEqual({ loopbackNames: new Set(['localhost', '127.0.0.1', '[::1]']), names: new Set() });
    // A request without Host (HTTP/1.0) comes from no browser page.
    expect(hostAllowed(undefined, hostAllowList('127.0.0.1', undefined, ['127.0.0.1'])!, 80)).toBe(true);
  });

  it('compares the Host trimmed and in lower case, a port only where the name was listed with one', () => {
    const list = hostAllowList('127.0.0.1', ['app.example', 'proxy.example:8443'], ['127.0.0.1'])!;
    expect(hostAllowed('  APP.example:1234 ', list, 80)).toBe(true);
    expect(hostAllowed('proxy.example:8443', list, 443)).toBe(true);
    expect(hostAllowed('proxy.example', list, 8443)).toBe(true);
    expect(hostAllowed('proxy.example', list, 443)).toBe(false);
    expect(hostAllowed('[::1]', list, 80)).toBe(true);
    expect(hostAllowed('[::1', list, 80)).toBe(false);
    expect(hostAllowList('::', undefined, ['FE80::AB'])!.loopbackNames.has('[fe80::ab]')).toBe(true);
    expect(hostAllowList('0.0.0.0', undefined, ['Host.Example'])!.loopbackNames.has('host.example')).toBe(true);
  });

  it('lists the addresses of a wildcard bind from the interfaces, skipping zoned link-local IPv6 ones', () => {
    const info = (address: string, family: 'IPv4' | 'IPv6', scopeid?: number) =>
      ({ address, family, scopeid, netmask: '', mac: '00:00:00:00:00:00', internal: false, cidr: null }) as never;
    const interfaces = { lo: [info('127.0.0.1', 'IPv4'), info('::1', 'IPv6', 0)], eth0: [info('10.0.0.5', 'IPv4'), info('fe80::1', 'IPv6', 2), info('2001:db8::5', 'IPv6', 0)], down: undefined };
    expect(listeningAddresses('0.0.0.0', interfaces)).toEqual(['127.0.0.1', '10.0.0.5']);
    expect(listeningAddresses('::', interfaces)).toEqual(['127.0.0.1', '::1', '10.0.0.5', '2001:db8::5']);
    expect(listeningAddresses('[::]', interfaces)).toEqual(['127.0.0.1', '::1', '10.0.0.5', '2001:db8::5']);
    expect(listeningAddresses('10.0.0.5', interfaces)).toEqual(['10.0.0.5']);
  });
});
