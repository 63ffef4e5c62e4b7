import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
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
  /**
   * Reads the rest as fast as it comes, once the state the test is about has been reached: what
   * arrives, and whether it is whole, is decided by the server, not by how fast the rest is read.
   */
  hurry(): void;
}

/** A GET whose body is read at about `kibPerSecond` until `hurry`. */
function slowGet(port: number, path: string, kibPerSecond: number): Reading {
  let hurried = false;
  let resumeNow: (() => void) | undefined;
  const hurry = (): void => {
    hurried = true;
    resumeNow?.();
  };
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
        if (hurried) return;
        res.pause();
        const timer = setTimeout(() => res.resume(), (d.length / 1024 / kibPerSecond) * 1000);
        resumeNow = () => {
          clearTimeout(timer);
          res.resume();
        };
      });
      res.on('end', finish);
      res.on('aborted', finish);
      res.on('error', finish);
    });
    req.on('error', finish);
    req.end();
  });
  return { receiving, done, hurry };
}

describe('serve: SIGTERM with answers being sent', () => {
  it('sends every response already started completely, then exits 0', async () => {
    const run = spawnCli(['serve', corpusStorage('collections'), '--port', '0', '--quiet', '--no-follow']);
    const port = await run.port;
    // Three 7.1 MiB answers read at ~1 MiB/s (each would take about 7 s) until the server has them in flight.
    const readers = Array.from({ length: 3 }, () => slowGet(port, BIG, 1024));
    await Promise.all(readers.map((r) => r.receiving));
    run.child.kill('SIGTERM');
    // Once the server has taken the three as in flight, how fast the rest is read changes nothing
    // it is asked to do (send each completely); read slowly to the end, the three took 7 s more.
    await run.waitForStderr(/finishing 3 request\(s\) in flight/);
    for (const reader of readers) reader.hurry();
    const results = await Promise.all(readers.map((r) => r.done));
    for (const result of results) expect(result).toEqual({ status: 200, bytes: BIG_BYTES, complete: true });
    expect((await run.exit).code).toBe(0);
    expect(run.stderr()).toContain('SIGTERM: no new connections; finishing 3 request(s) in flight (answers not yet handed to the system completely;');
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
    // Once the server has ended (and so cut), the bytes the system still holds are read at once:
    // at 64 KiB/s they took about 10 s more, and they cannot make the answer whole.
    expect((await run.exit).code).toBe(0);
    reader.hurry();
    const result = await reader.done;
    expect(result.status).toBe(200);
    expect(result.complete).toBe(false);
    expect(run.stderr()).toContain('shutdown timeout of 1000 ms (--shutdown-timeout) passed: cut 1 response(s) still being sent');
  });

  it('counts the answers not yet handed to the system: an export its client stopped taking, not an answer taken', async () => {
    const root = mkdtempSync(join(tmpdir(), 'si-shutdown-'));
    try {
      const dir = join(root, 'storage');
      // Its strings' export (type 30) is about 11 MB: more than the socket buffers take.
      generateStorage({ directory: dir, entities: 200_000, channelCount: 2, seed: 36 });
      const run = spawnCli(['serve', dir, '--port', '0', '--quiet', '--no-follow', '--shutdown-timeout', '1000']);
      const port = await run.port;
      await run.waitForStderr(/graph index ready/);
      // A whole answer taken, its keep-alive connection left open.
      const agent = new Agent({ keepAlive: true });
      const taken = await new Promise<number>((resolve, reject) => {
        request({ host: '127.0.0.1', port, path: '/microstream/root', agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        })
          .on('error', reject)
          .end();
      });
      expect(taken).toBe(200);
      // An export whose client takes its first bytes and then nothing more.
      const socket = connect(port, '127.0.0.1', () => socket.write(`GET /api/v1/types/30/instances.ndjson HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
      socket.on('error', () => undefined);
      const head = await new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString('latin1'))));
      socket.pause();
      expect(head).toMatch(/^HTTP\/1\.1 200 /);
      run.child.kill('SIGTERM');
      await run.waitForStderr(/finishing \d+ request\(s\) in flight/);
      expect(run.stderr()).toContain('SIGTERM: no new connections; finishing 1 request(s) in flight (answers not yet handed to the system completely;');
      expect((await run.exit).code).toBe(0);
      expect(run.stderr()).toContain('shutdown timeout of 1000 ms (--shutdown-timeout) passed: cut 1 response(s) still being sent');
      socket.destroy();
      agent.destroy();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
