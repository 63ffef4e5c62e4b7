import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../../src/cli/commands/serve.js';
import { CONFORMANCE_DIR, CORPORA } from '../../helpers/corpora/conformance.js';
import { cliCommand } from '../../helpers/test-run/cli-command.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function runCli(args: string[], untilStderr?: RegExp): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliCommand(), ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (untilStderr !== undefined && untilStderr.test(stderr)) child.kill('SIGTERM');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('serve command line', () => {
  it('parses options with the Java service defaults', () => {
    expect(parseServeArgs(['dir'])).toEqual({ directory: 'dir', storages: [{ name: undefined, directory: 'dir' }], port: 4567, host: '127.0.0.1', dialect: 'spark', quiet: false, logFormat: 'json', follow: true, pollIntervalMs: 500 });
    expect(parseServeArgs(['dir', '--no-follow', '--poll-interval', '100'])).toMatchObject({ follow: false, pollIntervalMs: 100 });
    expect(parseServeArgs(['dir', '--port', '0', '--host', '::1', '--instance', 'store', '--quiet'])).toMatchObject({ port: 0, host: '::1', instance: 'store', quiet: true });
    expect(() => parseServeArgs([])).toThrow('expected a storage directory, or NAME=DIR');
    expect(() => parseServeArgs(['dir', '--port', 'x'])).toThrow('invalid --port');
    expect(() => parseServeArgs(['dir', '--bogus'])).toThrow(/bogus/);
  });

  it('refuses a directory that is not a storage, naming what is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'si-empty-'));
    try {
      mkdirSync(join(dir, 'other'));
      const result = await runCli(['serve', dir, '--port', '0']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('is not a MicroStream or EclipseStore storage: missing the type dictionary PersistenceTypeDictionary.ptd and a channel directory channel_0');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits with 2 on usage errors', async () => {
    const result = await runCli(['serve']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('expected a storage directory, or NAME=DIR');
  });

  it('serves a storage and stops on SIGTERM', async () => {
    const result = await runCli(['serve', join(CONFORMANCE_DIR, 'storages', 'graph'), '--port', '0', '--quiet'], /serving .* at http:\/\/127\.0\.0\.1:\d+\/microstream\/root/);
    expect(result.stderr).toMatch(/indexed 1263 entities in 21 data files of 2 channel\(s\)/);
    expect(result.stderr).toMatch(/web viewer at http:\/\/127\.0\.0\.1:\d+\/viewer\//);
    expect(result.code).toBe(0);
  });

  it('serves an EclipseStore storage under store-data unless --instance says otherwise', async () => {
    const storage = join(CORPORA.find((c) => c.generation.startsWith('EclipseStore'))!.dir, 'storages', 'noroot');
    const result = await runCli(['serve', storage, '--port', '0', '--quiet'], /serving .* \(EclipseStore\) at http:\/\/127\.0\.0\.1:\d+\/store-data\/root/);
    expect(result.code).toBe(0);
    const renamed = await runCli(['serve', storage, '--port', '0', '--quiet', '--instance', 'shop'], /serving .* \(EclipseStore\) at http:\/\/127\.0\.0\.1:\d+\/shop\/root/);
    expect(renamed.code).toBe(0);
  });
});
