import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphIndex } from '../../../src/graph/model/graph-index.js';
import { buildApp } from '../../../src/http/app.js';
import type { Storage } from '../../../src/storage/storage.js';
import { referenceDominators, type ReferenceDominators } from '../../graph/dominator-reference.js';
import { writeModelStorage } from '../../graph/model-storage.js';
import { registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * The retained sizes as a client sees them: `/objects/{oid}` with `retained` and the immediate
 * dominator, the dominator tree page by page, the biggest retainers and one object's chain and
 * retained set by type, each figure as the data-flow definition computes it; limits checked.
 */

interface Retainer {
  objectId: string;
  typeName: string;
  ownBytes: number;
  retainedObjects: number;
  retainedBytes: number;
  share: number;
  byType?: { typeName: string; objects: number; bytes: number }[];
}

describe('/api/v1 retained sizes', () => {
  let base: string;
  let registered: RegisteredStorage;
  let storage: Storage;
  let app: ReturnType<typeof buildApp>;
  let graph: GraphIndex;
  let want: ReferenceDominators;
  const ids: Record<string, bigint> = {};
  const get = async (url: string) => app.inject({ url });
  const node = (id: bigint): number => graph.nodes.nodeOfId(id);

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'api-retained-'));
    Object.assign(ids, writeModelStorage(join(base, 'storage')).ids);
    registered = await registeredStorage(join(base, 'storage'));
    const { registry, context } = registered;
    storage = registered.storage;
    app = buildApp(storage, { instance: 'microstream', api: registry });
    registry.startAll();
    graph = await context.graph.ready();
    await context.graph.dominators.ready();
    want = referenceDominators(graph, storage.channels);
  });

  afterAll(async () => {
    await app.close();
    await registered.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('are in the OpenAPI document', async () => {
    const document = (await get('/api/v1/openapi.json')).json() as { paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }> };
    for (const path of ['/dominators', '/retainers', '/objects/{oid}/retained']) {
      expect(Object.keys(document.paths)).toContain(`/api/v1${path}`);
      expect(Object.keys(document.paths)).toContain(`/api/v1/storages/{storage}${path}`);
    }
    expect(JSON.stringify(document.paths['/api/v1/objects/{oid}']!.get.responses['200'])).toContain('immediateDominator');
  });

  it('/storage tells the state of the dominator tree', async () => {
    const info = (await get('/api/v1/storage')).json() as { graph: { dominators: { state: string; reachableObjects: number; reachableBytes: number } } };
    const roots = node(storage.rootsObjectId);
    expect(info.graph.dominators).toMatchObject({ state: 'ready', reachableObjects: want.retainedObjects[roots], reachableBytes: want.retainedBytes[roots] });
  });

  it('/objects/{oid} reports what the object retains and its immediate dominator', async () => {
    const lazy = (await get(`/api/v1/objects/${ids.lazy}`)).json() as { retained: { objects: number; bytes: number; share: number }; immediateDominator: { objectId: string; typeName: string } };
    const v = node(ids.lazy!);
    const total = want.retainedBytes[node(storage.rootsObjectId)]!;
    expect(lazy.retained).toEqual({ objects: want.retainedObjects[v], bytes: want.retainedBytes[v], share: want.retainedBytes[v]! / total });
    expect(lazy.retained.objects).toBe(3); // the Lazy, d and d's name
    expect(lazy.immediateDominator).toEqual({ objectId: String(ids.root), typeName: 'gen.Node' });
    const garbage = (await get(`/api/v1/objects/${ids.g1}`)).json() as { retained: unknown; immediateDominator: unknown };
    expect(garbage.retained).toBeNull();
    expect(garbage.immediateDominator).toBeNull();
  });

  it('/dominators pages the children of the roots object and of any object, by retained bytes', async () => {
    const top = (await get('/api/v1/dominators?limit=100')).json() as { parent: Retainer; total: number; children: Retainer[] };
    const roots = node(storage.rootsObjectId);
    expect(top.parent.objectId).toBe(String(storage.rootsObjectId));
    expect(top.parent.retainedBytes).toBe(want.retainedBytes[roots]);
    const expected = [...want.idom.keys()].filter((v) => want.idom[v] === roots).sort((a, b) => want.retainedBytes[b]! - want.retainedBytes[a]! || a - b);
    expect(top.total).toBe(expected.length);
    expect(top.children.map((c) => c.objectId)).toEqual(expected.map((v) => String(graph.nodes.idOf(v))));
    expect(top.children.map((c) => c.retainedBytes)).toEqual(expected.map((v) => want.retainedBytes[v]));

    const root = (await get(`/api/v1/dominators?parent=${ids.root}&offset=1&limit=2`)).json() as { total: number; children: Retainer[] };
    const below = [...want.idom.keys()].filter((v) => want.idom[v] === node(ids.root!)).sort((a, b) => want.retainedBytes[b]! - want.retainedBytes[a]! || a - b);
    expect(root.total).toBe(below.length);
    expect(root.children.map((c) => c.objectId)).toEqual(below.slice(1, 3).map((v) => String(graph.nodes.idOf(v))));
    expect((await get(`/api/v1/dominators?parent=${ids.g1}`)).statusCode).toBe(404);
  });

  it('/retainers lists the biggest retainers with their retained sets by type', async () => {
    const answer = (await get('/api/v1/retainers?limit=3&types=50')).json() as { retainers: Retainer[] };
    const roots = node(storage.rootsObjectId);
    const order = [...want.idom.keys()].filter((v) => want.retainedObjects[v]! > 0 && v !== roots).sort((a, b) => want.retainedBytes[b]! - want.retainedBytes[a]! || a - b);
    expect(answer.retainers.map((r) => r.objectId)).toEqual(order.slice(0, 3).map((v) => String(graph.nodes.idOf(v))));
    for (const r of answer.retainers) {
      expect(r.byType!.reduce((s, t) => s + t.objects, 0)).toBe(r.retainedObjects);
      expect(r.byType!.reduce((s, t) => s + t.bytes, 0)).toBe(r.retainedBytes);
    }
    // What holds the root between it and the roots object comes first, the root right after.
    expect(answer.retainers.map((r) => r.objectId)).toContain(String(ids.root));
  });

  it('/objects/{oid}/retained: what keeps it alive and what deleting it would free', async () => {
    const answer = (await get(`/api/v1/objects/${ids.d}/retained`)).json() as { chain: Retainer[]; chainLength: number; byType: { typeName: string; objects: number; bytes: number }[]; retained: { objects: number } };
    const chain = answer.chain.map((c) => c.objectId);
    expect(chain.slice(0, 2)).toEqual([String(ids.lazy), String(ids.root)]);
    expect(chain.at(-1)).toBe(String(storage.rootsObjectId));
    const expected: number[] = [];
    for (let d = want.idom[node(ids.d!)]!; d >= 0; d = want.idom[d]!) expected.push(d);
    expect(chain).toEqual(expected.map((v) => String(graph.nodes.idOf(v))));
    expect(answer.chainLength).toBe(expected.length);
    expect(answer.byType.map((t) => t.typeName).sort()).toEqual(['gen.Node', 'java.lang.String']);
    expect(answer.byType.reduce((s, t) => s + t.objects, 0)).toBe(answer.retained.objects);
    const short = (await get(`/api/v1/objects/${ids.d}/retained?chain=1&types=1`)).json() as { chain: Retainer[]; byType: unknown[] };
    expect(short.chain).toHaveLength(1);
    expect(short.byType).toHaveLength(1);
  });

  it('checks its limits, non-finite numbers too', async () => {
    for (const url of ['/api/v1/dominators?limit=1001', '/api/v1/dominators?limit=Infinity', '/api/v1/dominators?offset=NaN', '/api/v1/retainers?limit=0', '/api/v1/retainers?offset=1000', '/api/v1/retainers?types=51', '/api/v1/retainers?types=1e309', `/api/v1/objects/${ids.d}/retained?chain=-1`, '/api/v1/dominators?parent=abc']) {
      const answer = await get(url);
      expect(answer.statusCode, url).toBe(400);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });
});

describe('/api/v1 retained sizes before the dominator tree is there', () => {
  it('answer 503 with Retry-After and progress; /objects/{oid} goes without retained', async () => {
    const base = mkdtempSync(join(tmpdir(), 'api-retained-waiting-'));
    const ids = writeModelStorage(join(base, 'storage')).ids;
    const { storage, registry, context, close } = await registeredStorage(join(base, 'storage'));
    const app = buildApp(storage, { instance: 'microstream', api: registry });
    try {
      registry.startAll();
      await context.graph.ready();
      await context.graph.dominators.ready();
      // As while the graph index is built again: no tree until the next one is computed.
      context.graph.dominators.reset();
      for (const url of ['/api/v1/dominators', '/api/v1/retainers', `/api/v1/objects/${ids.d}/retained`]) {
        const answer = await app.inject({ url });
        expect(answer.statusCode, url).toBe(503);
        expect(answer.headers['retry-after']).toBe('1');
        expect(answer.json()).toMatchObject({ title: 'Dominator Tree Not Ready', progress: { phase: 'starting', percent: 0 } });
      }
      const view = (await app.inject({ url: `/api/v1/objects/${ids.d}` })).json() as Record<string, unknown>;
      expect(view['objectId']).toBe(String(ids.d));
      expect('retained' in view).toBe(false);
      expect('immediateDominator' in view).toBe(false);
      const info = (await app.inject({ url: '/api/v1/storage' })).json() as { graph: { dominators: { state: string } } };
      expect(info.graph.dominators.state).toBe('waiting');
    } finally {
      await app.close();
      await close();
      rmSync(base, { recursive: true, force: true });
    }
  });
});
