import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';
import { interruptedCli } from '../../helpers/serving/interrupted-cli.js';

/**
 * An interrupted `convert` leaves nothing at --out, nor beside it: the storage is written into a
 * hidden directory beside --out, removed on SIGINT and SIGTERM. The CLI is a real process, stopped
 * (SIGSTOP) the moment its hidden directory appears, so that the signal arrives during the copy.
 */

let work: string;
let source: string;
let damaged: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-convert-signal-'));
  source = join(work, 'storage');
  generateStorage({ directory: source, entities: 40_000, channelCount: 2, seed: 3, fileMaximumSize: 32 * 1024 });
  damaged = join(work, 'damaged');
  cpSync(source, damaged, { recursive: true });
  truncateSync(join(damaged, 'channel_1', 'channel_1_3.dat'), 100);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('an interrupted convert', () => {
  it.each([
    ['SIGTERM', 143, false],
    ['SIGINT', 130, false],
    // Interrupted while the damaged storage is rescued into a hidden directory of its own first.
    ['SIGTERM', 143, true],
  ] as const)('%s, exit %i (--allow-damage on a damaged storage: %s): nothing at --out, the hidden directories removed, a message on stderr', async (signal, code, allowDamage) => {
    const parent = join(work, `${signal}-${allowDamage}`);
    const out = join(parent, 'converted');
    mkdirSync(parent);
    const args = allowDamage ? [damaged, '--allow-damage'] : [source];
    // With --allow-damage the first to appear is the rescue's own hidden directory (`..converted.convert-rescue-….rescue-…`).
    const hiddenPrefix = allowDamage ? '..converted.convert-rescue-' : '.converted.convert-';
    const { code: exitCode, stderr } = await interruptedCli({ args: ['convert', ...args, '--out', out, '--channels', '4'], parent, hiddenPrefix, signal });
    expect(exitCode).toBe(code);
    expect(stderr).toContain(`storage-inspector convert: interrupted (${signal}); nothing was written to ${out}`);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(parent)).toEqual([]);
  });
});
