import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { ModelStorage } from '../../graph/model-storage.js';
import { mcpClient, textOf, type McpClient } from '../../helpers/serving/mcp-client.js';
import { registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * The `retained` tool on a storage with a 60-node chain (each node dominating the next), a wide
 * list and garbage: an object's retained size, its dominator chain paged with a cursor, its
 * retained set by class, and the biggest retainers paged, all as /api/v1 answers them.
 */

let dir: string;
let registered: RegisteredStorage;
let mcp: McpClient;
let app: ReturnType<typeof buildApp>;
const chain: bigint[] = [];
let garbage: bigint;
let root: bigint;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'si-mcp-retained-'));
  const model = ModelStorage.create(join(dir, 'storage'));
  let next: bigint | undefined;
  for (let i = 0; i < 60; i++) {
    next = model.putNode({ name: `link ${59 - i}`, ...(next === undefined ? {} : { next }) });
    chain.unshift(next);
  }
  const wide = model.putList(Array.from({ length: 30 }, (_, i) => model.putString(`element ${i}`)));
  root = model.putNode({ name: 'root', next: chain[0]!, children: wide });
  garbage = model.putNode({ name: 'garbage', next: chain[5]! });
  model.setRoot(root);
  model.commit();
  model.close();
  registered = await registeredStorage(join(dir, 'storage'));
  registered.registry.startAll();
  app = buildApp(registered.storage, { instance: 'microstream', api: registered.registry });
  mcp = await mcpClient(registered.registry);
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await app?.close();
  await registered?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = async (args: Record<string, unknown>) => mcp.call('retained', args);
const apiGet = async (url: string): Promise<Record<string, unknown>> => (await app.inject({ url: `/api/v1${url}` })).json();

describe('the retained tool', () => {
  it("pages an object's dominator chain with a cursor and lists its retained set by class", async () => {
    const last = chain[59]!;
    const first = await call({ objectId: String(last), limit: 20 });
    expect(first.isError).toBeFalsy();
    const api1 = await apiGet(`/objects/${last}/retained?chain=20&types=10`);
    expect(first.structuredContent).toEqual({ ...api1, offset: 0 });
    const content = first.structuredContent as { chainLength: number; chain: { objectId: string }[]; retained: { objects: number } };
    // 59 links above it, the root, what holds the root, the roots object.
    expect(content.chainLength).toBeGreaterThanOrEqual(61);
    expect(content.chain.map((c) => c.objectId)).toEqual(chain.slice(39, 59).reverse().map(String));
    expect(content.retained.objects).toBe(2); // the last link and its name
    expect(textOf(first)).toMatch(new RegExp(`truncated: ${content.chainLength - 20} more dominators; next cursor "20"`));
    expect(textOf(first)).toMatch(/what deleting it would free, by class:\n {2}Node: 1 objects, 60 B\n {2}String: 1 objects, \d+ B\n/);

    const second = await call({ objectId: String(last), limit: 20, cursor: '20' });
    const page = (second.structuredContent as { chain: { objectId: string }[]; offset: number });
    expect(page.offset).toBe(20);
    expect(page.chain.map((c) => c.objectId)).toEqual(chain.slice(20, 39).reverse().map(String).concat(String(chain[19])));
  });

  it('says an unreachable object retains nothing', async () => {
    const result = await call({ objectId: String(garbage) });
    expect(textOf(result)).toContain('is not reachable from the roots object');
    expect((result.structuredContent as { retained: unknown }).retained).toBeNull();
  });

  it('lists the biggest retainers, paged', async () => {
    const first = await call({ limit: 3 });
    expect(first.structuredContent).toEqual(await apiGet('/retainers?offset=0&limit=3&types=3&summaries=true'));
    const retainers = (first.structuredContent as { retainers: { objectId: string }[] }).retainers;
    expect(retainers.map((r) => r.objectId)).toContain(String(root));
    expect(textOf(first)).toMatch(/truncated: \d+ more retainers; next cursor "3"/);
    const second = await call({ limit: 3, cursor: '3' });
    expect(second.structuredContent).toEqual(await apiGet('/retainers?offset=3&limit=3&types=3&summaries=true'));
    // The last full page (every reachable object but the roots object is a retainer) ends without a cursor.
    const reachable = (first.structuredContent as { reachableObjects: number }).reachableObjects;
    expect(reachable).toBeLessThan(1000);
    const last = await call({ limit: 3, cursor: String(reachable - 1 - 3) });
    expect((last.structuredContent as { retainers: unknown[] }).retainers.length).toBe(3);
    expect(textOf(last)).not.toContain('truncated');
    expect(textOf(last).split('\n').at(-2)).toMatch(new RegExp(`^ {2}${reachable - 1}\\. \\d+ `));
  });
});
