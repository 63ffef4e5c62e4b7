import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiV1Plugin } from '../../src/http/api-v1/api-v1-plugin.js';
import { StorageRegistry } from '../../src/registry/storage-registry.js';
import { ApiClient } from '../../src/mcp/api-client.js';
import { createMcpServer } from '../../src/mcp/mcp-server.js';
import { Storage } from '../../src/storage/storage.js';
import { CONFORMANCE_DIR } from '../helpers/conformance.js';

/**
 * The MCP `search` tool while the graph index is still being built (the registry is not started,
 * so the build waits): a matching String cannot be attributed to its owners yet, and the tool says
 * so instead of answering the String itself as a complete result. Once the index is ready, the
 * same call names the owner and the member.
 */

let storage: Storage;
let registry: StorageRegistry;
let api: ApiClient;
let client: Client;

beforeAll(async () => {
  storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', 'graph'));
  registry = new StorageRegistry();
  registry.add('default', storage);
  api = await ApiClient.create(registry, 30_000, apiV1Plugin);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer({ api, registry }).connect(serverSide);
  client = new Client({ name: 'search-while-building', version: '0' });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client?.close();
  await api?.close();
  await registry?.close();
  await storage?.close();
});

const search = async () => (await client.callTool({ name: 'search', arguments: { query: 'Chapter & Verse' } })) as CallToolResult;
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe('the search tool while the graph index is built', () => {
  it('says the owners are not known yet, then names them once the index is ready', async () => {
    expect(registry.get()!.graph.state.kind).toBe('building');
    const early = await search();
    expect(early.isError).toBe(true);
    expect(textOf(early)).toMatch(/the graph index of storage default is being built \(0%\); ask again in \d+ s/);

    registry.startAll();
    await registry.get()!.graph.ready();
    const found = await search();
    expect(found.isError).toBeFalsy();
    const results = (found.structuredContent as { complete: boolean; results: { objectId: string; typeName: string; member: string }[] });
    expect(results.complete).toBe(true);
    expect(results.results.map((r) => [r.typeName, r.member])).toEqual([['conformance.bookstore.Bookstore', 'name']]);
    expect(textOf(found)).toContain(`${results.results[0]!.objectId} Bookstore.name = "Chapter & Verse <Books>"`);
  });
});
