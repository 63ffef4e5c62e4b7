import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * What the built CLI loads before it answers (start-up time, measured in bench/startup/startup-bench.ts):
 * a directory storage never needs the PostgreSQL client, the readable log format, prom-client
 * (until /metrics is scraped), /api/v1's plugin and typebox (until its first request), the
 * OpenAPI plugins (until /openapi.json or /docs is asked for), fastify's ~85 CommonJS files one by
 * one (dist/vendor/fastify.js), the schema compilers (until a route
 * with a schema is asked), DuckDB (SQL), the MCP SDK and zod (MCP), or CodeMirror (the viewer's,
 * never in Node). Counted from the modules Node loads (ES modules through the loader, CommonJS
 * modules as they are compiled: test/helpers/test-run/module-log.mjs).
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const HOOK = join(ROOT, 'test', 'helpers', 'test-run', 'module-log.mjs');
const DEMO = join(ROOT, 'demo', 'graph');
const VENDOR = join(ROOT, 'dist', 'vendor');

const PACKAGES_NOT_NEEDED = [
  'pg',
  'pg-connection-string',
  'pg-query-stream',
  'pgpass',
  'pino-pretty',
  'prom-client',
  'typebox',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  '@fastify/static',
  'yaml',
  '@fastify/ajv-compiler',
  'ajv',
  '@fastify/fast-json-stringify-compiler',
  '@duckdb/node-api',
  '@duckdb/node-bindings',
  '@modelcontextprotocol/sdk',
  'zod',
  'codemirror',
  '@codemirror/state',
  '@codemirror/view',
  '@codemirror/lang-sql',
];
const NOT_NEEDED = PACKAGES_NOT_NEEDED.map((name) => `/node_modules/${name}/`);
/**
 * Our own modules that only MCP, the OpenAPI document, /api/v1 or SQL use (dist/cli/chunks/ is the
 * bundled command line, scripts/bundle-cli.ts); /api/v1's plugin and its typebox schemas load on its
 * first request (src/http/api-v1/lazy-api-v1.ts), the SQL engine's module with it or with /mcp.
 */
/**
 * The graph index's build and following and the dominator tree's computation (graph-service.ts,
 * dominator-service.ts): `serve` builds the index once its first answer has gone out.
 */
const GRAPH_MACHINERY = /\/dist\/cli\/chunks\/(graph-build|graph-follow|collect-garbage|dominator-computation)-/;
const OURS_NOT_NEEDED = [/\/dist\/cli\/chunks\/(documentation-server|mcp-server|http-transport|api-v1-plugin|schemas|sql-engines?)-/, /\/dist\/vendor\/typebox\.js$/];
/** What opens a storage MicroStream would refuse (with Java's start-up analysis): `serve` and `check` load it for such a storage only. */
const DAMAGED_ONLY = /\/dist\/cli\/chunks\/readable-part-/;

function unneeded(modules: readonly string[]): string[] {
  return modules.filter((url) => NOT_NEEDED.some((p) => url.includes(p)) || OURS_NOT_NEEDED.some((re) => re.test(url)));
}

function loaded(stderr: string): string[] {
  return [...stderr.matchAll(/^module-loaded (\S+)$/gm)].map((m) => m[1]!);
}

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('start-up loads what the command needs', () => {
  it('check of a directory storage: our own modules, commander, no PostgreSQL client, DuckDB, MCP or fastify', async () => {
    const child = spawn(process.execPath, ['--import', HOOK, CLI, 'check', DEMO], { cwd: ROOT });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout).toContain('No problems found');
    const modules = loaded(stderr);
    expect(unneeded(modules)).toEqual([]);
    expect(modules.filter((url) => url.includes('/node_modules/fastify/') || url.endsWith('/dist/vendor/fastify.js'))).toEqual([]);
    // commander comes as one file (scripts/bundle-commander.ts), not seven.
    expect(modules.some((url) => url.endsWith('/dist/vendor/commander.js'))).toBe(true);
    expect(modules.filter((url) => url.includes('/node_modules/commander/'))).toEqual([]);
    // Our own modules come bundled, a few files (scripts/bundle-cli.ts): 13 today.
    expect(modules.filter((url) => url.includes('/dist/')).length).toBeLessThan(40);
    // 31 today, CommonJS modules counted one by one: a bound, so that a heavy import shows up here.
    expect(modules.length).toBeLessThan(80);
  });

  it.each(['fastify', 'commander'])("%s's bundle is compiled with the code cache made at build, and V8 takes it", (name) => {
    // scripts/vendor-with-code-cache.ts: the cache is made by a plain `node`, as the command line runs.
    // `cachedDataRejected` is undefined without a cache, true when V8 refused it.
    const script = `const m = await import(${JSON.stringify(pathToFileURL(join(VENDOR, `${name}.js`)).href)}); process.stdout.write(JSON.stringify({ rejected: m.vendorScript.cachedDataRejected, exports: typeof m.default }))`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({ rejected: false, exports: name === 'fastify' ? 'function' : 'object' });
  });

  it('serve of a directory storage: no PostgreSQL client, pretty printer, prom-client, /api/v1 (typebox), OpenAPI plugins, schema compilers, DuckDB or MCP until asked', async () => {
    const child = spawn(process.execPath, ['--import', HOOK, CLI, 'serve', DEMO, '--port', '0', '--no-follow', '--quiet'], { cwd: ROOT });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const base = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', () => {
          const url = /at (http:\/\/127\.0\.0\.1:\d+)\/microstream\/root/.exec(stderr)?.[1];
          if (url !== undefined) resolve(url);
        });
        child.on('close', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
      });
      expect((await get(`${base}/microstream/root`)).status).toBe(200);
      const before = loaded(stderr);
      expect(unneeded(before)).toEqual([]);
      expect(before.filter((url) => DAMAGED_ONLY.test(url))).toEqual([]);
      // The graph machinery starts once the first answer has gone out, or after a short wait without
      // requests (serve-lifecycle.ts `afterFirstAnswer`): beside two CPU hogs that wait ended once
      // before this test's request arrived. What was loaded when serve said where it listens (written
      // right after the wait is set up, before it can end) is start-up's alone: none of it there.
      const atListen = loaded(stderr.slice(0, stderr.search(/at http:\/\/127\.0\.0\.1:\d+\/microstream\/root/)));
      expect(atListen.length).toBeGreaterThan(0);
      expect(atListen.filter((url) => GRAPH_MACHINERY.test(url))).toEqual([]);
      // (A chunk of its own, which a storage MicroStream would refuse loads: test/cli/serve/serve-damaged.test.ts.)
      expect(readdirSync(join(ROOT, 'dist', 'cli', 'chunks')).filter((file) => DAMAGED_ONLY.test(`/dist/cli/chunks/${file}`) && file.endsWith('.js'))).toHaveLength(1);
      // Then the index is built, with the code that builds it, and its dominator tree computed.
      await new Promise<void>((resolve, reject) => {
        const ready = (): void => {
          if (!stderr.includes('dominator tree ready')) return;
          child.stderr.off('data', ready);
          resolve();
        };
        child.stderr.on('data', ready);
        child.on('close', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
        ready();
      });
      expect(new Set(loaded(stderr).filter((url) => GRAPH_MACHINERY.test(url)).map((url) => GRAPH_MACHINERY.exec(url)![1])).size).toBe(4);
      // /api/v1 (its plugin, typebox and its schemas) is not loaded until its first request.
      expect(before.filter((url) => url.endsWith('/dist/vendor/typebox.js') || /\/dist\/cli\/chunks\/api-v1-plugin-/.test(url))).toEqual([]);
      // fastify and what it requires at load come as one file (scripts/bundle-fastify.ts), not ~85.
      expect(before.some((url) => url.endsWith('/dist/vendor/fastify.js'))).toBe(true);
      expect(before.filter((url) => /\/node_modules\/(fastify|avvio|find-my-way|pino|semver|commander)\//.test(url))).toEqual([]);
      // Our own modules come bundled, a few files (scripts/bundle-cli.ts): 39 today, not 190.
      expect(before.filter((url) => url.includes('/dist/')).length).toBeLessThan(80);
      // Its first request loads it, and it answers.
      const storage = await get(`${base}/api/v1/storage`);
      expect(storage.status).toBe(200);
      expect(JSON.parse(storage.body)).toMatchObject({ entities: 1263 });
      const afterApi = loaded(stderr);
      expect(afterApi.some((url) => url.endsWith('/dist/vendor/typebox.js'))).toBe(true);
      expect(afterApi.some((url) => /\/dist\/cli\/chunks\/api-v1-plugin-/.test(url))).toBe(true);
      // The document loads the OpenAPI plugins when first asked for, and holds every route.
      const document = await get(`${base}/openapi.json`);
      expect(document.status).toBe(200);
      expect(JSON.parse(document.body).paths).toHaveProperty(['/api/v1/objects/{oid}/referrers']);
      expect(loaded(stderr).some((url) => url.includes('/node_modules/@fastify/swagger/'))).toBe(true);
      // /metrics loads prom-client when first scraped, and answers in its format.
      const metrics = await get(`${base}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.body).toContain('storage_inspector_storage_entities 1263');
      expect(loaded(stderr).some((url) => url.includes('/node_modules/prom-client/'))).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
