import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyPath } from '../../../src/cli/sql/shell-history.js';
import { runShell, ShellNotices } from '../../../src/cli/sql/sql-shell.js';
import { formatTable } from '../../../src/sql/output/result-text.js';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { runCliInProcess } from '../../helpers/serving/cli-in-process.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * Wide results in the terminal (issue 41.3): through a pipe nothing is cut; object ids (numbers)
 * never are; a table wider than the terminal is shown one value a line (`--format line`, `\x` in
 * the shell, chosen by itself when the table cannot fit); the rows left out are counted; the
 * shell's history outlives it; a notice never lands inside a result.
 */

const GRAPH = join(CONFORMANCE_DIR, 'storages', 'graph');

const cli = (args: string[], columns?: number) => runCliInProcess(args, { columns });

let registered: RegisteredStorage;
let engine: SqlEngine;
let books: { _oid: string; isbn: string; title: string; author: string; tags: string }[];
beforeAll(async () => {
  registered = await registeredStorage(GRAPH);
  registered.registry.startAll();
  engine = new SqlEngine({ storage: registered.storage, graph: () => registered.context.graph.ready(), timeoutMs: 0 });
  const answer = await engine.query('SELECT _oid, isbn, title, author, tags FROM Book ORDER BY _oid LIMIT 3', { limit: 3 });
  books = answer.rows.map(([_oid, isbn, title, author, tags]) => ({ _oid: String(_oid), isbn: String(isbn), title: String(title), author: String(author), tags: String(tags) }));
});
afterAll(async () => {
  await engine.close();
  await registered.close();
});

describe('sql in a pipe and in a terminal', () => {
  it('cuts nothing through a pipe (no terminal width): every title, ISBN and id whole', async () => {
    const { code, stdout } = await cli(['sql', GRAPH, 'SELECT * FROM Book ORDER BY _oid LIMIT 3']);
    expect(code).toBe(0);
    expect(stdout.startsWith('┌')).toBe(true);
    expect(stdout).not.toContain('…');
    for (const book of books) for (const value of Object.values(book)) expect(stdout).toContain(value);
  });

  it('in a 160-column terminal shows the 15 columns one value a line, ids whole, and says why', async () => {
    const { code, stdout, stderr } = await cli(['sql', GRAPH, 'SELECT * FROM Book ORDER BY _oid LIMIT 3'], 160);
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toBe('-[ RECORD 1 ]---');
    expect(stdout).toContain(`\n_oid      │ ${books[0]!._oid}\n`);
    expect(stdout).toContain(`\ntitle     │ ${books[2]!.title}\n`);
    expect(stdout).toContain('-[ RECORD 3 ]---');
    expect(stderr).toMatch(/3 rows \([\d.]+ ms; one value a line: the table is wider than the terminal\)/);
  });

  it('keeps a table that fits, cutting texts but never numbers when it must', async () => {
    const fits = await cli(['sql', GRAPH, 'SELECT _oid, title FROM Book ORDER BY _oid LIMIT 3'], 160);
    expect(fits.stdout.startsWith('┌')).toBe(true);
    for (const book of books) expect(fits.stdout).toContain(`│ ${book._oid} │ ${book.title}`);
    const columns = [
      { name: '_oid', type: 'BIGINT' },
      { name: 'title', type: 'VARCHAR' },
      { name: 'author', type: 'BIGINT' },
    ];
    const narrow = formatTable(columns, [['1000000000000000165', 'A title far too long for forty-eight columns of text', '1000000000000000145']], 70);
    expect(narrow.split('\n').every((line) => [...line].length <= 70)).toBe(true);
    expect(narrow).toContain('│ 1000000000000000165 │ A title far too long … │ 1000000000000000145 │');
  });

  it('--format line on demand, and counts the rows left out by --max-rows', async () => {
    const total = Number((await engine.query('SELECT count(*) FROM Book', { limit: 1 })).rows[0]![0]);
    const { stdout, stderr } = await cli(['sql', GRAPH, 'SELECT _oid, title FROM Book ORDER BY _oid', '--format', 'line', '--max-rows', '2']);
    expect(stdout).toBe(`-[ RECORD 1 ]---\n_oid  │ ${books[0]!._oid}\ntitle │ ${books[0]!.title}\n-[ RECORD 2 ]---\n_oid  │ ${books[1]!._oid}\ntitle │ ${books[1]!.title}\n`);
    expect(stderr).toContain(`${total} rows, 2 shown, ${total - 2} left out (--max-rows 2; csv, json and ndjson give all)`);
    const table = await cli(['sql', GRAPH, 'SELECT _oid FROM Book', '--max-rows', '5']);
    expect(table.stderr).toContain(`${total} rows, 5 shown, ${total - 5} left out`);
  });
});

describe('the shell', () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'sql-shell-state-'));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  function terminal(columns = 160) {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = Object.assign(new PassThrough(), { columns });
    let text = '';
    stdout.on('data', (d: Buffer) => (text += d.toString()));
    return { input, stdout, text: () => text };
  }

  async function until(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  it('switches to one value a line with \\x and .mode line, and back with \\x off', async () => {
    const t = terminal();
    const done = runShell(engine, { stdout: t.stdout, stderr: { write: () => true } }, 100, t.input, { historyFile: join(home, 'a', 'history') });
    t.input.write('\\x on\nSELECT _oid FROM Book ORDER BY _oid LIMIT 1;\n');
    await until(() => t.text().includes('1 row ('));
    expect(t.text()).toContain('Expanded display (one value a line) is on.');
    expect(t.text()).toContain(`-[ RECORD 1 ]---\n_oid │ ${books[0]!._oid}\n`);
    t.input.write('\\x off\nSELECT _oid FROM Book ORDER BY _oid LIMIT 1;\n');
    await until(() => t.text().includes(`│ ${books[0]!._oid} │`));
    t.input.write('.mode line\nSELECT title FROM Book ORDER BY _oid LIMIT 1;\n');
    await until(() => t.text().includes(`title │ ${books[0]!.title}\n`));
    t.input.write('.exit\n');
    expect(await done).toBe(0);
  });

  it('keeps its history in the user state directory between runs', async () => {
    expect(historyPath({ XDG_STATE_HOME: '/state' })).toBe(join('/state', 'storage-inspector', 'sql_history'));
    expect(historyPath({ HOME: '/home/u', XDG_STATE_HOME: 'relative' })).toMatch(/[\\/]\.local[\\/]state[\\/]storage-inspector[\\/]sql_history$/);
    const file = join(home, 'state', 'storage-inspector', 'sql_history');
    const first = terminal();
    const one = runShell(engine, { stdout: first.stdout, stderr: { write: () => true } }, 100, first.input, { historyFile: file });
    first.input.write('SELECT 6 * 7 AS answer;\n');
    await until(() => first.text().includes('1 row ('));
    first.input.write('.exit\n');
    expect(await one).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('SELECT 6 * 7 AS answer;\n.exit\n');
    // The next run: arrow up twice brings back the statement of the last run.
    writeFileSync(file, 'SELECT 6 * 7 AS answer;\n');
    const second = terminal();
    const two = runShell(engine, { stdout: second.stdout, stderr: { write: () => true } }, 100, second.input, { historyFile: file });
    second.input.write('\x1b[A\r');
    await until(() => second.text().includes('1 row ('));
    expect(second.text()).toMatch(/│\s+42 │/);
    second.input.write('.exit\n');
    expect(await two).toBe(0);
  });

  it('holds a notice (the graph index is ready) until the running statement\'s output is complete', async () => {
    const events: string[] = [];
    const t = terminal();
    t.stdout.on('data', (d: Buffer) => events.push(`out:${d.toString()}`));
    const notices = new ShellNotices({ write: (text: string) => events.push(`err:${text}`) });
    notices.write('before the shell\n');
    // A statement that runs until the engine's timeout ends it.
    const timed = new SqlEngine({ storage: registered.storage, graph: () => registered.registry.get(undefined)!.graph.ready(), timeoutMs: 1500 });
    const done = runShell(timed, { stdout: t.stdout, stderr: { write: (text: string) => events.push(`err:${text}`) } }, 100, t.input, { notices, historyFile: join(home, 'b', 'history') });
    t.input.write('SELECT count(*) FROM generate_series(1, 1000000000000);\n');
    await until(() => (timed as unknown as { running: number }).running === 1);
    notices.write('storage-inspector: graph index ready\n');
    expect(events.some((e) => e.includes('graph index ready'))).toBe(false);
    await until(() => events.some((e) => e.includes('graph index ready')));
    await timed.close();
    const notice = events.findIndex((e) => e.includes('graph index ready'));
    const error = events.findIndex((e) => e.includes('error: the statement was interrupted after the SQL timeout'));
    expect(error).toBeGreaterThan(-1);
    expect(notice).toBeGreaterThan(error);
    t.input.write('.exit\n');
    expect(await done).toBe(0);
    expect(events[0]).toBe('err:before the shell\n');
  });
});
