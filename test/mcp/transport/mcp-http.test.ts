import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiV1Plugin } from '../../../src/http/api-v1/api-v1-plugin.js';
import { lazySchemaCompilers } from '../../../src/http/api-v1/machinery/lazy-schema-compilers.js';
import { mcpRoutes } from '../../../src/mcp/http-route.js';
import { buildApp } from '../../../src/http/app.js';
import { loadAuthConfig } from '../../../src/http/guard/auth.js';
import { hostAllowList } from '../../../src/http/guard/host-check.js';
import { checkSourceOpener } from '../../../src/mcp/check-sources.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { registeredStorages, type RegisteredStorages } from '../../helpers/serving/registered-storage.js';
import { spawnCli } from '../../security/cli.js';
import { listenOnLoopback } from '../../helpers/serving/loopback.js';

/** A POST with the Host header exactly as given (fetch does not let one set it). */
function sendBody(port: number, host: string, headers: Record<string, string>, body: string): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers: { ...headers, host }, setHost: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * `/mcp` of `serve`: the SDK's Streamable HTTP client against the application as `serve` builds
 * it (two named storages, a token, the Host check): the tools answer as /api/v1 does, and the
 * route is refused like any other without the token or from a foreign Host.
 */

const TOKEN = 'mcp-test-token-3f1c9a7e5b2d4c6e8a0b';
const STORAGES = { ms: join(CONFORMANCE_DIR, 'storages', 'graph'), es: join(CONFORMANCE_DIR, '..', 'conformance-es', 'storages', 'collections') };

let app: ReturnType<typeof buildApp>;
let registered: RegisteredStorages;
let url: URL;

beforeAll(async () => {
  registered = await registeredStorages(STORAGES);
  const { registry } = registered;
  registry.startAll();
  const auth = loadAuthConfig({ env: { STORAGE_INSPECTOR_TOKEN: TOKEN }, warn: () => undefined });
  app = buildApp(registered.storages[0]!, {
    instance: 'microstream',
    api: registry,
    auth,
    allowedHosts: hostAllowList('127.0.0.1', undefined),
  });
  // As serve mounts it.
  await app.register(mcpRoutes, {
    registry,
    requestTimeoutMs: 30_000,
    api: apiV1Plugin,
    schemaCompilers: lazySchemaCompilers,
    checkSource: checkSourceOpener(Object.entries(STORAGES).map(([name, directory]) => ({ name, directory })), {}, 'default'),
  });
  url = new URL(`http://127.0.0.1:${await listenOnLoopback(app)}/mcp`);
});

afterAll(async () => {
  await app?.close();
  await registered?.close();
});

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'storage-inspector-test', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

const api = async (path: string): Promise<unknown> => {
  const response = await app.inject({ url: path, headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.statusCode, path).toBe(200);
  return response.json();
};

describe('/mcp over Streamable HTTP', () => {
  it('answers every storage by name with the /api/v1 answers', async () => {
    const client = await connect({ authorization: `Bearer ${TOKEN}` });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('describe_object');
      // Two storages: the storage input names them.
      expect(tools.find((t) => t.name === 'describe_object')!.inputSchema.properties!['storage']).toMatchObject({ type: 'string', description: expect.stringContaining('ms, es') });
      for (const name of Object.keys(STORAGES)) {
        const info = (await api(`/api/v1/storages/${name}/storage`)) as { rootObjectId: string };
        const view = (await client.callTool({ name: 'describe_object', arguments: { storage: name, objectId: info.rootObjectId, limit: 3 } })) as CallToolResult;
        expect(view.structuredContent).toEqual(await api(`/api/v1/storages/${name}/objects/${info.rootObjectId}?offset=0&limit=3`));
        const analysis = (await client.callTool({ name: 'analyze_storage', arguments: { storage: name } })) as CallToolResult;
        expect(analysis.structuredContent).toEqual(await api(`/api/v1/storages/${name}/analysis?examples=10&referrers=3`));
      }
      const unknown = (await client.callTool({ name: 'storage_overview', arguments: { storage: 'nope' } })) as CallToolResult;
      expect(unknown.isError).toBe(true);
      expect((unknown.content[0] as { text: string }).text).toContain('no storage named nope is served (served: ms, es)');
      const check = (await client.callTool({ name: 'check_storage', arguments: { storage: 'es' } })) as CallToolResult;
      // Once seen without structured content on a loaded machine: the tool's own error says why.
      expect(check.isError, JSON.stringify(check.content)).toBeFalsy();
      expect(check.structuredContent).toMatchObject({ javaStarts: true, exitCode: 0 });
    } finally {
      await client.close();
    }
  }, 60_000);

  it('pages a large collection with a cursor, each page the API page', async () => {
    const client = await connect({ authorization: `Bearer ${TOKEN}` });
    try {
      // The largest collection of the collections corpus.
      const types = (await api('/api/v1/storages/es/types?sort=bytes&limit=50')) as { types: { typeId: string; typeName: string; instances: number }[] };
      const list = types.types.find((t) => t.typeName === 'java.util.ArrayList' && t.instances > 0)!;
      const ids = (await api(`/api/v1/storages/es/types/${list.typeId}/instances?limit=100`)) as { objectIds: string[] };
      let biggest = { id: '', count: 0 };
      for (const id of ids.objectIds) {
        const view = (await api(`/api/v1/storages/es/objects/${id}?limit=1`)) as { members: { count?: number }[] };
        const count = Math.max(0, ...view.members.map((m) => m.count ?? 0));
        if (count > biggest.count) biggest = { id, count };
      }
      expect(biggest.count).toBeGreaterThan(2);
      const first = (await client.callTool({ name: 'describe_object', arguments: { storage: 'es', objectId: biggest.id, limit: 2 } })) as CallToolResult;
      expect((first.content[0] as { text: string }).text).toContain(`truncated: ${biggest.count - 2} more elements; next cursor "2"`);
      const second = (await client.callTool({ name: 'describe_object', arguments: { storage: 'es', objectId: biggest.id, limit: 2, cursor: '2' } })) as CallToolResult;
      expect(second.structuredContent).toEqual(await api(`/api/v1/storages/es/objects/${biggest.id}?offset=2&limit=2`));
    } finally {
      await client.close();
    }
  }, 60_000);

  it('is refused without the token, with a wrong one, and from a foreign Host', async () => {
    await expect(connect({})).rejects.toThrow(/Unauthorized/);
    await expect(connect({ authorization: 'Bearer wrong-token-0000000000000000' })).rejects.toThrow(/Unauthorized/);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': String(body.length) };
    const port = Number(url.port);
    expect((await sendBody(port, '127.0.0.1', { ...json }, body)).status).toBe(401);
    expect((await sendBody(port, '127.0.0.1', { ...json, authorization: `Bearer ${TOKEN}` }, body)).status).toBe(200);
    const foreign = await sendBody(port, 'evil.example', { ...json, authorization: `Bearer ${TOKEN}` }, body);
    expect(foreign.status).toBe(421);
  });

  it('answers GET with 405 (stateless: no event stream) and malformed JSON with a JSON-RPC error', async () => {
    const get = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    const bad = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc": "2.0", "id": 1, "method": ',
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });
});

describe('/mcp of the serve command', () => {
  it('is offered by `serve` behind its token, with check_storage on the served directory', async () => {
    const served = spawnCli(['serve', STORAGES.ms, '--port', '0', '--no-follow'], { STORAGE_INSPECTOR_TOKEN: TOKEN });
    try {
      const port = await served.port;
      await served.waitForStderr(/MCP server for AI assistants at http:\/\/127\.0\.0\.1:\d+\/mcp/);
      const client = new Client({ name: 'storage-inspector-test', version: '0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
      try {
        const check = (await client.callTool({ name: 'check_storage', arguments: { limit: 5 } })) as CallToolResult;
        expect(check.isError, JSON.stringify(check.content)).toBeFalsy();
        expect(check.structuredContent).toMatchObject({ directory: 'graph', javaStarts: true });
        const overview = (await client.callTool({ name: 'storage_overview', arguments: {} })) as CallToolResult;
        expect((overview.structuredContent as { storage: { entities: number } }).storage.entities).toBe(1263);
      } finally {
        await client.close();
      }
      // Without the token: refused.
      const refused = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(refused.status).toBe(401);
    } finally {
      served.child.kill('SIGTERM');
      await served.exit;
    }
  }, 60_000);
});
