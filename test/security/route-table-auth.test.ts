import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAuthConfig } from '../../src/http/guard/auth.js';
import { buildApp } from '../../src/http/app.js';
import { StorageRegistry } from '../../src/registry/storage-registry.js';
import { Storage } from '../../src/storage/storage.js';
import { corpusStorage, send } from './server.js';
import { listenOnLoopback } from '../helpers/serving/loopback.js';

/**
 * Authorisation over the route table itself: every route fastify registers (onRoute), with every
 * method it takes, for the default storage and every named one, and every Java-compatible route
 * the OpenAPI document lists (they live behind one catch-all), is asked without credentials and
 * with wrong ones (401 each) and with the token (anything but 401). A route added tomorrow is in
 * the table tomorrow, and so in this test. `/api/v1`'s routes, registered when it loads on its first
 * request, come from the document that its instance writes as it registers them.
 */

const TOKEN = 'r0ute-t4ble-9f2c1d0e8b7a6f5e4d3c2b1a0f9e8d';
const NAMES = ['alpha', 'beta'];
const OBJECT = '1000000000000000028';

let storage: Storage;
let registry: StorageRegistry;
let app: ReturnType<typeof buildApp>;
let port: number;
const routes: RouteOptions[] = [];

beforeAll(async () => {
  storage = await Storage.open(corpusStorage('graph'));
  registry = new StorageRegistry();
  // Several named storages: the API's /storages/{name} routes and the Java routes by name.
  for (const name of NAMES) registry.add(name, storage, {}, { instance: 'microstream' });
  const auth = loadAuthConfig({ env: { STORAGE_INSPECTOR_TOKEN: TOKEN }, warn: () => undefined });
  app = buildApp(storage, { instance: 'microstream', api: registry, auth });
  // Routes are registered in plugins that load at ready(): this hook sees every one of them.
  app.addHook('onRoute', (route) => void routes.push(route));
  port = await listenOnLoopback(app);
  registry.startAll();
  for (const name of NAMES) await registry.get(name)!.graph.ready();
});

afterAll(async () => {
  await app.close();
  await registry.close();
  await storage.close();
});

/** Values for the parameters of a route: each storage name, a stored object, a type, a version. */
function expand(url: string): string[] {
  let urls = [url];
  const fill = (pattern: RegExp, values: readonly string[]): void => {
    urls = urls.flatMap((u) => (pattern.test(u) ? values.map((v) => u.replace(pattern, v)) : [u]));
  };
  fill(/:storage|\{storage\}|\{storageName\}|\{name\}/, NAMES);
  fill(/:oid|\{oid\}|\{objectId\}/, [OBJECT]);
  fill(/:typeId|\{typeId\}/, ['30']);
  fill(/:n\b|\{n\}/, ['0']);
  fill(/:entityId|\{entityId\}/, ['0']);
  fill(/:index\b|\{index\}/, ['city']);
  // A commit's timestamp (any number: a commit that is not there answers 404 behind the same check).
  fill(/:timestamp\b|\{timestamp\}/, ['1']);
  fill(/\*$/, ['index.html']);
  for (const u of urls) expect(u, `a parameter of ${url} has no value`).not.toMatch(/[:{}*]/);
  return urls;
}

/** Every (method, target) of the route table; the Java routes behind the catch-all from the document. */
async function targets(): Promise<[string, string][]> {
  const out: [string, string][] = [];
  const document = JSON.parse((await send(port, 'GET', '/openapi.json', { Authorization: `Bearer ${TOKEN}` })).body.toString()) as { paths: Record<string, Record<string, unknown>> };
  for (const route of routes) {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.url === '*') {
      // The catch-all: the Java-compatible routes, for the default storage and for each name.
      for (const [path, operations] of Object.entries(document.paths)) {
        if (!path.startsWith('/microstream') && path !== '/') continue;
        for (const method of Object.keys(operations)) {
          for (const target of expand(path)) {
            out.push([method.toUpperCase(), target]);
            if (target.startsWith('/microstream/')) for (const name of NAMES) out.push([method.toUpperCase(), target.replace('/microstream/', `/microstream/${name}/`)]);
          }
        }
      }
      continue;
    }
    if (route.url === '/api/v1/*') {
      // /api/v1 loads on its first request (lazy-api-v1.ts): its routes live in an instance of
      // their own, which documents every route it registers in this document.
      for (const [path, operations] of Object.entries(document.paths)) {
        if (!path.startsWith('/api/v1/')) continue;
        for (const method of Object.keys(operations)) for (const target of expand(path)) out.push([method.toUpperCase(), target]);
      }
      continue;
    }
    for (const method of methods) for (const target of expand(route.url)) out.push([method, target]);
  }
  return out;
}

describe('every route of the route table', () => {
  it('needs credentials, and answers with them', { timeout: 120_000 }, async () => {
    const all = await targets();
    // The table holds what the hand-written lists missed: the API's object routes, by storage name too, and named Java routes.
    const seen = new Set(all.map(([m, t]) => `${m} ${t}`));
    for (const expected of [`GET /api/v1/objects/${OBJECT}`, `GET /api/v1/storages/beta/objects/${OBJECT}/paths`, 'GET /microstream/alpha/root', 'GET /viewer/index.html', 'GET /metrics', 'GET /health']) {
      expect([...seen], expected).toContain(expected);
    }
    expect(all.length).toBeGreaterThan(60);
    const failures: string[] = [];
    for (const [method, target] of all) {
      const bare = await send(port, method, target);
      if (bare.status !== 401) failures.push(`${method} ${target} without credentials: ${bare.status}`);
      const wrong = await send(port, method, target, { Authorization: `Bearer ${TOKEN}x` });
      if (wrong.status !== 401) failures.push(`${method} ${target} with a wrong token: ${wrong.status}`);
      const right = await send(port, method, target, { Authorization: `Bearer ${TOKEN}` });
      if (right.status === 401) failures.push(`${method} ${target} with the token: 401`);
    }
    expect(failures).toEqual([]);
  });
});
