import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import type { NetworkInterfaceInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { refuseOpenServer } from '../../src/cli/commands/serve.js';
import { hostAllowed, hostAllowList, listeningAddresses } from '../../src/http/guard/host-check.js';
import { spawnCli } from './cli.js';
import { corpusStorage } from './server.js';

/**
 * The Host check on every interface (loopback names, the names given, the addresses listened on),
 * and the container's defaults: beyond loopback, no start without credentials or
 * `--allowed-hosts`.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const INTERFACES: NodeJS.Dict<NetworkInterfaceInfo[]> = {
  lo: [
    { address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '00:00:00:00:00:00', internal: true, cidr: '127.0.0.1/8' },
    { address: '::1', netmask: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', family: 'IPv6', mac: '00:00:00:00:00:00', internal: true, cidr: '::1/128', scopeid: 0 },
  ],
  eth0: [
    { address: '172.17.0.2', netmask: '255.255.0.0', family: 'IPv4', mac: '02:42:ac:11:00:02', internal: false, cidr: '172.17.0.2/16' },
    { address: 'fe80::42:acff:fe11:2', netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6', mac: '02:42:ac:11:00:02', internal: false, cidr: 'fe80::42:acff:fe11:2/64', scopeid: 2 },
  ],
};

describe('the Host check beyond loopback', () => {
  it('is on for 0.0.0.0 without --allowed-hosts: loopback names and the addresses listened on pass, other names get 421', () => {
    const list = hostAllowList('0.0.0.0', undefined, listeningAddresses('0.0.0.0', INTERFACES));
    expect(list).toBeDefined();
    expect(hostAllowed('localhost:4567', list!, 80)).toBe(true);
    expect(hostAllowed('127.0.0.1:4567', list!, 80)).toBe(true);
    expect(hostAllowed('172.17.0.2:4567', list!, 80)).toBe(true);
    expect(hostAllowed('172.17.0.2', list!, 80)).toBe(true);
    expect(hostAllowed('evil.example:4567', list!, 80)).toBe(false);
    expect(hostAllowed('rebound.attacker.example', list!, 80)).toBe(false);
  });

  it('takes the names given besides, and is off only with *', () => {
    const list = hostAllowList('0.0.0.0', ['inspector.example.com'], ['172.17.0.2'])!;
    expect(hostAllowed('inspector.example.com', list, 80)).toBe(true);
    expect(hostAllowed('172.17.0.2:4567', list, 80)).toBe(true);
    expect(hostAllowed('other.example.com', list, 80)).toBe(false);
    expect(hostAllowList('0.0.0.0', 'any')).toBeUndefined();
    expect(hostAllowList('192.168.1.5', undefined)).toBeDefined();
  });

  it('knows the addresses of a wildcard: IPv4 ones for 0.0.0.0, all but zoned link-local ones for ::', () => {
    expect(listeningAddresses('0.0.0.0', INTERFACES)).toEqual(['127.0.0.1', '172.17.0.2']);
    expect(listeningAddresses('::', INTERFACES)).toEqual(['127.0.0.1', '::1', '172.17.0.2']);
    expect(listeningAddresses('192.168.1.5', INTERFACES)).toEqual(['192.168.1.5']);
  });
});

describe('serving beyond loopback without credentials', () => {
  it('is refused unless credentials or --allowed-hosts are given', () => {
    expect(() => refuseOpenServer('0.0.0.0', false, false)).toThrow(/refusing to listen on 0\.0\.0\.0 without authentication/);
    expect(() => refuseOpenServer('0.0.0.0', false, false)).toThrow(/--allowed-hosts/);
    expect(() => refuseOpenServer('0.0.0.0', true, false)).not.toThrow();
    expect(() => refuseOpenServer('0.0.0.0', false, true)).not.toThrow();
    expect(() => refuseOpenServer('127.0.0.1', false, false)).not.toThrow();
  });

  it("the container's environment alone (STORAGE_INSPECTOR_HOST=0.0.0.0) exits 2 with the reason", async () => {
    const run = spawnCli(['serve', corpusStorage('graph'), '--port', '0', '--quiet'], { STORAGE_INSPECTOR_HOST: '0.0.0.0' });
    expect((await run.exit).code).toBe(2);
    expect(run.stderr()).toContain('refusing to listen on 0.0.0.0 without authentication');
  });

  it('with --allowed-hosts it serves and checks the Host header', async () => {
    const run = spawnCli(['serve', corpusStorage('graph'), '--port', '0', '--quiet', '--no-follow', '--host', '0.0.0.0', '--allowed-hosts', 'inspector.example']);
    try {
      const port = await run.port;
      // node:http sends the Host header given (fetch would not).
      const get = (host: string): Promise<number> =>
        new Promise((resolve, reject) => {
          request({ host: '127.0.0.1', port, path: '/microstream/root', headers: { Host: host } }, (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          })
            .on('error', reject)
            .end();
        });
      expect(await get(`127.0.0.1:${port}`)).toBe(200);
      expect(await get('inspector.example')).toBe(200);
      expect(await get(`rebound.attacker.example:${port}`)).toBe(421);
    } finally {
      run.child.kill('SIGTERM');
      await run.exit;
    }
  });
});

describe('the Dockerfile', () => {
  it('installs from the lock file and sets no open Host check', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^RUN npm ci /m);
    expect(dockerfile).not.toMatch(/ALLOWED_HOSTS=\*/);
    expect(dockerfile).toMatch(/docker run --rm -p 127\.0\.0\.1:4567:4567/);
  });
});
