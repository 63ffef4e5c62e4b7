import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { spawnCli } from './cli.js';
import { corpusStorage } from './server.js';

/**
 * SIGTERM while big answers are being sent: every response already started is sent completely
 * (Node's own close would destroy a connection whose answer was handed over but not yet sent);
 * only the shutdown limit cuts one, and the server says so on stderr.
 */

const BIG = '/microstream/object/1000000000000000071?references=true';
const BIG_BYTES = 7447633;

interface Reading {
  /** Resolves once the first bytes of the body arrived. */
  readonly receiving: Promise<void>;
  readonly done: Promise<{ status: number; bytes: number; complete: boolean }>;
}

/** A GET whose body is read at about `kibPerSecond`. */
function slowGet(port: number, path: string, kibPerSecond: number): Reading {
  let markReceiving!: () => void;
  const receiving = new Promise<void>((resolve) => (markReceiving = resolve));
  const done = new Promise<{ status: number; bytes: number; complete: boolean }>((resolve) => {
    let status = 0;
    let bytes = 0;
    let expected = -1;
    const finish = (): void => resolve({ status, bytes, complete: bytes === expected });
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      status = res.statusCode ?? 0;
      expected = Number(res.headers['content-length']);
      res.on('data', (d: Buffer) => {
        bytes += d.length;
        markReceiving();
        res.pause();
        setTimeout(() => res.resume(), (d.length / 1024 / kibPerSecond) * 1000);
      });
      res.on('end', finish);
      res.on('aborted', finish);
      res.on('error', finish);
    });
    req.on('error', finish);
    req.end();
  });
  return { receiving, done };
}

describe('serve: SIGTERM with answers being sent', () => {
  it('sends every response already started completely, then exits 0', async () => {
    const run = spawnCli(['serve', corpusStorage('collections'), '--port', '0', '--quiet', '--no-follow']);
    const port = await run.port;
    // Three 7.1 MiB answers read at ~1 MiB/s: each takes about 7 s to arrive.
    const readers = Array.from({ length: 3 }, () => slowGet(port, BIG, 1024));
    await Promise.all(readers.map((r) => r.receiving));
    run.child.kill('SIGTERM');
    const results = await Promise.all(readers.map((r) => r.done));
    for (const result of results) expect(result).toEqual({ status: 200, bytes: BIG_BYTES, complete: true });
    expect((await run.exit).code).toBe(0);
    expect(run.stderr()).toContain('SIGTERM: no new connections; finishing 3 request(s) in flight');
    expect(run.stderr()).toContain('all 3 request(s) in flight were answered completely');
    expect(run.stderr()).not.toContain('cut');
  });

  it('cuts only at the shutdown limit, and says so on stderr', async () => {
    const run = spawnCli(['serve', corpusStorage('collections'), '--port', '0', '--quiet', '--no-follow', '--shutdown-timeout', '1000']);
    const port = await run.port;
    // 64 KiB/s: the answer would take two minutes.
    const reader = slowGet(port, BIG, 64);
    await reader.receiving;
    run.child.kill('SIGTERM');
    // The response is still being sent when the server says it waits; the cut comes after.
    await run.waitForStderr(/SIGTERM: no new connections; finishing 1 request\(s\) in flight/);
    const result = await reader.done;
    expect(result.status).toBe(200);
    expect(result.complete).toBe(false);
    expect((await run.exit).code).toBe(0);
    expect(run.stderr()).toContain('shutdown timeout of 1000 ms (--shutdown-timeout) passed: cut 1 response(s) still being sent');
  });
});
