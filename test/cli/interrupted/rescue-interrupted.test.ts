import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run-cli.js';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';
import { interruptedCli } from '../../helpers/serving/interrupted-cli.js';
import { runCliInProcess } from '../../helpers/serving/cli-in-process.js';

/**
 * An interrupted `rescue` leaves nothing at --out: the storage is written into a hidden directory
 * beside it and renamed into place only when complete; SIGINT and SIGTERM remove the hidden
 * directory. The CLI is a real process, stopped (SIGSTOP) the moment its hidden directory appears
 * so that the signal surely arrives in the middle of the copy.
 */

let work: string;
let source: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-rescue-signal-'));
  source = join(work, 'storage');
  // Many small files: the copy reads file after file, so a signal is handled between two of them.
  generateStorage({ directory: source, entities: 40_000, channelCount: 2, seed: 3, fileMaximumSize: 32 * 1024 });
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

async function interruptedRescue(name: string, signal: NodeJS.Signals): Promise<{ code: number | null; stderr: string; parent: string; out: string }> {
  const parent = join(work, name);
  const out = join(parent, 'rescued');
  rmSync(parent, { recursive: true, force: true });
  mkdirSync(parent);
  const { code, stderr } = await interruptedCli({ args: ['rescue', source, '--out', out], parent, hiddenPrefix: '.rescued.rescue-', signal });
  return { code, stderr, parent, out };
}

describe('an interrupted rescue', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s: nothing at --out, the hidden directory removed, a message on stderr', async (signal, code) => {
    const r = await interruptedRescue(signal, signal);
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(`storage-inspector rescue: interrupted (${signal}); nothing was written to ${r.out}`);
    expect(existsSync(r.out)).toBe(false);
    expect(readdirSync(r.parent)).toEqual([]);
  });

  it('SIGKILL: nothing at --out either (only the hidden directory, which no one takes for a storage)', async () => {
    const r = await interruptedRescue('kill', 'SIGKILL');
    expect(r.code).toBe(null);
    expect(existsSync(r.out)).toBe(false);
    expect(readdirSync(r.parent).every((n) => n.startsWith('.rescued.rescue-'))).toBe(true);
  });

  it('completes into --out when not interrupted, leaving nothing beside it', async () => {
    const parent = join(work, 'whole');
    const out = join(parent, 'rescued');
    const code = await runCli(['rescue', source, '--out', out], { stdout: { write: () => true }, stderr: { write: () => true } });
    expect(code).toBe(0);
    expect(readdirSync(parent)).toEqual(['rescued']);
    expect(readdirSync(out).sort()).toEqual(['PersistenceTypeDictionary.ptd', 'channel_0', 'channel_1']);
  });
});

describe('rescue --out', () => {
  it('onto an existing file is a usage error (exit 2) and leaves the file alone', async () => {
    const file = join(work, 'a-file');
    writeFileSync(file, 'x');
    const { code, stderr } = await runCliInProcess(['rescue', source, '--out', file]);
    expect(code).toBe(2);
    expect(stderr).toBe(`storage-inspector rescue: --out ${file} exists and is not a directory: rescue writes only to a new or empty directory\n`);
    expect(readdirSync(work).filter((n) => n.startsWith('.a-file'))).toEqual([]);
  });

  it('below an existing file is a usage error (exit 2)', async () => {
    const file = join(work, 'b-file');
    writeFileSync(file, 'x');
    const code = await runCli(['rescue', source, '--out', join(file, 'x')], { stdout: { write: () => true }, stderr: { write: () => true } });
    expect(code).toBe(2);
  });
});
