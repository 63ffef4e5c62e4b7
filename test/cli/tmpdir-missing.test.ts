import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { runCliInProcess as cli } from '../helpers/serving/cli-in-process.js';
import { textOf } from '../helpers/serving/mcp-client.js';
import { stdioClient } from '../mcp/stdio-client.js';
import { spawnCli } from '../security/cli.js';

/**
 * `sql` and `export` keep DuckDB's database under TMPDIR. A TMPDIR naming a directory that does
 * not exist (a typo, a mount not there yet) is the user's setting to fix: a usage error naming
 * TMPDIR and the directory (exit 2), not a raw `ENOENT: no such file or directory, lstat '…'`.
 * `serve` and `mcp` keep serving: a statement is answered with the same words (HTTP 503, an MCP
 * tool error), and once the directory is there the next one runs. A TMPDIR inside the storage
 * directory (DuckDB would write into the storage) is told the same ways; other usage errors are
 * not "SQL Unavailable".
 */

let work: string;
let source: string;
const tmpdirBefore = process.env.TMPDIR;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-tmpdir-missing-'));
  source = join(work, 'storage');
  generateStorage({ directory: source, entities: 500, channelCount: 1, seed: 5 });
});
afterEach(() => {
  if (tmpdirBefore === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = tmpdirBefore;
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a TMPDIR that is no directory', () => {
  it('sql: a usage error naming TMPDIR and the directory', async () => {
    const missing = join(work, 'no-such-directory');
    process.env.TMPDIR = missing;
    const run = await cli(['sql', source, 'SELECT count(*) FROM _objects']);
    // (An indexing line may come before it when the machine is busy.)
    expect(run.stderr).toContain(`storage-inspector sql: TMPDIR names ${missing}, which does not exist; set TMPDIR to an existing directory (the SQL tables are built there)\n`);
    expect(run.stderr).not.toContain('ENOENT');
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
  });

  it('export: the same before any work, nothing written', async () => {
    const missing = join(work, 'not-there');
    const out = join(work, 'tables');
    process.env.TMPDIR = missing;
    const run = await cli(['export', source, '--format', 'parquet', '--out', out, '--no-cache']);
    expect(run.stderr).toContain(`storage-inspector export: TMPDIR names ${missing}, which does not exist; set TMPDIR to an existing directory (the SQL tables are built there)\n`);
    expect(run.stderr).not.toContain('building the tables');
    expect(run.stderr).not.toContain('ENOENT');
    expect(run.code).toBe(2);
    expect(existsSync(out)).toBe(false);
  });

  it('a file, not a directory: said so', async () => {
    const file = join(work, 'a-file');
    writeFileSync(file, 'x');
    process.env.TMPDIR = file;
    const run = await cli(['sql', source, 'SELECT 1']);
    expect(run.stderr).toContain(`storage-inspector sql: TMPDIR names ${file}, which is not a directory; set TMPDIR to an existing directory (the SQL tables are built there)\n`);
    expect(run.code).toBe(2);
  });
});

describe('serve and mcp with a TMPDIR that is no directory', () => {
  it('serve: a statement is answered 503 naming TMPDIR and the directory; the server keeps serving, and runs SQL once the directory is there', async () => {
    const missing = join(work, 'serve-tmp');
    const serve = spawnCli(['serve', source, '--port', '0', '--no-follow', '--no-cache'], { TMPDIR: missing }, { built: true });
    try {
      const base = `http://127.0.0.1:${await serve.port}`;
      const sql = (statement: string) => fetch(`${base}/api/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: statement }) });
      const refused = await sql('SELECT count(*) AS n FROM _objects');
      expect(refused.status).toBe(503);
      expect(refused.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(await refused.json()).toEqual({
        type: 'about:blank',
        title: 'SQL Unavailable',
        status: 503,
        detail: `TMPDIR names ${missing}, which does not exist; set TMPDIR to an existing directory (the SQL tables are built there)`,
        instance: '/api/v1/sql',
      });
      expect((await fetch(`${base}/api/v1/sql/schema`)).status).toBe(503);
      // The rest of the server answers as before.
      expect((await fetch(`${base}/api/v1/storages`)).status).toBe(200);
      mkdirSync(missing);
      const answered = await sql('SELECT count(*) AS n FROM _objects');
      expect(answered.status).toBe(200);
      expect(((await answered.json()) as { rows: unknown[][] }).rows).toEqual([['500']]);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exit;
    }
    // Told to the operator in the log (stdout, JSON lines) once per refused request, as a warning
    // without a stack.
    const told = serve
      .stdout()
      .split('\n')
      .filter((line) => line.includes('SQL cannot run'))
      .map((line) => JSON.parse(line) as { level: number; url: string; msg: string; err?: unknown });
    expect(told.map(({ level, url, msg, err }) => ({ level, url, msg, err }))).toEqual(
      ['/api/v1/sql', '/api/v1/sql/schema'].map((url) => ({
        level: 40,
        url,
        msg: `SQL cannot run: TMPDIR names ${missing}, which does not exist; set TMPDIR to an existing directory (the SQL tables are built there)`,
        err: undefined,
      })),
    );
  });

  it('mcp: sql_query answers a tool error naming TMPDIR and the directory; the next call runs once the directory is there', async () => {
    const missing = join(work, 'mcp-tmp');
    const { client } = await stdioClient([source, '--no-cache'], { TMPDIR: missing });
    try {
      const refused = await client.callTool({ name: 'sql_query', arguments: { sql: 'SELECT count(*) AS n FROM _objects' } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused as never)).toBe(`Error: TMPDIR names ${missing}, which does not exist; set TMPDIR to an existing directory (the SQL tables are built there)`);
      mkdirSync(missing);
      const answered = await client.callTool({ name: 'sql_query', arguments: { sql: 'SELECT count(*) AS n FROM _objects' } });
      expect(answered.isError).toBeUndefined();
      expect(textOf(answered as never)).toContain('n BIGINT\n500\n1 row(s)');
    } finally {
      await client.close();
    }
  });
});

describe('a TMPDIR inside the storage directory', () => {
  it('sql: a usage error naming both directories (exit 2), nothing made there', async () => {
    const inside = join(source, 'tmp-inside');
    mkdirSync(inside, { recursive: true });
    try {
      process.env.TMPDIR = inside;
      const run = await cli(['sql', source, 'SELECT count(*) FROM _objects']);
      expect(run.stderr).toContain(`storage-inspector sql: the temporary directory ${realpathSync(inside)} is inside the storage directory ${realpathSync(source)}; set TMPDIR elsewhere\n`);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(readdirSync(inside)).toEqual([]);
    } finally {
      rmSync(inside, { recursive: true, force: true });
    }
  });

  it('serve: a statement is answered 503 naming both directories, logged as a warning', async () => {
    const inside = join(source, 'serve-inside');
    mkdirSync(inside, { recursive: true });
    const serve = spawnCli(['serve', source, '--port', '0', '--no-follow', '--no-cache'], { TMPDIR: inside }, { built: true });
    try {
      const base = `http://127.0.0.1:${await serve.port}`;
      const refused = await fetch(`${base}/api/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: 'SELECT 1' }) });
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { title: string; detail: string })).toMatchObject({
        title: 'SQL Unavailable',
        detail: `the temporary directory ${realpathSync(inside)} is inside the storage directory ${realpathSync(source)}; set TMPDIR elsewhere`,
      });
      expect(readdirSync(inside)).toEqual([]);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exit;
      rmSync(inside, { recursive: true, force: true });
    }
    const lines = serve.stdout().split('\n').filter((line) => line.includes('inside the storage directory')).map((line) => JSON.parse(line) as { level: number; err?: unknown });
    expect(lines.map(({ level, err }) => ({ level, err }))).toEqual([{ level: 40, err: undefined }]);
  });
});
