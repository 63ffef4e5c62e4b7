import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/serving/cli-in-process.js';
import { REPO_ROOT } from '../viewer/browser.js';

/**
 * Every example of the README and docs/ that runs against the bundled demo storage, run, and its
 * output compared with what the page shows: `$ storage-inspector … demo/graph …` (optionally
 * `| head -N`) in-process, `$ curl [-i] http://127.0.0.1:4567/…` against the built CLI serving
 * demo/graph. In the shown output a line `...` stands for any lines, and `...` or `…` inside a
 * line for any text; what changes from run to run (the statistics' creation time, the graph's
 * build time) is left out of the comparison.
 */

interface Example {
  readonly file: string;
  readonly command: string;
  readonly output: string[];
}

function examples(): Example[] {
  const files = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const found: Example[] = [];
  for (const file of files) {
    let inBlock = false;
    let current: { command: string; output: string[] } | undefined;
    const close = (): void => {
      if (current !== undefined) {
        while (current.output.at(-1) === '') current.output.pop();
        found.push({ file, ...current });
      }
      current = undefined;
    };
    for (const line of readFileSync(join(REPO_ROOT, file), 'utf8').split('\n')) {
      if (line.startsWith('```')) {
        close();
        inBlock = !inBlock;
      } else if (inBlock && line.startsWith('$ ')) {
        close();
        current = { command: line.slice(2), output: [] };
      } else if (inBlock && current !== undefined) current.output.push(line);
    }
  }
  return found;
}

const ALL = examples();
const CLI_EXAMPLES = ALL.filter((e) => /^storage-inspector .*\bdemo\/graph\b/.test(e.command));
const CURL_EXAMPLES = ALL.filter((e) => /^curl (-i )?'?http:\/\/127\.0\.0\.1:4567\//.test(e.command));

/** What differs between runs, the same in shown and actual output. */
function normalized(line: string): string {
  return line.replace(/"creationTime":"[^"]*"/g, '"creationTime":"…"').replace(/"buildMs":\d+/g, '"buildMs":…');
}

/** Whether `actual` lines are what `shown` shows (with its `...` elisions). */
function matches(shown: readonly string[], actual: readonly string[]): boolean {
  const line = (pattern: string): RegExp =>
    new RegExp(`^${normalized(pattern).split(/\.\.\.|…/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*')}$`);
  const walk = (s: number, a: number): boolean => {
    if (s === shown.length) return a === actual.length;
    if (shown[s]!.trim() === '...' || shown[s]!.trim() === '…') {
      for (let next = a; next <= actual.length; next++) if (walk(s + 1, next)) return true;
      return false;
    }
    return a < actual.length && line(shown[s]!).test(normalized(actual[a]!)) && walk(s + 1, a + 1);
  };
  return walk(0, 0);
}

async function runExample(command: string): Promise<string[]> {
  const head = /\s*\|\s*head -(\d+)$/.exec(command);
  const args = command.replace(/\s*\|.*$/, '').split(/\s+/).slice(1);
  const { code, stdout } = await runCliInProcess(args);
  expect(code).toBe(0);
  // CSV rows end with CRLF (RFC 4180); the page shows lines.
  const lines = stdout.replace(/\r?\n$/, '').split(/\r?\n/);
  return head === null ? lines : lines.slice(0, Number(head[1]));
}

let server: ChildProcess | undefined;
let port = 0;

function curl(command: string): Promise<string[]> {
  const withHead = command.startsWith('curl -i ');
  const url = new URL(command.replace(/^curl (-i )?/, '').replace(/^'|'$/g, ''));
  return new Promise((resolve, reject) => {
    // The Host the examples were taken with (the route list names it).
    request({ host: '127.0.0.1', port, path: url.pathname + url.search, headers: { host: '127.0.0.1:4567' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        const head = withHead ? [`HTTP/1.1 ${res.statusCode} ${res.statusMessage}`, ...Object.entries(res.headers).map(([k, v]) => `${k}: ${String(v)}`), ''] : [];
        resolve([...head, ...body.replace(/\n$/, '').split('\n')]);
      });
    })
      .on('error', reject)
      .end();
  });
}

beforeAll(async () => {
  // The built CLI, as a reader of the docs would run it, in the directory the examples name paths from.
  server = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'serve', 'demo/graph', '--port', '0', '--no-follow', '--quiet'], { cwd: REPO_ROOT });
  let stderr = '';
  port = await new Promise<number>((resolve, reject) => {
    server!.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const found = /at http:\/\/127\.0\.0\.1:(\d+)\//.exec(stderr);
      if (found !== null) resolve(Number(found[1]));
    });
    server!.on('close', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  // The graph index (for /api/v1) is built once the server listens.
  for (let i = 0; i < 200; i++) {
    const state = await curl('curl http://127.0.0.1:4567/api/v1/storage');
    if (state.join('').includes('"state":"ready"')) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});
afterAll(() => void server?.kill('SIGKILL'));

describe('documentation examples', () => {
  it('finds the examples', () => {
    expect(CLI_EXAMPLES.length).toBeGreaterThanOrEqual(2);
    expect(CURL_EXAMPLES.length).toBeGreaterThanOrEqual(15);
  });

  it.each(CLI_EXAMPLES.map((e) => [`${e.file}: ${e.command}`, e] as const))('%s', async (_name, example) => {
    const actual = await runExample(example.command);
    expect(matches(example.output, actual), `${example.file} shows\n${example.output.join('\n')}\nbut the command prints\n${actual.join('\n')}`).toBe(true);
  });

  it.each(CURL_EXAMPLES.map((e) => [`${e.file}: ${e.command}`, e] as const))('%s', async (_name, example) => {
    const actual = await curl(example.command);
    const shown = example.output;
    // With -i: the status line, the headers shown (others may come too), then the body.
    if (example.command.startsWith('curl -i ')) {
      const blank = shown.indexOf('');
      const actualBlank = actual.indexOf('');
      expect(actual[0]).toBe(shown[0]);
      for (const header of shown.slice(1, blank)) expect(actual.slice(1, actualBlank)).toContain(header);
      expect(matches(shown.slice(blank + 1), actual.slice(actualBlank + 1)), `${example.file}: ${example.command}\n${actual.join('\n')}`).toBe(true);
      return;
    }
    expect(matches(shown, actual), `${example.file} shows\n${shown.join('\n')}\nbut the server answers\n${actual.join('\n')}`).toBe(true);
  });
});
