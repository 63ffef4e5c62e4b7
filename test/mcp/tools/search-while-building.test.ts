import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { mcpClient, textOf, type McpClient } from '../../helpers/serving/mcp-client.js';
import { registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * The MCP `search` tool while the graph index is still being built (the registry is not started,
 * so the build waits): a matching String cannot be attributed to its owners yet, and the tool says
 * so instead of answering the String itself as a complete result. Once the index is ready, the
 * same call names the owner and the member.
 */

let registered: RegisteredStorage;
let mcp: McpClient;

beforeAll(async () => {
  registered = await registeredStorage(join(CONFORMANCE_DIR, 'storages', 'graph'));
  mcp = await mcpClient(registered.registry);
});

afterAll(async () => {
  await mcp?.close();
  await registered?.close();
});

const search = async () => mcp.call('search', { query: 'Chapter & Verse' });

describe('the search tool while the graph index is built', () => {
  it('says the owners are not known yet, then names them once the index is ready', async () => {
    expect(registered.registry.get()!.graph.state.kind).toBe('building');
    const early = await search();
    expect(early.isError).toBe(true);
    expect(textOf(early)).toMatch(/the graph index of storage default is being built \(0%\); ask again in \d+ s/);

    registered.registry.startAll();
    await registered.registry.get()!.graph.ready();
    const found = await search();
    expect(found.isError).toBeFalsy();
    const results = (found.structuredContent as { complete: boolean; results: { objectId: string; typeName: string; member: string }[] });
    expect(results.complete).toBe(true);
    expect(results.results.map((r) => [r.typeName, r.member])).toEqual([['conformance.bookstore.Bookstore', 'name']]);
    expect(textOf(found)).toContain(`${results.results[0]!.objectId} Bookstore.name = "Chapter & Verse <Books>"`);
  });
});
