import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../src/cli/commands/serve.js';
import { spawnCli } from './cli.js';
import { corpusStorage, send } from './server.js';

const TOKEN = 'cli-test-token-0123456789abcdef';
let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'si-cli-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Bytes that arrive on a raw socket until it closes. */
function collect(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
    socket.on('close', () => resolve(data));
    socket.on('error', () => undefined);
  });
}

/** The server's interim answer to `Expect: 100-continue`: it has read the request's head, the request is in flight. */
const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';

function continued(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    let data = '';
    const look = (d: Buffer): void => {
      data += d.toString('latin1');
      if (data.startsWith(CONTINUE)) {
        socket.off('data', look);
        resolve();
      }
    };
    socket.on('data', look);
  });
}

function connected(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
  });
}

describe('serve: security options', () => {
  it('parses the new options and leaves them unset by default', () => {
    expect(parseServeArgs(['dir'])).toEqual({ directory: 'dir', storages: [{ name: undefined, directory: 'dir' }], port: 4567, host: '127.0.0.1', dialect: 'spark', quiet: false, logFormat: 'json', follow: true, pollIntervalMs: 500 });
    expect(
      parseServeArgs([
        'dir',
        '--auth-token-file', 't',
        '--basic-auth-file', 'b',
        '--cors', 'https://a.example.com',
        '--tls-cert', 'c',
        '--tls-key', 'k',
        '--max-response-bytes', '1048576',
        '--request-timeout', '0',
        '--shutdown-timeout', '2500',
      ]),
    ).toMatchObject({ authTokenFile: 't', basicAuthFile: 'b', cors: 'https://a.example.com', tlsCert: 'c', tlsKey: 'k', maxResponseBytes: 1048576, requestTimeoutMs: 0, shutdownTimeoutMs: 2500 });
    expect(() => parseServeArgs(['dir', '--max-response-bytes', '10'])).toThrow(/invalid --max-response-bytes "10": a size from 1 KiB to 4 GiB is expected: bytes, or a number with a unit/);
    expect(() => parseServeArgs(['dir', '--request-timeout', '-1'])).toThrow(/--request-timeout/);
    expect(() => parseServeArgs(['dir', '--tls-cert', 'c'])).toThrow('--tls-cert and --tls-key go together');
    expect(() => parseServeArgs(['dir', '--cors', 'nope'])).toThrow(/--cors: "nope" is not an origin/);
  });

  it('refuses a token on the command line (exit 2), naming the environment variable and the file option', async () => {
    const run = spawnCli(['serve', corpusStorage('graph'), '--port', '0', '--auth-token', TOKEN]);
    expect((await run.exit).code).toBe(2);
    expect(run.stderr()).toContain('--auth-token is not accepted');
    expect(run.stderr()).toContain('STORAGE_INSPECTOR_TOKEN');
    expect(run.stderr()).toContain('--auth-token-file');
  });

  it('warns about a non-loopback host without authentication (allowed with --allowed-hosts)', async () => {
    // A directory that does not exist: the warning comes first, then the start fails before listening.
    const run = spawnCli(['serve', join(tmp, 'no-such-storage'), '--port', '0', '--host', '0.0.0.0', '--allowed-hosts', 'inspector.example']);
    expect((await run.exit).code).toBe(1);
    expect(run.stderr()).toContain('warning: listening on 0.0.0.0 without authentication');
  });

  it('requires the token from the environment on every route, with the token file warning', async () => {
    const run = spawnCli(['serve', corpusStorage('graph'), '--port', '0', '--quiet', '--no-follow'], { STORAGE_INSPECTOR_TOKEN: TOKEN });
    try {
      const port = await run.port;
      expect(run.stderr()).toMatch(/serving .* at http:\/\/127\.0\.0\.1:\d+\/microstream\/root \(authentication required\)/);
      expect((await send(port, 'GET', '/microstream/root')).status).toBe(401);
      const ok = await send(port, 'GET', '/microstream/root', { Authorization: `Bearer ${TOKEN}` });
      expect(ok.status).toBe(200);
      expect(ok.body.toString()).toBe('{"name":"ROOT","objectId":"1000000000000000028"}');
    } finally {
      run.child.kill('SIGTERM');
    }
    expect((await run.exit).code).toBe(0);

    const tokenFile = join(tmp, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`);
    chmodSync(tokenFile, 0o640);
    const fromFile = spawnCli(['serve', corpusStorage('noroot'), '--port', '0', '--quiet', '--no-follow', '--auth-token-file', tokenFile]);
    try {
      const port = await fromFile.port;
      expect(fromFile.stderr()).toMatch(/warning: --auth-token-file .*token is readable by its group \(mode 640\)/);
      expect((await send(port, 'GET', '/', { Authorization: `Bearer ${TOKEN}` })).status).toBe(200);
      expect((await send(port, 'GET', '/', { Authorization: 'Bearer nope' })).status).toBe(401);
    } finally {
      fromFile.child.kill('SIGTERM');
    }
    expect((await fromFile.exit).code).toBe(0);
  });
});

describe('serve: graceful shutdown', () => {
  it('on SIGTERM stops accepting, lets a request in flight finish, then exits 0', async () => {
    const run = spawnCli(['serve', corpusStorage('graph'), '--port', '0', '--quiet', '--no-follow']);
    const port = await run.port;
    // A request whose body is still arriving is in flight.
    const socket = await connected(port);
    const answer = collect(socket);
    const inFlight = continued(socket);
    socket.write('POST /microstream/root HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\nabc');
    await inFlight;
    run.child.kill('SIGTERM');
    await run.waitForStderr(/SIGTERM: no new connections/);
    // Refused, or (if it raced the closing listener) reset before any answer.
    await expect(send(port, 'GET', '/microstream/root')).rejects.toThrow(/ECONNREFUSED|ECONNRESET/);
    socket.write('defghij');
    const text = await answer;
    expect(text.startsWith(CONTINUE)).toBe(true);
    expect(text.slice(CONTINUE.length)).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
    // The answer closes its keep-alive connection, so the exit does not wait for the 10 s grace period.
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(text.endsWith('<html><body><h2>404 Not found</h2></body></html>')).toBe(true);
    const exit = await run.exit;
    expect(exit.code).toBe(0);
    // It did not wait for the grace period: nothing was cut at its end.
    expect(run.stderr()).not.toContain('shutdown timeout');
    expect(run.stderr()).toContain('storage-inspector: stopped');
  });

  it('cuts connections still busy after --shutdown-timeout and exits', async () => {
    const run = spawnCli(['serve', corpusStorage('noroot'), '--port', '0', '--quiet', '--no-follow', '--shutdown-timeout', '300']);
    const port = await run.port;
    const socket = await connected(port);
    const answer = collect(socket);
    const inFlight = continued(socket);
    socket.write('POST /microstream/root HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: 1000\r\n\r\nabc');
    await inFlight;
    run.child.kill('SIGINT');
    const exit = await run.exit;
    expect(exit.code).toBe(0);
    expect(run.stderr()).toContain('shutdown timeout of 300 ms (--shutdown-timeout) passed: closed 1 request(s) not answered yet');
    // Cut: nothing after the interim answer.
    expect(await answer).toBe(CONTINUE);
  });
});
