import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';
import { interruptedCli } from '../../helpers/serving/interrupted-cli.js';

/**
 * An interrupted `export --format parquet` leaves nothing at --out, nor beside it: the tables
 * (and the link pass's uncompressed files) are written into a hidden directory beside --out,
 * removed on SIGINT and SIGTERM, and so is DuckDB's private directory under TMPDIR (its database
 * file: the whole tables). The CLI is a real process, stopped (SIGSTOP) the moment its hidden
 * directory appears, so that the signal arrives while the tables are written.
 */

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
    const { code: exitCode, stderr } = await interruptedCli({ args: ['export', source, '--format', 'parquet', '--out', out, '--no-cache'], parent, hiddenPrefix: '.tables.partial-', signal, env });
    expect(exitCode).toBe(code);
    expect(stderr).toContain(`storage-inspector export: interrupted (${signal}); nothing was written to ${out}`);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(parent)).toEqual([]);
    expect(readdirSync(temporary).filter((n) => n.startsWith('storage-inspector-sql-'))).toEqual([]);
  });
});
