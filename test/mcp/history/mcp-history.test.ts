import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { SEQUENCE_DIR } from '../../helpers/corpora/follow-sequence.js';
import { mcpClient, textOf, type McpClient } from '../../helpers/serving/mcp-client.js';
import { registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * The `commits` and `diff` tools on SEQ1 in state S4 (six commits, all on disk): their structured
 * content is the /api/v1 answer, pages continue with the cursor the text names, and a point the
 * storage does not have is a tool error saying so.
 */

let registered: RegisteredStorage;
let mcp: McpClient;
let app: ReturnType<typeof buildApp>;

beforeAll(async () => {
  registered = await registeredStorage(join(SEQUENCE_DIR, 'states', 'S4'));
  registered.registry.startAll();
  app = buildApp(registered.storage, { instance: 'microstream', api: registered.registry });
  mcp = await mcpClient(registered.registry);
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await app?.close();
  await registered?.close();
});

const call = async (name: string, args: Record<string, unknown>) => mcp.call(name, args);
const apiGet = async (url: string): Promise<Record<string, unknown>> => (await app.inject({ url: `/api/v1${url}` })).json();

describe('the commits tool', () => {
  it('lists the commits newest first, paged with a cursor', async () => {
    const first = await call('commits', { limit: 2 });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toEqual(await apiGet('/commits?offset=0&limit=2'));
    expect(textOf(first)).toMatch(/^6 commits, newest first:\n {2}#6 /);
    expect(textOf(first)).toContain('truncated: 4 more commits; next cursor "2"');
    const second = await call('commits', { limit: 2, cursor: '2' });
    expect((second.structuredContent as { commits: { number: number }[] }).commits.map((c) => c.number)).toEqual([4, 3]);
  });

  it("shows a commit's objects with their member changes", async () => {
    await registered.registry.get()!.graph.ready();
    const list = (await apiGet('/commits?offset=0&limit=10')) as { commits: { number: number; timestamp: string }[] };
    const commit4 = list.commits.find((c) => c.number === 4)!;
    const result = await call('commits', { timestamp: commit4.timestamp, limit: 5 });
    expect(result.structuredContent).toEqual(await apiGet(`/commits/${commit4.timestamp}?offset=0&limit=5`));
    // Commit 4 (S1 -> S2) updated tasks and members: the text shows values old → new.
    expect(textOf(result)).toMatch(/updated \w+ \d+\n {4}\w+: .+ → .+/);
    expect(textOf(result)).toContain('next cursor "5"');
  });
});

describe('the diff tool', () => {
  it('compares two points, its structured content the API answer', async () => {
    const result = await call('diff', { from: '3', to: '6', limit: 3 });
    expect(result.structuredContent).toEqual(await apiGet('/diff?from=3&to=6&offset=0&limit=3'));
    const total = (result.structuredContent as { total: number }).total;
    expect(textOf(result)).toContain(`next cursor "3"`);
    expect(textOf(result)).toContain(`${total - 3} more differing objects`);
  });

  it('says when the storage has no such point', async () => {
    const result = await call('diff', { from: '99' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('has no commit 99');
  });
});
