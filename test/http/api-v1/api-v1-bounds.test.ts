import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PATH_STEPS } from '../../../src/graph/queries/shortest-paths.js';
import { buildApp } from '../../../src/http/app.js';
import { ModelStorage } from '../../graph/model-storage.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { graphsBuilt, registeredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * Limits of `/api/v1` that no request gets past: every numeric parameter of every route (read off
 * the OpenAPI document, so that a route added later is walked too) refuses non-finite and
 * out-of-range values with a 400 before any work, and path enumeration stays bounded on graphs
 * whose number of shortest paths is exponential (a diamond) or whose one path is very long (a chain).
 */

const GRAPH_STORAGE = join(CONFORMANCE_DIR, 'storages', 'graph');

async function served(directory: string) {
  const registered = await registeredStorage(directory);
  await graphsBuilt(registered.registry);
  const app = buildApp(registered.storage, { instance: 'microstream', api: registered.registry });
  return {
    app,
    close: async () => {
      await app.close();
      await registered.close();
    },
  };
}

interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly required?: boolean;
  readonly schema: { readonly type?: string; readonly minimum?: number; readonly maximum?: number };
}

describe('numeric parameters of every /api/v1 route', () => {
  let server: Awaited<ReturnType<typeof served>>;
  beforeAll(async () => {
    server = await served(GRAPH_STORAGE);
  });
  afterAll(async () => server.close());

  it('answer 400 for Infinity, -Infinity, 1e309 and values past their minimum or maximum, and work for valid ones', async () => {
    const { app } = server;
    const document = (await app.inject('/api/v1/openapi.json')).json() as { paths: Record<string, { get?: { parameters?: Parameter[] } }> };
    const storage = (await app.inject('/api/v1/storage')).json() as { rootObjectId: string };
    const types = (await app.inject('/api/v1/types?sort=instances&limit=1')).json() as { types: { typeId: string }[] };
    // A valid value for every parameter that is not the one tried.
    const valid: Record<string, string> = { storage: 'default', oid: storage.rootObjectId, typeId: types.types[0]!.typeId, n: '0', q: 'e', index: 'city', entityId: '0', key: 'x', timestamp: '1' };
    const tried = new Set<string>();
    for (const [template, item] of Object.entries(document.paths)) {
      const parameters = item.get?.parameters ?? [];
      const urlWith = (name: string, value: string): string => {
        let path = template;
        const query: string[] = [];
        for (const p of parameters) {
          const text = p.name === name ? value : valid[p.name];
          if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(text ?? ''));
          else if (text !== undefined && (p.name === name || p.required === true)) query.push(`${p.name}=${encodeURIComponent(text)}`);
        }
        return query.length === 0 ? path : `${path}?${query.join('&')}`;
      };
      for (const p of parameters) {
        if (p.schema.type !== 'integer' && p.schema.type !== 'number') continue;
        tried.add(`${template} ${p.name}`);
        const bad = ['Infinity', '-Infinity', '1e309', '-1e309', 'NaN'];
        if (p.schema.minimum !== undefined) bad.push(String(p.schema.minimum - 1));
        if (p.schema.maximum !== undefined) bad.push(String(p.schema.maximum + 1), `${p.schema.maximum}0`);
        for (const value of bad) {
          const url = urlWith(p.name, value);
          const answer = await app.inject(url);
          expect(answer.statusCode, url).toBe(400);
          expect(answer.headers['content-type'], url).toMatch(/^application\/problem\+json/);
          expect(answer.json(), url).toMatchObject({ status: 400, detail: expect.stringContaining(p.name) });
        }
        // The value in range is taken: answered, or 404 where the storage has no such thing (a GigaMap's routes on another object).
        const fine = urlWith(p.name, String(p.schema.minimum ?? 0));
        expect([200, 404], fine).toContain((await app.inject(fine)).statusCode);
      }
    }
    // Both forms (default and named storage) of the routes known to take numbers were walked.
    for (const route of ['/objects/{oid} limit', '/objects/{oid}/paths limit', '/objects/{oid}/referrers offset', '/objects/{oid}/versions/{n} n', '/types limit', '/types/{typeId}/instances offset', '/analysis examples', '/search maxMs']) {
      expect(tried).toContain(`/api/v1${route}`);
      expect(tried).toContain(`/api/v1/storages/{storage}${route}`);
    }
  });
});

describe('paths from the roots', () => {
  const LEVELS = 40;
  const CHAIN = MAX_PATH_STEPS + 50;
  let directory: string;
  let diamondTarget: bigint;
  let chainEnd: bigint;
  let diamondTop: bigint;
  let diamondSecond: bigint;
  let server: Awaited<ReturnType<typeof served>>;
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'si-paths-'));
    const model = ModelStorage.create(directory, 1);
    // A diamond: each level is a list of two nodes that both refer to the next level's list, so the
    // last node is reached by 2^40 shortest paths.
    diamondTarget = model.putNode({ name: 'bottom' });
    let below = model.putList([model.putNode({ next: diamondTarget }), model.putNode({ next: diamondTarget })]);
    for (let level = 1; level < LEVELS; level++) {
      diamondSecond = below;
      below = model.putList([model.putNode({ children: below }), model.putNode({ children: below })]);
    }
    diamondTop = below;
    // A chain longer than the step budget: its end has one path, too long to list.
    let link = model.putNode({ name: 'end' });
    chainEnd = link;
    for (let i = 0; i < CHAIN; i++) link = model.putNode({ next: link });
    model.setRoot(model.putList([below, link]));
    model.commit();
    model.close();
    server = await served(directory);
  });
  afterAll(async () => {
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('lists at most the paths asked for in a 40-level diamond, within the step budget, and says that there are more', async () => {
    const few = (await server.app.inject(`/api/v1/objects/${diamondTarget}/paths?limit=10`)).json() as { truncated: boolean; paths: unknown[][] };
    expect(few.truncated).toBe(true);
    expect(few.paths).toHaveLength(10);
    const answer = await server.app.inject(`/api/v1/objects/${diamondTarget}/paths?limit=100`);
    expect(answer.statusCode).toBe(200);
    const body = answer.json() as { reachable: boolean; length: number; truncated: boolean; paths: { objectId: string }[][] };
    expect(body.reachable).toBe(true);
    expect(body.truncated).toBe(true);
    // roots entity → root reference → root list → (list → node) × 40 → target
    expect(body.length).toBe(3 + 2 * LEVELS);
    // The step budget cuts before the limit: as many whole paths as fit.
    const fit = Math.floor(MAX_PATH_STEPS / (body.length + 1));
    expect(fit).toBeLessThan(100);
    expect(body.paths).toHaveLength(fit);
    expect(body.paths.flat().length).toBeLessThanOrEqual(MAX_PATH_STEPS);
    expect(new Set(body.paths.map((p) => p.map((s) => s.objectId).join('/'))).size).toBe(fit);
    for (const path of body.paths) {
      expect(path).toHaveLength(body.length + 1);
      expect(path.at(-1)!.objectId).toBe(String(diamondTarget));
    }
  });

  it('refuses an unbounded number of paths before any work', async () => {
    for (const limit of ['Infinity', '1e309', '101']) {
      const answer = await server.app.inject(`/api/v1/objects/${diamondTarget}/paths?limit=${limit}`);
      expect(answer.statusCode, limit).toBe(400);
    }
  });

  it('gives the length of a path longer than the step budget, and no steps', async () => {
    const answer = await server.app.inject(`/api/v1/objects/${chainEnd}/paths?limit=100`);
    expect(answer.statusCode).toBe(200);
    const body = answer.json() as { reachable: boolean; length: number; truncated: boolean; paths: unknown[][] };
    expect(body).toMatchObject({ reachable: true, truncated: true, length: CHAIN + 3, paths: [] });
  });

  it('lists every path when they fit, without saying truncated', async () => {
    // The diamond's top list: roots entity → root reference → root list → it; one path.
    const top = (await server.app.inject(`/api/v1/objects/${diamondTop}/paths?limit=100`)).json() as { truncated: boolean; length: number; paths: { objectId: string }[][] };
    expect(top).toMatchObject({ truncated: false, length: 3 });
    expect(top.paths.map((p) => p.at(-1)!.objectId)).toEqual([String(diamondTop)]);
    // The nodes below it: two lists each (both nodes of a level refer to the list below).
    const second = (await server.app.inject(`/api/v1/objects/${diamondSecond}/paths?limit=2`)).json() as { truncated: boolean; length: number; paths: unknown[][] };
    expect(second).toMatchObject({ truncated: false, length: 5 });
    expect(second.paths).toHaveLength(2);
    const cut = (await server.app.inject(`/api/v1/objects/${diamondSecond}/paths?limit=1`)).json() as { truncated: boolean; paths: unknown[][] };
    expect(cut.truncated).toBe(true);
    expect(cut.paths).toHaveLength(1);
  });
});
