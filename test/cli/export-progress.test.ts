import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandIo } from '../../src/cli/io.js';
import { LiveLine } from '../../src/cli/output/live-line.js';
import { runCli } from '../../src/cli/run-cli.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';

/**
 * `export --out DIR` on a terminal: a progress line below the step lines, drawn in place (carriage
 * return, erase to the end of the line) with the step under way, the tables written so far and
 * the time since the start, cut to the terminal's width, and cleared at the end. Not a terminal:
 * the step lines alone, without a control character.
 */

const GRAPH = join(CONFORMANCE_DIR, 'storages', 'graph');
const ERASE = '\x1b[K';

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'si-export-progress-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function exportTo(out: string, terminal: { columns: number } | undefined): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const stdout = new Writable({ write: (_chunk, _encoding, done) => done() });
  const io = { stdout, stderr: { write: (t: string) => void (stderr += t), isTTY: terminal !== undefined, columns: terminal?.columns } } as unknown as CommandIo;
  const code = await runCli(['export', GRAPH, '--format', 'parquet', '--out', out, '--no-cache'], io);
  return { code, stderr };
}

/** The texts the progress line was drawn with, in order. */
function drawn(stderr: string): string[] {
  return [...stderr.matchAll(/\r([^\r\n]*?)\x1b\[K/g)].map((m) => m[1]!).filter((t) => t !== '');
}

describe('export on a terminal', () => {
  it('draws the step, the tables written and the time in one line below the others, then clears it', { timeout: 120_000 }, async () => {
    const { code, stderr } = await exportTo(join(base, 'tty'), { columns: 200 });
    expect(code).toBe(0);
    const lines = drawn(stderr);
    expect(lines[0]).toMatch(/^storage-inspector: opening the storage · \d+ s$/);
    expect(lines).toContainEqual(expect.stringMatching(/^storage-inspector: building the tables · \d+ s$/));
    // After each table written, the count of them.
    const written = lines.map((l) => /^storage-inspector: writing (\d+) tables, (\d+) written · \d+ s$/.exec(l)).filter((m) => m !== null);
    const total = Number(written[0]![1]);
    // (The clock draws the line again each second: the same count may come twice in a row.)
    const counts = written.map((m) => Number(m[2])).filter((n, i, all) => i === 0 || all[i - 1] !== n);
    expect(counts).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    // Every step line still there, each written over a cleared line.
    expect(stderr).toContain(`\r${ERASE}storage-inspector: building the tables\n`);
    expect(stderr).toContain(`\r${ERASE}storage-inspector: wrote _objects (`);
    expect(stderr).toMatch(new RegExp(`\\r\\x1b\\[Kstorage-inspector: exported ${total} tables \\(\\d+ rows\\) as parquet to `));
    // Cleared at the end: the terminal shows the last line and nothing under it.
    expect(stderr.endsWith(`\r${ERASE}`)).toBe(true);
  });

  it('cuts the line to the terminal width', { timeout: 120_000 }, async () => {
    const { code, stderr } = await exportTo(join(base, 'narrow'), { columns: 30 });
    expect(code).toBe(0);
    const lines = drawn(stderr);
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(29);
    expect(lines).toContain('storage-inspector: building …');
  });

  it('is not drawn when standard error is not a terminal', { timeout: 120_000 }, async () => {
    const { code, stderr } = await exportTo(join(base, 'pipe'), undefined);
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/[\r\x1b]/);
    expect(stderr).toContain('storage-inspector: building the tables\n');
  });
});

describe('the live line once closed', () => {
  it('stays cleared: text written after the end is written as is, the line not drawn again', () => {
    let out = '';
    const line = new LiveLine({ write: (t: string) => void (out += t), isTTY: true, columns: 80 }, () => 'storage-inspector: writing 3 tables · 1 s');
    line.draw();
    line.print('storage-inspector: wrote _objects (5 rows)\n');
    line.close();
    const closedAt = out.length;
    // A late line (a warning told after the command's end): no progress line left under it.
    line.print('storage-inspector: warning: late\n');
    line.draw();
    line.close();
    expect(out.slice(closedAt)).toBe('storage-inspector: warning: late\n');
    expect(out.slice(0, closedAt)).toBe(`\rstorage-inspector: writing 3 tables · 1 s${ERASE}\r${ERASE}storage-inspector: wrote _objects (5 rows)\n\rstorage-inspector: writing 3 tables · 1 s${ERASE}\r${ERASE}`);
  });
});
