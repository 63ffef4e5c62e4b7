import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';
import { interruptedCli } from '../../helpers/serving/interrupted-cli.js';

/**
 * `sql` interrupted (Ctrl-C, a `timeout`, a terminal closed by its job control) leaves nothing
 * under TMPDIR: DuckDB's private storage-inspector-sql-* directory holds the database file with
 * every table built (hundreds of MB at 10M objects). It is removed on the process's 'exit' event,
 * which a signal's default action skips. The CLI is a real process, frozen (SIGSTOP) the moment
 * that directory appears, so the signal arrives while the tables are built.
 */

let work: string;
let source: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-sql-signal-'));
  source = join(work, 'storage');
  generateStorage({ directory: source, entities: 5_000, channelCount: 1, seed: 5, fileMaximumSize: 256 * 1024 });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('an interrupted sql', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s, exit %i: its private directory removed, a message on stderr', async (signal, code) => {
    const temporary = join(work, `${signal}-tmp`);
    mkdirSync(temporary);
    const env = { ...process.env, TMPDIR: temporary };
    const { code: exitCode, stderr } = await interruptedCli({ args: ['sql', source, 'SELECT count(*) FROM "gen.Book"', '--no-cache'], parent: temporary, hiddenPrefix: 'storage-inspector-sql-', signal, env });
    expect(readdirSync(temporary).filter((n) => n.startsWith('storage-inspector-sql-'))).toEqual([]);
    expect(exitCode).toBe(code);
    expect(stderr).toContain(`storage-inspector sql: interrupted (${signal})`);
  });
});
