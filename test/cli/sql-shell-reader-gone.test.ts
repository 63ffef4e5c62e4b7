import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { pipedCli } from '../helpers/serving/piped-cli.js';

/**
 * The `sql` shell reading its statements from a pipe and writing to one whose reader goes away
 * (`... | sql STORAGE | head -1`). Its own words (`.help`, `.tables`, messages) went straight to
 * standard output, where no error listener was before the first statement's output was opened:
 * the reader gone, the next of them was an unhandled 'error' event (Node's 'Error: write EPIPE'
 * stack trace, exit 1). A reader gone is a quiet end, as for the statements' answers.
 */

let work: string;
let storage: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-shell-reader-gone-'));
  storage = join(work, 'graph');
  cpSync(join(CONFORMANCE_DIR, 'storages', 'graph'), storage, { recursive: true });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the sql shell whose reader goes away', () => {
  it('ends quietly when the pipe is closed after its first words', { timeout: 60_000 }, async () => {
    const run = pipedCli(['sql', storage, '--no-cache'], 'pipe');
    const child = run.child;
    child.stdin!.write('.help\n');
    const first = await run.first;
    expect(first, run.stderr()).toBeDefined();
    expect(first).toContain('.tables');
    // The reader has gone before the shell says anything more.
    child.stdout!.destroy();
    child.stdin!.end('.help\n.tables\nSELECT 1 AS one;\n.help\n');
    const code = await run.closed;
    expect(run.stderr()).not.toMatch(/EPIPE|Error|\n\s+at /);
    expect(code).toBe(0);
  });
});
