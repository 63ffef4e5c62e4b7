import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';

/**
 * An interrupted `export --format parquet` leaves nothing at --out, nor beside it: the tables
 * (and the link pass's uncompressed files) are written into a hidden directory beside --out,
 * removed on SIGINT and SIGTERM, and so is DuckDB's private directory under TMPDIR (its database
 * file: the whole tables). The CLI is a real process, stopped (SIGSTOP) the moment its hidden
 * directory appears, so that the signal arrives while the tables are written.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');

let work: string;
let source: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-export-signal-'));
  source = join(work, 'storage');
  generateStorage({ directory: source, entities: 20_000, channelCount: 2, seed: 3, fileMaximumSize: 256 * 1024 });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('an interrupted export --format parquet', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s, exit %i: nothing at --out, the hidden directory removed, a message on stderr', async (signal, code) => {
    const parent = join(work, signal);
    const out = join(parent, 'tables');
    const temporary = join(work, `${signal}-tmp`);
    mkdirSync(parent);
    mkdirSync(temporary);
    const env = { ...process.env, TMPDIR: temporary };
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'export', source, '--format', 'parquet', '--out', out, '--no-cache'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    await new Promise<void>((resolve, reject) => {
      const watcher = watch(parent, () => {
        if (readdirSync(parent).some((n) => n.startsWith('.tables.partial-'))) {
          child.kill('SIGSTOP');
          watcher.close();
          resolve();
        }
      });
      child.once('exit', () => {
        watcher.close();
        reject(new Error(`export ended before it was interrupted: ${stderr}`));
      });
    });
    child.kill(signal);
    child.kill('SIGCONT');
    expect(await exited).toBe(code);
    expect(stderr).toContain(`storage-inspector export: interrupted (${signal}); nothing was written to ${out}`);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(parent)).toEqual([]);
    expect(readdirSync(temporary).filter((n) => n.startsWith('storage-inspector-sql-'))).toEqual([]);
  });
});
