import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * What the built CLI loads before it answers (start-up time, measured in bench/startup-bench.ts):
 * a directory storage never needs the PostgreSQL client, the readable log format, prom-client
 * (until /metrics is scraped) or typebox's hundreds of separate modules (dist/vendor/typebox.js).
 * Counted from the modules Node's ES module loader sees (packages' entries and our own files).
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const HOOK = join(ROOT, 'test', 'helpers', 'module-log.mjs');
const DEMO = join(ROOT, 'demo', 'graph');

const NOT_NEEDED = ['/node_modules/pg/', '/node_modules/pg-query-stream/', '/node_modules/pgpass/', '/node_modules/pino-pretty/', '/node_modules/prom-client/', '/node_modules/typebox/'];

function loaded(stderr: string): string[] {
  return [...stderr.matchAll(/^module-loaded (\S+)$/gm)].map((m) => m[1]!);
}

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('start-up loads what the command needs', () => {
  it('check of a directory storage: our own modules, commander, no PostgreSQL client', async () => {
    const child = spawn(process.execPath, ['--import', HOOK, CLI, 'check', DEMO], { cwd: ROOT });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout).toContain('No problems found');
    const modules = loaded(stderr);
    expect(modules.filter((url) => NOT_NEEDED.some((p) => url.includes(p)))).toEqual([]);
    // 100 today (about 80 of them ours): a bound, so that a heavy import shows up here.
    expect(modules.length).toBeLessThan(130);
  });

  it('serve of a directory storage: no PostgreSQL client, pretty printer, prom-client or typebox package until asked', async () => {
    const child = spawn(process.execPath, ['--import', HOOK, CLI, 'serve', DEMO, '--port', '0', '--no-follow', '--quiet'], { cwd: ROOT });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const base = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', () => {
          const url = /at (http:\/\/127\.0\.0\.1:\d+)\/microstream\/root/.exec(stderr)?.[1];
          if (url !== undefined) resolve(url);
        });
        child.on('close', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
      });
      expect((await get(`${base}/microstream/root`)).status).toBe(200);
      const before = loaded(stderr);
      expect(before.filter((url) => NOT_NEEDED.some((p) => url.includes(p)))).toEqual([]);
      expect(before.some((url) => url.endsWith('/dist/vendor/typebox.js'))).toBe(true);
      // /metrics loads prom-client when first scraped, and answers in its format.
      const metrics = await get(`${base}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.body).toContain('storage_inspector_storage_entities 1263');
      expect(loaded(stderr).some((url) => url.includes('/node_modules/prom-client/'))).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
