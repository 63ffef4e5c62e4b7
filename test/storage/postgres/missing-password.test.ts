import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneStorageDatabase, dropDatabase, readerUrl } from '../../helpers/real-systems/postgres.js';
import { cliCommand } from '../../helpers/test-run/cli-command.js';

/**
 * A server that asks for a (SCRAM) password while no password source has one: every command
 * that opens the storage ends with exit 1 and says where a password can come from, instead of
 * waiting forever on a half-done authentication.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** Only a bound against a hang: the commands end in well under a second. */
const KILL_AFTER_MS = 20_000;

describe('a PostgreSQL storage without a password source', () => {
  let database: string;
  let home: string;

  beforeAll(async () => {
    database = await cloneStorageDatabase('graph', 'nopassword');
    home = mkdtempSync(join(tmpdir(), 'si-nopass-home-'));
  });
  afterAll(async () => {
    await dropDatabase(database);
    rmSync(home, { recursive: true, force: true });
  });

  /** The environment of a user with no PGPASSWORD, no PGPASSFILE and no ~/.pgpass. */
  function bareEnv(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PG') && !key.startsWith('STORAGE_INSPECTOR_')) env[key] = value;
    return { ...env, HOME: home };
  }

  function run(args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [...cliCommand(), ...args], { cwd: ROOT, env: bareEnv() });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stdout.resume();
      const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stderr });
      });
    });
  }

  const spec = (): string[] => [readerUrl(database), '--table', 'ms_graph'];
  const out = (): string => join(home, `rescued-${Math.random().toString(36).slice(2)}`);

  it.each([
    ['check', (): string[] => ['check', ...spec()]],
    ['analyze', (): string[] => ['analyze', ...spec()]],
    ['export', (): string[] => ['export', ...spec(), '--type', 'java.lang.String']],
    ['rescue', (): string[] => ['rescue', ...spec(), '--out', out()]],
    ['serve', (): string[] => ['serve', ...spec(), '--port', '0', '--no-follow', '--quiet']],
  ])('%s exits 1 and names the password sources', async (_name, args) => {
    const result = await run(args());
    expect(result.signal, result.stderr).toBeNull();
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/asks for a password/);
    expect(result.stderr).toMatch(/PGPASSWORD/);
    expect(result.stderr).toMatch(/PGPASSFILE/);
    expect(result.stderr).toMatch(/~\/\.pgpass/);
    expect(result.stderr).toMatch(/--pg-password-file/);
    expect(result.stderr).not.toMatch(/client password must be a string/);
  }, KILL_AFTER_MS + 10_000);
});
