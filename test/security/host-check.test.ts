import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../src/cli/commands/serve.js';
import { buildApp } from '../../src/http/app.js';
import { admit } from '../../src/http/guard/admission.js';
import { hostAllowed, hostAllowList, parseAllowedHosts } from '../../src/http/guard/host-check.js';
import { Storage } from '../../src/storage/storage.js';
import { spawnCli } from './cli.js';
import { corpusStorage, send } from './server.js';

/** Item: DNS rebinding. A loopback server answers only requests addressed to a loopback name or an allowed one. */

describe('Host allow-list', () => {
  const loopback = hostAllowList('127.0.0.1', undefined)!;

  it('accepts the loopback names with any port, and nothing else by default', () => {
    for (const host of ['localhost:4567', '127.0.0.1:4567', '[::1]:4567', 'LOCALHOST:80', '127.0.0.1', 'localhost']) {
      expect(hostAllowed(host, loopback, 80), host).toBe(true);
    }
    for (const host of ['evil.example:4567', 'evil.example', '127.0.0.1.nip.io:4567', 'localhost.evil.example', '', '127.0.0.1:4567 x', 'a@127.0.0.1', '[::2]:4567', '[zz]']) {
      expect(hostAllowed(host, loopback, 80), host).toBe(false);
    }
    // HTTP/1.0 without a Host header is no browser page.
    expect(hostAllowed(undefined, loopback, 80)).toBe(true);
  });

  it('adds the names of --allowed-hosts, with or without a port', () => {
    const list = hostAllowList('127.0.0.1', parseAllowedHosts('inspector.example.com, proxy.local:8443'))!;
    expect(hostAllowed('inspector.example.com', list, 80)).toBe(true);
    expect(hostAllowed('Inspector.Example.com:9000', list, 80)).toBe(true);
    expect(hostAllowed('proxy.local:8443', list, 80)).toBe(true);
    expect(hostAllowed('proxy.local:8444', list, 80)).toBe(false);
    expect(hostAllowed('proxy.local', list, 443)).toBe(false);
    expect(hostAllowed('proxy.local', hostAllowList('127.0.0.1', parseAllowedHosts('proxy.local:443'))!, 443)).toBe(true);
    expect(hostAllowed('evil.example', list, 80)).toBe(false);
  });

  it('checks on every interface by default, never with *', () => {
    // Each bind address gets the loopback names and the address it listens on, and no operator name.
    for (const [bind, listening] of [['127.0.0.1', ['127.0.0.1']], ['::1', ['::1']], ['localhost', ['localhost']], ['0.0.0.0', ['10.1.2.3', '127.0.0.1']]] as const) {
      const list = hostAllowList(bind, undefined, listening);
      const shown = listening.map((a) => (a.includes(':') ? `[${a}]` : a));
      expect(list, bind).toEqual({ loopbackNames: new Set(['localhost', '127.0.0.1', '[::1]', ...shown]), names: new Set() });
    }
    expect(hostAllowList('0.0.0.0', ['inspector.example.com'], ['10.1.2.3'])).toEqual({ loopbackNames: new Set(['localhost', '127.0.0.1', '[::1]', '10.1.2.3']), names: new Set(['inspector.example.com']) });
    expect(hostAllowList('127.0.0.1', 'any')).toBeUndefined();
    // Bound to another loopback address: that address is accepted too.
    expect(hostAllowed('127.0.0.2:4567', hostAllowList('127.0.0.2', undefined)!, 80)).toBe(true);
    expect(hostAllowed('[::1]:4567', hostAllowList('::1', undefined)!, 80)).toBe(true);
  });

  it('takes a Host without a port as the scheme\'s default port: 80 over HTTP, 443 over TLS', () => {
    // Guards the default ports of the admission check (admission.ts): swapped, these answers flip.
    const http = { allowedHosts: hostAllowList('127.0.0.1', parseAllowedHosts('proxy.local:80'))! };
    const https = { allowedHosts: hostAllowList('127.0.0.1', parseAllowedHosts('proxy.local:443'))! };
    const tls = { cert: Buffer.from(''), key: Buffer.from('') };
    const admitted = (options: object, host: string): boolean => admit(options as Parameters<typeof admit>[0], 'GET', '/', { host }).answer === undefined;
    expect(admitted(http, 'proxy.local')).toBe(true);
    expect(admitted(https, 'proxy.local')).toBe(false);
    expect(admitted({ ...https, tls }, 'proxy.local')).toBe(true);
    expect(admitted({ ...http, tls }, 'proxy.local')).toBe(false);
  });

  it('refuses malformed --allowed-hosts values as usage errors', () => {
    expect(() => parseAllowedHosts('')).toThrow(/needs at least one host name/);
    expect(() => parseAllowedHosts('*, a.example')).toThrow(/cannot be combined/);
    expect(() => parseAllowedHosts('http://a.example')).toThrow(/not a host name/);
    expect(() => parseServeArgs(['dir', '--allowed-hosts', 'a b'])).toThrow(/--allowed-hosts: "a b" is not a host name/);
    expect(parseAllowedHosts('*')).toBe('any');
    expect(parseServeArgs(['dir', '--allowed-hosts', 'a.example,[::1]:8080'])).toMatchObject({ allowedHosts: 'a.example,[::1]:8080' });
  });
});

describe('Host check in the server', () => {
  let server: { port: number; close(): Promise<void> };
  beforeAll(async () => {
    const storage = await Storage.open(corpusStorage('graph'));
    const app = buildApp(storage, { instance: 'microstream', allowedHosts: hostAllowList('127.0.0.1', parseAllowedHosts('inspector.example.com')) });
    // A route added by a plugin (as /api/v1 is) is covered too: the check runs before routing.
    app.get('/api/v1/probe', async () => ({ data: 'secret' }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    server = {
      port: (app.server.address() as AddressInfo).port,
      close: async () => {
        await app.close();
        await storage.close();
      },
    };
  });
  afterAll(() => server.close());

  it('answers 421 without any data to a rebound name, on every route, method and path form', async () => {
    const targets = ['/microstream/root', '/', '/microstream/object/1000000000000000028', '/microstream/dictionary', '/viewer/', '/viewer', '/nope', '//microstream/root', '/api/v1/probe', '/microstream/root?x=%zz'];
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'POST']) {
      for (const target of targets) {
        const answer = await send(server.port, method, target, { Host: `evil.example:${server.port}` });
        expect(answer.status, `${method} ${target}`).toBe(421);
        if (method !== 'HEAD') expect(answer.body.toString()).toMatch(/^Misdirected Request: this storage-inspector does not answer for the host "evil\.example:\d+"/);
        expect(answer.body.toString()).not.toContain('1000000000000000028');
      }
    }
  });

  it('answers loopback names and the allowed ones as before', async () => {
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `[::1]:${server.port}`, 'inspector.example.com']) {
      const answer = await send(server.port, 'GET', '/microstream/root', { Host: host });
      expect(answer.status, host).toBe(200);
      expect(answer.body.toString()).toBe('{"name":"ROOT","objectId":"1000000000000000028"}');
    }
  });
});

describe('serve checks the Host header by default', () => {
  it('refuses a rebound name on loopback, accepts --allowed-hosts names, and warns about *', async () => {
    const run = spawnCli(['serve', corpusStorage('graph'), '--port', '0', '--quiet', '--no-follow', '--allowed-hosts', 'inspector.example.com']);
    try {
      const port = await run.port;
      expect((await send(port, 'GET', '/microstream/root', { Host: `attacker.example:${port}` })).status).toBe(421);
      expect((await send(port, 'GET', '/microstream/root', { Host: `localhost:${port}` })).status).toBe(200);
      expect((await send(port, 'GET', '/microstream/root', { Host: 'inspector.example.com' })).status).toBe(200);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect((await run.exit).code).toBe(0);

    const open = spawnCli(['serve', corpusStorage('graph'), '--port', '0', '--quiet', '--no-follow', '--allowed-hosts', '*']);
    try {
      const port = await open.port;
      expect(open.stderr()).toContain('warning: --allowed-hosts * turns off the Host check');
      expect((await send(port, 'GET', '/microstream/root', { Host: `attacker.example:${port}` })).status).toBe(200);
    } finally {
      open.child.kill('SIGTERM');
    }
    expect((await open.exit).code).toBe(0);
  });
});
