import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMcpArgs } from '../../src/cli/commands/mcp.js';
import { parseServeArgs } from '../../src/cli/commands/serve.js';
import { parseSqlArgs } from '../../src/cli/commands/sql.js';
import { SqlEngine } from '../../src/sql/sql-engine.js';
import { runCliInProcess } from '../helpers/serving/cli-in-process.js';
import { registeredStorage, type RegisteredStorage } from '../helpers/serving/registered-storage.js';
import { REPO_ROOT } from '../viewer/browser.js';

/**
 * Every `storage-inspector …` command and every SQL query the README and docs/ show, run — not
 * only the `$ … demo/graph` examples whose output doc-examples.test.ts compares. Those slipped
 * past it: commands in code blocks without `$ `, commands in the text, commands on storages
 * named for the story (`./storage`, `shop`), and queries outside docs/sql.md's "Ten questions".
 * A command runs on a copy of the demo storage in place of the storage it names, writing its
 * `--out` into a temporary directory; `serve`, `mcp`, the interactive shell and storages kept in
 * PostgreSQL are parsed (their options checked) but not started. Synopsis lines (`<storage-dir>`,
 * `[--json]`) are left out. A query runs, or is refused or interrupted as the text around it
 * says, but is never invalid (a Binder or Parser Error is a wrong doc).
 */

const FILES = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

interface Shown {
  readonly file: string;
  readonly text: string;
}

/** Code blocks of a page, and the text outside them. */
function parts(markdown: string): { blocks: string[][]; prose: string } {
  const blocks: string[][] = [];
  let prose = '';
  let block: string[] | undefined;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) {
      if (block === undefined) block = [line];
      else {
        blocks.push(block);
        block = undefined;
      }
    } else if (block !== undefined) block.push(line);
    else prose += `${line}\n`;
  }
  return { blocks, prose };
}

function shownCommands(): Shown[] {
  const found: Shown[] = [];
  for (const file of FILES) {
    const { blocks, prose } = parts(readFileSync(join(REPO_ROOT, file), 'utf8'));
    for (const [fence, ...lines] of blocks) {
      // A block with `$ ` prompts shows commands and their output: only the prompted lines are commands.
      const prompted = lines.some((l) => l.startsWith('$ '));
      // A line ending with \ goes on in the next one.
      const joined = lines.join('\n').replace(/\\\n\s*/g, ' ').split('\n');
      for (const line of joined) {
        if (prompted && !line.startsWith('$ ')) continue;
        const text = line.replace(/^\$ /, '').replace(/^npx --no-install /, '').trim();
        if (text.startsWith('storage-inspector ') && fence !== '```sql') found.push({ file, text });
      }
    }
    // In the text, a command with something to act on; `serve --quiet` or a bare `generate` is a mention.
    for (const m of prose.matchAll(/`(storage-inspector [^`]+)`/g)) {
      const [, command, ...args] = words(m[1]!);
      if (command !== undefined && /^[a-z]+$/.test(command) && args.some((a, i) => !a.startsWith('-') && (i === 0 || !args[i - 1]!.startsWith('--')))) found.push({ file, text: m[1]! });
      else if (command === 'generate' && args.includes('--out')) found.push({ file, text: m[1]! });
    }
  }
  return found.filter((c) => !/[<[…]|\.\.\./.test(withoutComment(c.text).replace(/\s*\|\s*head -\d+$/, '')));
}

function withoutComment(text: string): string {
  return text.replace(/\s+#\s.*$/, '').trim();
}

/** A command line's words, as a POSIX shell splits them (single and double quotes). */
function words(text: string): string[] {
  const out: string[] = [];
  for (const m of withoutComment(text).replace(/\s*\|\s*head -\d+$/, '').matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) out.push(m[1] ?? m[2]?.replace(/\\(.)/g, '$1') ?? m[3]!);
  return out;
}

function shownQueries(): Shown[] {
  const found: Shown[] = [];
  for (const file of FILES) {
    const { blocks, prose } = parts(readFileSync(join(REPO_ROOT, file), 'utf8'));
    // Blocks for this engine; a block for another system (PostgreSQL's CREATE ROLE, Trino) is not ours to run.
    for (const [fence, ...lines] of blocks) if (fence === '```sql' && /^(SELECT|WITH)\b/i.test(lines.join('\n').trim())) found.push({ file, text: lines.join('\n').trim() });
    for (const m of prose.matchAll(/`((?:SELECT|WITH) [^`]+)`/g)) if (!/\.\.\.|…/.test(m[1]!)) found.push({ file, text: m[1]! });
  }
  return found;
}

const COMMANDS = shownCommands();
const QUERIES = shownQueries();

let work: string;
let demoCopies = 0;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'doc-commands-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function demoCopy(): string {
  const copy = join(work, `storage-${++demoCopies}`);
  cpSync(join(REPO_ROOT, 'demo', 'graph'), copy, { recursive: true });
  return copy;
}

const cli = runCliInProcess;

describe('every command the docs show', () => {
  it('finds them, the README\'s and the story ones included', () => {
    const texts = COMMANDS.map((c) => withoutComment(c.text));
    expect(texts).toContain('storage-inspector export ./storage --format parquet --out ./tables');
    expect(texts.some((t) => t.startsWith('storage-inspector generate --family eclipsestore'))).toBe(true);
    expect(COMMANDS.length).toBeGreaterThanOrEqual(30);
  });

  it.each(COMMANDS.map((c) => [`${c.file}: ${c.text}`, c] as const))('%s', { timeout: 60_000 }, async (_name, shown) => {
    const [tool, command, ...rest] = words(shown.text);
    expect(tool).toBe('storage-inspector');
    const args = [...rest];
    // Where the docs write, the test writes into its own directory.
    for (const flag of ['--out']) {
      const at = args.indexOf(flag);
      if (at >= 0) args[at + 1] = join(work, `out-${demoCopies}-${at}-${args[at + 1]!.replace(/[^A-Za-z0-9]/g, '_')}`);
    }
    if (command === 'serve') return void expect(parseServeArgs(args)).not.toBe('help');
    if (command === 'mcp') return void expect(parseMcpArgs(args)).not.toBe('help');
    const positional = args.findIndex((a) => !a.startsWith('-'));
    const storage = positional < 0 || command === 'generate' ? undefined : args[positional]!;
    if (command === 'sql' && args.filter((a) => !a.startsWith('-')).length < 2) return void expect(await parseSqlArgs(args)).not.toBe('help');
    if (storage?.startsWith('postgres')) return void expect(command).toMatch(/^(check|rescue|analyze|export|sql)$/);
    if (storage !== undefined && storage !== 'demo/graph') args[positional] = demoCopy();
    // `diff A B` compares two storages: the second one named for the story is a demo copy too.
    const second = command === 'diff' ? args.findIndex((a, i) => i > positional && !a.startsWith('-') && !args[i - 1]!.startsWith('--')) : -1;
    if (second >= 0 && args[second] !== 'demo/graph') args[second] = demoCopy();
    // The story's commit is not one the demo storage can rebuild: its newest commit stands in.
    const asOf = args.indexOf('--as-of');
    if (asOf >= 0) args[asOf + 1] = '2100-01-01T00:00:00Z';
    const result = await cli(command === undefined ? [] : [command, ...args]);
    // `diff` exits 1 when the storages differ, as diff(1) does.
    expect(result.code, result.stderr).toBe(command === 'diff' && result.code === 1 ? 1 : 0);
  });
});

describe('every query the docs show', () => {
  let registered: RegisteredStorage;
  beforeAll(async () => {
    registered = await registeredStorage(join(REPO_ROOT, 'demo', 'graph'));
    registered.registry.startAll();
  });
  afterAll(async () => registered.close());

  it('finds them beyond the ten questions', () => {
    expect(QUERIES.length).toBeGreaterThan(11);
    expect(QUERIES.some((q) => q.file === 'docs/gigamap.md')).toBe(true);
  });

  it.each(QUERIES.map((q) => [`${q.file}: ${q.text.replace(/\s+/g, ' ').slice(0, 100)}`, q] as const))('%s', { timeout: 30_000 }, async (_name, shown) => {
    // An engine of its own, as a reader running the one `sql` command the page shows has.
    const engine = new SqlEngine({ storage: registered.storage, graph: () => registered.context.graph.ready(), timeoutMs: 2000 });
    try {
      await engine.query(shown.text, { limit: 10 });
    } catch (error) {
      // Refused (the sandbox) or interrupted (the timeout) as the docs say; never invalid.
      expect((error as { kind?: string }).kind, (error as Error).message).toMatch(/^(refused|timeout)$/);
    } finally {
      await engine.close();
    }
  });
});
