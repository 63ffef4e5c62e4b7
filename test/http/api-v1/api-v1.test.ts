import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { writeModelStorage } from '../../graph/model-storage.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { graphsBuilt, registeredStorages } from '../../helpers/serving/registered-storage.js';

/**
 * `/api/v1` as a client sees it: the OpenAPI document is valid OpenAPI 3.1 and lists every route,
 * answers follow their schemas, errors are problem+json, routes that need the graph answer 503
 * with Retry-After while it is built, access control covers the API, and named storages are
 * served under `/api/v1/storages/{name}`.
 */

const GRAPH_STORAGE = join(CONFORMANCE_DIR, 'storages', 'graph');

async function served(directories: Record<string, string>, options: { start?: boolean; auth?: Parameters<typeof buildApp>[1]['auth'] } = {}) {
  const registered = await registeredStorages(directories);
  const { registry } = registered;
  const app = buildApp(registered.storages[0]!, { instance: 'microstream', api: registry, auth: options.auth });
  if (options.start !== false) await graphsBuilt(registry);
  return {
    app,
    registry,
    get: async (url: string, headers: Record<string, string> = {}) => app.inject({ url, headers }),
    close: async () => {
      await app.close();
      await registered.close();
    },
  };
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 generated from the route schemas, listing every route', async () => {
    const server = await served({ default: GRAPH_STORAGE });
    try {
      const response = await server.get('/api/v1/openapi.json');
      expect(response.statusCode).toBe(200);
      const document = response.json() as { openapi: string; paths: Record<string, { get: { responses: Record<string, unknown> } }> };
      expect(document.openapi).toBe('3.1.0');
      const result = await validate(structuredClone(document) as never);
      expect(result.valid, compileErrors(result)).toBe(true);
      const paths = Object.keys(document.paths);
      for (const path of ['/storage', '/types', '/types/{typeId}/instances', '/types/{typeId}/instances.ndjson', '/objects/{oid}', '/objects/{oid}/referrers', '/objects/{oid}/paths', '/objects/{oid}/versions', '/objects/{oid}/versions/{n}', '/analysis', '/search', '/summaries']) {
        expect(paths).toContain(`/api/v1${path}`);
        expect(paths).toContain(`/api/v1/storages/{storage}${path}`);
      }
      // Only our routes: the Java-compatible catch-all and the viewer are not part of it.
      expect(paths.every((p) => p.startsWith('/api/v1/'))).toBe(true);
      expect(Object.keys(document.paths['/api/v1/objects/{oid}']!.get.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '503']));
    } finally {
      await server.close();
    }
  });
});

describe('while the graph index is built', () => {
  it('answers 503 with Retry-After and progress, /search too (it names owners from the graph); /storage answers at once', async () => {
    const server = await served({ default: GRAPH_STORAGE }, { start: false });
    try {
      const types = await server.get('/api/v1/types');
      expect(types.statusCode).toBe(503);
      expect(types.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(Number(types.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(types.json()).toMatchObject({ status: 503, title: 'Graph Index Not Ready', progress: { percent: 0 } });
      const storage = await server.get('/api/v1/storage');
      expect(storage.statusCode).toBe(200);
      expect(storage.json()).toMatchObject({ graph: { state: 'building' }, entities: 1263 });
      // The matching String's owners are not known yet: a String listed as itself, complete, was a wrong answer.
      const early = await server.get('/api/v1/search?q=Chapter%20%26%20Verse');
      expect(early.statusCode).toBe(503);
      expect(Number(early.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(early.json()).toMatchObject({ status: 503, title: 'Graph Index Not Ready', progress: { percent: 0 } });
      // The Java-compatible routes do not wait for it.
      expect((await server.get('/microstream/root')).statusCode).toBe(200);
      server.registry.startAll();
      await server.registry.get()!.graph.ready();
      expect((await server.get('/api/v1/types')).statusCode).toBe(200);
      expect((await server.get('/api/v1/storage')).json()).toMatchObject({ graph: { state: 'ready', references: 2108, problemCount: 0 } });
      const found = (await server.get('/api/v1/search?q=Chapter%20%26%20Verse')).json() as { complete: boolean; results: { typeName: string; member: string; valueTypeName?: string }[] };
      expect(found.complete).toBe(true);
      expect(found.results.map((r) => [r.typeName, r.member, r.valueTypeName])).toEqual([['conformance.bookstore.Bookstore', 'name', 'java.lang.String']]);
    } finally {
      await server.close();
    }
  });
});

describe('answers and problems', () => {
  let server: Awaited<ReturnType<typeof served>>;
  let base: string;
  let ids: Record<string, bigint>;
  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'api-v1-'));
    ids = writeModelStorage(join(base, 'model')).ids;
    server = await served({ graph: GRAPH_STORAGE, model: join(base, 'model') });
  });
  afterAll(async () => {
    await server.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('serves the first storage by default and every one by name', async () => {
    expect((await server.get('/api/v1/storage')).json()).toMatchObject({ name: 'graph', entities: 1263 });
    expect((await server.get('/api/v1/storages/model/storage')).json()).toMatchObject({ name: 'model' });
    const missing = await server.get('/api/v1/storages/nope/types');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ title: 'Not Found', detail: 'no storage named nope is served' });
  });

  it('refuses bad parameters with 400 and unknown routes with 404, as problem+json', async () => {
    for (const url of ['/api/v1/objects/12x', '/api/v1/objects/1000000000000000028?limit=0', '/api/v1/types?limit=10001', '/api/v1/search', '/api/v1/objects/1000000000000000028/paths?limit=101']) {
      const response = await server.get(url);
      expect(response.statusCode, url).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json()).toMatchObject({ status: 400, title: 'Bad Request', instance: url });
    }
    expect((await server.get('/api/v1/objects/1000000000000009999')).statusCode).toBe(404);
    expect((await server.get('/api/v1/types/999/instances')).statusCode).toBe(404);
    expect((await server.get('/api/v1/nothing/here')).json()).toMatchObject({ status: 404 });
    const post = await server.app.inject({ method: 'POST', url: '/api/v1/storage' });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET');
  });

  it('gives ids as decimal strings and pages with offset, limit and total', async () => {
    const page = (await server.get('/api/v1/types/30/instances?offset=2&limit=3')).json() as { total: number; objectIds: string[]; offset: number };
    const all = (await server.get('/api/v1/types/30/instances?limit=10000')).json() as { total: number; objectIds: string[] };
    expect(page.total).toBe(all.total);
    expect(page.objectIds).toEqual(all.objectIds.slice(2, 5));
    expect(all.objectIds.every((id) => /^\d+$/.test(id))).toBe(true);
    expect([...all.objectIds].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))).toEqual(all.objectIds);
    const types = (await server.get('/api/v1/types?sort=bytes&limit=10000')).json() as { total: number; types: { liveBytes: number }[] };
    expect(types.types).toHaveLength(types.total);
    expect(types.types.map((t) => t.liveBytes)).toEqual([...types.types.map((t) => t.liveBytes)].sort((a, b) => b - a));
  });

  it('shows an object member by member, with references, texts and paged lists', async () => {
    const root = (await server.get('/api/v1/objects/1000000000000000028')).json() as { typeName: string; members: { name: string; value: { objectId: string; typeName: string; text?: string } }[] };
    expect(root.typeName).toBe('conformance.bookstore.Bookstore');
    expect(root.members[0]).toEqual({ name: 'name', type: 'java.lang.String', value: { objectId: '1000000000000000029', typeName: 'java.lang.String', text: 'Chapter & Verse <Books>' } });
    const list = (await server.get('/api/v1/objects/1000000000000000031?offset=10&limit=5')).json() as { members: { count: number; offset: number; elements: unknown[] }[] };
    expect(list.members[0]).toMatchObject({ count: 12, offset: 10 });
    expect(list.members[0]!.elements).toHaveLength(2);
    const constant = (await server.get('/api/v1/objects/9000000000000005133')).json();
    expect(constant).toMatchObject({ typeName: 'java.lang.Integer', text: '5', constant: true });
  });

  it('names the member, element and map key a referrer holds the reference through', async () => {
    const map = ids.map!;
    const d2 = ids.d2!;
    const referrers = (await server.get(`/api/v1/storages/model/objects/${d2}/referrers`)).json() as { referrers: { objectId: string; via: { text: string; key?: { text?: string } } }[] };
    expect(referrers.referrers).toEqual([{ objectId: String(map), typeName: 'java.util.HashMap', summary: '1 entry', via: expect.objectContaining({ text: 'elements[0].value', member: 'elements', indices: [0], element: 'value' }) }]);
    expect(referrers.referrers[0]!.via.key).toMatchObject({ typeName: 'java.lang.String', text: 'k' });
    const b = (await server.get(`/api/v1/storages/model/objects/${ids.b}/referrers`)).json() as { referrers: { via: { text: string } }[] };
    expect(b.referrers.map((r) => r.via.text)).toEqual(['next', 'elements[0]']);
  });

  it('lists missing references with who refers to them, and their referrers', async () => {
    const analysis = (await server.get('/api/v1/storages/model/analysis')).json() as { missingReferences: { count: number; examples: { objectId: string; referrers: { objectId: string }[] }[] } };
    expect(analysis.missingReferences.count).toBe(2);
    expect(analysis.missingReferences.examples.map((e) => e.objectId)).toEqual([String(ids.hole), '8000000000000000000']);
    const hole = await server.get(`/api/v1/storages/model/objects/${ids.hole}/referrers`);
    expect(hole.json()).toMatchObject({ total: 1, referrers: [{ objectId: String(ids.list), via: { text: 'elements[2]' } }] });
    const object = await server.get(`/api/v1/storages/model/objects/${ids.hole}`);
    expect(object.statusCode).toBe(404);
    expect(object.json()).toMatchObject({ detail: expect.stringContaining('missing reference') });
  });

  it('tells the paths from the roots and says when there is none', async () => {
    const paths = (await server.get(`/api/v1/storages/model/objects/${ids.d}/paths`)).json() as { reachable: boolean; paths: { typeName: string; via: { text: string } | null }[][] };
    expect(paths.reachable).toBe(true);
    // The Lazy is no step of its own: d is reached through the member holding it.
    expect(paths.paths[0]!.map((s) => s.via?.text ?? null)).toEqual([null, expect.stringMatching(/^instances\[\d+\]$/), 'root', 'lazy']);
    expect(paths.paths[0]!.at(-1)).toMatchObject({ objectId: String(ids.d), lazyObjectId: expect.stringMatching(/^[0-9]+$/) });
    expect((await server.get(`/api/v1/storages/model/objects/${ids.g3}/paths`)).json()).toEqual({ objectId: String(ids.g3), reachable: false, length: 0, truncated: false, paths: [] });
  });

  it('lists the versions of an object with their commits and what changed', async () => {
    const versions = (await server.get(`/api/v1/storages/model/objects/${ids.a}/versions`)).json() as { total: number; versions: { n: number; current: boolean; commit: { kind: string; timestamp: string } }[] };
    expect(versions.total).toBe(2);
    expect(versions.versions.map((v) => v.current)).toEqual([true, false]);
    expect(versions.versions.every((v) => v.commit.kind === 'store')).toBe(true);
    expect(BigInt(versions.versions[0]!.commit.timestamp)).toBeGreaterThan(BigInt(versions.versions[1]!.commit.timestamp));
    const older = (await server.get(`/api/v1/storages/model/objects/${ids.a}/versions/1`)).json() as { comparedWith: number; changes: { member: string; before: { text: string }; after: { text: string } }[] };
    expect(older.comparedWith).toBe(0);
    expect(older.changes).toEqual([expect.objectContaining({ member: 'name', before: expect.objectContaining({ text: 'a' }), after: expect.objectContaining({ text: 'a, version 2' }) })]);
    expect((await server.get(`/api/v1/storages/model/objects/${ids.a}/versions/2`)).statusCode).toBe(404);
  });

  it('searches texts and values, by type, bounded by a limit', async () => {
    // The String matching is reported as the object holding it (the bookstore 28 holds String 29 as its name).
    const hits = (await server.get('/api/v1/search?q=VERSE')).json() as { complete: boolean; results: { objectId: string; member: string; valueObjectId?: string }[] };
    expect(hits.results).toContainEqual(expect.objectContaining({ objectId: '1000000000000000028', member: 'name', valueObjectId: '1000000000000000029' }));
    const limited = (await server.get('/api/v1/search?q=e&limit=2')).json() as { complete: boolean; stoppedBy: string; results: unknown[] };
    expect(limited).toMatchObject({ complete: false, stoppedBy: 'limit' });
    expect(limited.results).toHaveLength(2);
    // A type of values filters by the value's type: its owners are listed.
    const typed = (await server.get('/api/v1/search?q=e&type=java.util.Date&limit=10')).json() as { results: { typeName: string; valueTypeName?: string }[] };
    expect(typed.results.every((r) => r.typeName === 'java.util.Date' || r.valueTypeName === 'java.util.Date')).toBe(true);
    expect((await server.get('/api/v1/search?q=e&type=no.Such')).statusCode).toBe(400);
  });

  it('streams every instance of a type as NDJSON', async () => {
    const total = ((await server.get('/api/v1/types/30/instances?limit=1')).json() as { total: number }).total;
    const response = await server.get('/api/v1/types/30/instances.ndjson');
    expect(response.headers['content-type']).toBe('application/x-ndjson');
    const lines = response.body.trimEnd().split('\n').map((l) => JSON.parse(l) as { typeName: string; text: string });
    expect(lines).toHaveLength(total);
    expect(lines.every((l) => l.typeName === 'java.lang.String' && typeof l.text === 'string')).toBe(true);
  });
});

describe('access control', () => {
  it('covers the API like every other route', async () => {
    const server = await served({ default: GRAPH_STORAGE }, { auth: { tokenDigests: [createHash('sha256').update('secret-token-1234567890').digest()], basicDigests: [] } });
    try {
      const refused = await server.get('/api/v1/storage');
      expect(refused.statusCode).toBe(401);
      expect((await server.get('/api/v1/openapi.json')).statusCode).toBe(401);
      expect((await server.get('/api/v1/storage', { authorization: 'Bearer secret-token-1234567890' })).statusCode).toBe(200);
    } finally {
      await server.close();
    }
  });
});
