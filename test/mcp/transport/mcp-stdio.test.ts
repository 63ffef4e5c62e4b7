import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { graphsBuilt, registeredStorage } from '../../helpers/serving/registered-storage.js';
import { MAIN, ROOT, stdioClient } from '../stdio-client.js';

/**
 * The MCP server as an assistant starts it: the built command (`node dist/cli/main.js mcp DIR`)
 * spawned by the SDK's own stdio client, on the vendored corpus of every generation. Each tool's
 * structured content is compared with the /api/v1 answer of an application in this process.
 */

const GENERATIONS = [
  { label: 'MicroStream 4.1', dir: join(ROOT, 'test', 'fixtures', 'conformance', 'storages', 'graph') },
  { label: 'MicroStream 8.1', dir: join(ROOT, 'test', 'fixtures', 'conformance-ms8', 'storages', 'graph') },
  { label: 'EclipseStore 4.1', dir: join(ROOT, 'test', 'fixtures', 'conformance-es', 'storages', 'graph') },
];

/** The /api/v1 answers to compare with, from an application in this process. */
async function apiOf(dir: string) {
  const { storage, registry, context, close } = await registeredStorage(dir);
  await graphsBuilt(registry);
  await context.graph.dominators.ready();
  const app = buildApp(storage, { instance: 'microstream', api: registry });
  return {
    get: async (url: string): Promise<Record<string, unknown>> => {
      const response = await app.inject({ url: `/api/v1/storages/default${url}` });
      expect(response.statusCode, url).toBe(200);
      return response.json();
    },
    close: async () => {
      await app.close();
      await close();
    },
  };
}

function textOf(result: CallToolResult): string {
  return (result.content[0] as { text: string }).text;
}

/** Answers of two processes differ in timings only. */
function withoutTimings(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, v: unknown) => (key === 'elapsedMs' || key === 'buildMs' || key === 'computeMs' ? 0 : v)));
}

for (const generation of GENERATIONS) {
  describe(`over stdio on the ${generation.label} corpus`, () => {
    let client: Client;
    let api: Awaited<ReturnType<typeof apiOf>>;
    const call = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> => (await client.callTool({ name, arguments: args })) as CallToolResult;

    beforeAll(async () => {
      ({ client } = await stdioClient([generation.dir]));
      api = await apiOf(generation.dir);
    }, 30_000);
    afterAll(async () => {
      await client?.close();
      await api?.close();
    });

    it('every tool answers with the structured content of its /api/v1 answer', async () => {
      const storage = await api.get('/storage');
      const root = storage['rootObjectId'] as string;

      const overview = await call('storage_overview', { types: 5 });
      expect(overview.isError).toBeFalsy();
      const summary = overview.structuredContent as { family: string; storage: unknown; types: unknown };
      expect(generation.label).toContain(summary.family);
      expect(withoutTimings(summary.storage)).toEqual(withoutTimings(storage));
      expect(summary.types).toEqual(await api.get('/types?sort=bytes&limit=5'));
      expect(textOf(overview)).toContain(`root object ${root}`);

      const types = await call('list_types', { sort: 'instances', limit: 3, cursor: '2' });
      expect(types.structuredContent).toEqual(await api.get('/types?sort=instances&offset=2&limit=3'));

      const view = await call('describe_object', { objectId: root, limit: 2 });
      expect(view.structuredContent).toEqual(await api.get(`/objects/${root}?offset=0&limit=2`));
      expect(textOf(view)).toContain(root);

      // A referenced object of the root: its referrers and paths.
      const members = (view.structuredContent as { members: { value?: { objectId?: string } }[] }).members;
      const child = members.map((m) => m.value?.objectId).find((id) => id !== undefined && id !== root)!;
      expect((await call('referrers', { objectId: child })).structuredContent).toEqual(await api.get(`/objects/${child}/referrers?offset=0&limit=20`));
      const paths = await call('paths_from_root', { objectId: child, limit: 2 });
      expect(paths.structuredContent).toEqual(await api.get(`/objects/${child}/paths?limit=2`));
      expect(textOf(paths)).toMatch(/shortest path/);

      expect((await call('object_versions', { objectId: root })).structuredContent).toEqual(await api.get(`/objects/${root}/versions?offset=0&limit=20`));
      expect((await call('object_versions', { objectId: root, version: 0, limit: 5 })).structuredContent).toEqual(await api.get(`/objects/${root}/versions/0?offset=0&limit=5`));

      expect((await call('analyze_storage', { examples: 5 })).structuredContent).toEqual(await api.get('/analysis?examples=5&referrers=3'));

      const search = await call('search', { query: 'a', limit: 3 });
      expect(withoutTimings(search.structuredContent)).toEqual(withoutTimings(await api.get('/search?q=a&limit=3')));
      expect(textOf(search)).toMatch(/^truncated: more hits may match \(scanned \d+ of \d+ bytes\); next cursor "3"$/m);

      // Instances of the root's class, by simple name.
      const rootType = (view.structuredContent as { typeId: string; typeName: string });
      const simple = rootType.typeName.slice(rootType.typeName.lastIndexOf('.') + 1);
      const instances = await call('list_instances', { type: simple, limit: 5 });
      expect(instances.structuredContent).toEqual(await api.get(`/types/${rootType.typeId}/instances?offset=0&limit=5`));

      const dictionary = await call('type_dictionary', { type: rootType.typeId });
      const allTypes = (await api.get('/types?sort=typeId&offset=0&limit=10000')) as { types: { typeId: string }[] };
      expect((dictionary.structuredContent as { types: unknown[] }).types).toEqual(allTypes.types.filter((t) => t.typeId === rootType.typeId));
      expect(textOf(dictionary)).toContain(rootType.typeName);

      const check = await call('check_storage', { limit: 1 });
      expect(check.isError).toBeFalsy();
      expect(check.structuredContent).toMatchObject({ javaStarts: expect.any(Boolean), offset: 0, problemsTotal: expect.any(Number) });
    }, 60_000);

    it('pages with cursors and says what was left out', async () => {
      const types = (await api.get('/types?limit=1')) as { total: number };
      const first = await call('list_types', { sort: 'typeId', limit: 2 });
      expect(textOf(first)).toContain(`truncated: ${types.total - 2} more types; next cursor "2"`);
      const second = await call('list_types', { sort: 'typeId', limit: 2, cursor: '2' });
      expect(second.structuredContent).toEqual(await api.get('/types?sort=typeId&offset=2&limit=2'));
      // The last page has no marker.
      const last = await call('list_types', { sort: 'typeId', limit: 2, cursor: String(types.total - 1) });
      expect(textOf(last)).not.toContain('truncated');
    }, 30_000);

    it('answers bad arguments with tool errors and keeps serving', async () => {
      const bad: [string, Record<string, unknown>, RegExp][] = [
        ['describe_object', { objectId: '999999999999999999' }, /Not Found \(404\): object 999999999999999999 is not stored/],
        ['describe_object', { objectId: '1; DROP TABLE x' }, /object id/],
        ['describe_object', { objectId: 1000000000000000028 }, /Invalid arguments|expected string/i],
        ['list_types', { limit: 1_000_000 }, /Invalid arguments/],
        ['list_types', { limit: 1e308 }, /Invalid arguments/],
        ['list_types', { limit: -1 }, /Invalid arguments/],
        ['list_types', { cursor: 'Infinity' }, /cursor/],
        ['referrers', { objectId: '18446744073709551615' }, /Invalid arguments|not|neither/],
        ['search', { query: 'x'.repeat(5000) }, /Invalid arguments/],
        ['list_instances', { type: '<script>alert(1)</script>' }, /no type named/],
        ['list_instances', { type: 'java.lang.String', member: 'value' }, /needs "member" together with/],
        ['type_dictionary', { type: '\u0000../../etc/passwd' }, /no type named/],
        ['object_versions', { objectId: '1000000000000000001', version: 999 }, /versions on disk/],
        ['no_such_tool', {}, /not found/],
      ];
      for (const [name, args, message] of bad) {
        const result = await call(name, args);
        expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
        expect(textOf(result)).toMatch(message);
      }
      // Still serving.
      expect((await call('storage_overview', {})).isError).toBeFalsy();
    }, 30_000);
  });
}

describe('the tool list', () => {
  it('names every tool with a description and a JSON input schema a model can fill', async () => {
    const { client, stderr } = await stdioClient([GENERATIONS[0]!.dir]);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(
        ['analyze_storage', 'check_storage', 'commits', 'describe_object', 'diff', 'list_instances', 'list_types', 'object_versions', 'paths_from_root', 'referrers', 'retained', 'search', 'sql_query', 'storage_overview', 'type_dictionary'].sort(),
      );
      for (const tool of tools) {
        expect(tool.description!.length, tool.name).toBeGreaterThan(80);
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      }
      const describe = tools.find((t) => t.name === 'describe_object')!;
      expect(describe.inputSchema.required).toEqual(['objectId']);
      expect(describe.inputSchema.properties!['objectId']).toMatchObject({ type: 'string', pattern: '^[0-9]{1,19}$' });
      expect(describe.inputSchema.properties!['limit']).toMatchObject({ type: 'integer', maximum: 200 });
      const resources = await client.listResources();
      expect(resources.resources.map((r) => r.uri)).toEqual(['storage-inspector://data-model', 'storage-inspector://default/type-dictionary']);
      const dictionary = await client.readResource({ uri: 'storage-inspector://default/type-dictionary' });
      expect((dictionary.contents[0] as { text: string }).text).toMatch(/^0000000000000000001 /);
      // stdout carried the protocol only: the messages went to stderr.
      expect(stderr()).toMatch(/MCP server on stdio for default/);
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe('the mcp command line', () => {
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [MAIN, 'mcp', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  it('refuses a missing or unreadable storage on stderr, nothing on stdout', async () => {
    const none = await run([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/expected a storage directory/);
    const missing = await run([join(ROOT, 'no-such-storage')]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/storage-inspector mcp: .*no-such-storage/);
  }, 30_000);
});
