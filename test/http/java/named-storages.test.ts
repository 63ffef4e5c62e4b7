/**
 * Several storages in one process: each under `/{instance}/{name}/...` answering exactly as it
 * answers alone under `/{instance}/...` (the recorded corpora replayed through the named paths),
 * the single-storage routes only when one storage is served, SparkJava's route list of all, a
 * storage that could not be opened answered 503 while the others serve, and `/api/v1` by name.
 */
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { storageNameProblem } from '../../../src/http/java/named-routes.js';
import type { StorageRegistry } from '../../../src/registry/storage-registry.js';
import type { Storage } from '../../../src/storage/storage.js';
import { parseStorageSpecs } from '../../../src/cli/commands/serve-storages.js';
import { UsageError } from '../../../src/errors.js';
import { compareWithCase, CORPORA, loadCases, type RecordedCase } from '../../helpers/corpora/conformance.js';
import { rawRequest } from '../../helpers/serving/raw-http.js';
import { registeredStorages } from '../../helpers/serving/registered-storage.js';

const MS41 = CORPORA[0]!;
const ES = CORPORA.find((c) => c.generation.startsWith('EclipseStore'))!;

interface Served {
  readonly registry: StorageRegistry;
  readonly app: FastifyInstance;
  readonly port: number;
  readonly storages: readonly Storage[];
  readonly agent: Agent;
  close(): Promise<void>;
}

async function serveNamed(named: readonly [string, string][], unavailable: readonly string[] = []): Promise<Served> {
  const registered = await registeredStorages(Object.fromEntries(named), (storage) => ({ instance: storage.family.defaultInstance }));
  const { registry, storages } = registered;
  for (const name of unavailable) registry.addUnavailable({ name, instance: undefined, reason: `${name}: no such directory` });
  const app = buildApp(storages[0]!, { instance: storages[0]!.family.defaultInstance, api: registry });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  return {
    registry,
    app,
    port: (app.server.address() as AddressInfo).port,
    storages,
    agent,
    close: async () => {
      agent.destroy();
      await app.close();
      await registered.close();
    },
  };
}

function get(served: Served, url: string, headers: Record<string, string> = {}): ReturnType<typeof rawRequest> {
  return rawRequest(served.agent, served.port, 'GET', url, { Host: '127.0.0.1:4567', ...headers });
}

describe('storage names', () => {
  it('are parsed from NAME=DIR, and refused when they could be taken for routes', () => {
    expect(parseStorageSpecs(['dir'])).toEqual([{ name: undefined, directory: 'dir' }]);
    expect(parseStorageSpecs(['shop=/data/shop', 'lab=./lab'])).toEqual([
      { name: 'shop', directory: '/data/shop' },
      { name: 'lab', directory: './lab' },
    ]);
    expect(parseStorageSpecs(['./a=b'])).toEqual([{ name: undefined, directory: './a=b' }]);
    expect(parseStorageSpecs(['postgres://u@h/db?sslmode=disable'])).toEqual([{ name: undefined, directory: 'postgres://u@h/db?sslmode=disable' }]);
    expect(parseStorageSpecs(['pg=postgres://u@h/db'])).toEqual([{ name: 'pg', directory: 'postgres://u@h/db' }]);
    for (const bad of [[], ['a=x', 'a=y'], ['a=x', 'plain'], ['root=x'], ['a=']]) {
      expect(() => parseStorageSpecs(bad), bad.join(' ')).toThrow(UsageError);
    }
    expect(storageNameProblem('shop-2.eu_1')).toBeUndefined();
    expect(storageNameProblem('object')).toMatch(/route/);
  });
});

describe('two storages: MicroStream 4.1 "shop" and EclipseStore "lab"', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serveNamed(
      [
        ['shop', join(MS41.dir, 'storages', 'graph')],
        ['lab', join(ES.dir, 'storages', 'primitives')],
      ],
      ['gone'],
    );
  });
  afterAll(async () => served.close());

  async function replayUnder(corpus: typeof MS41, storage: string, name: string): Promise<{ failures: string[]; replayed: number }> {
    const { header, cases } = loadCases(join(corpus.dir, 'cases', `${storage}.jsonl`));
    const prefix = `/${header.instance}/`;
    const failures: string[] = [];
    let replayed = 0;
    for (const c of cases) {
      // Only requests below the instance; the route list and Spark's path quirks at the instance level are the single storage's.
      if (!c.request.startsWith(prefix) || c.kind === 'routes' || c.kind === 'routing') continue;
      const request = `${prefix}${name}/${c.request.slice(prefix.length)}`;
      const named: RecordedCase = { ...c, request };
      const response = await rawRequest(served.agent, served.port, c.method, request, { Host: header.host, ...(c.headers ?? {}) });
      const problem = compareWithCase(named, header.storageDir, join(corpus.dir, 'storages', storage), response);
      replayed++;
      if (problem !== undefined) failures.push(`${c.method} ${request}: ${problem}`);
    }
    return { failures, replayed };
  }

  it('answers every recorded request of the MicroStream storage under /microstream/shop/ as it was recorded', async () => {
    const { failures, replayed } = await replayUnder(MS41, 'graph', 'shop');
    expect(replayed).toBeGreaterThan(2000);
    expect(failures.slice(0, 5)).toEqual([]);
  });

  it('answers every recorded request of the EclipseStore storage under /store-data/lab/ as it was recorded', async () => {
    const { failures, replayed } = await replayUnder(ES, 'primitives', 'lab');
    expect(replayed).toBeGreaterThan(1000);
    expect(failures.slice(0, 5)).toEqual([]);
  });

  it('lists every storage in the route list, / once, and has no single-storage routes', async () => {
    const list = JSON.parse((await get(served, '/')).body.toString()) as { URL: string }[];
    const urls = list.map((e) => e.URL);
    expect(urls.filter((u) => u === '127.0.0.1:4567/')).toHaveLength(1);
    expect(urls).toContain('127.0.0.1:4567/microstream/shop/root');
    expect(urls).toContain('127.0.0.1:4567/store-data/lab/object/:oid');
    expect(urls).toHaveLength(9);
    expect((await get(served, '/microstream/root')).status).toBe(404);
    expect((await get(served, '/store-data/root')).status).toBe(404);
    expect((await get(served, '/microstream/nobody/root')).status).toBe(404);
    // OPTIONS documentation at the named literal path.
    const doc = await rawRequest(served.agent, served.port, 'OPTIONS', '/store-data/lab/object/:oid', { Host: 'x' });
    expect(doc.body.toString()).toContain('org.eclipse.storage.restadapter.types.ViewerRootDescription');
  });

  it('answers 503 for a storage that could not be opened, naming why, under any instance', async () => {
    for (const url of ['/microstream/gone/root', '/store-data/gone/object/1']) {
      const response = await get(served, url);
      expect(response.status).toBe(503);
      expect(response.body.toString()).toBe('the storage gone is not served: gone: no such directory\n');
    }
    expect((await get(served, '/microstream/shop/root')).status).toBe(200);
  });

  it('serves /api/v1 by storage name from the same registry', async () => {
    const shop = await served.app.inject({ url: '/api/v1/storages/shop/storage' });
    const lab = await served.app.inject({ url: '/api/v1/storages/lab/storage' });
    expect([shop.statusCode, shop.json().name, shop.json().entities]).toEqual([200, 'shop', served.storages[0]!.entityCount]);
    expect([lab.statusCode, lab.json().name, lab.json().entities]).toEqual([200, 'lab', served.storages[1]!.entityCount]);
    expect((await served.app.inject({ url: '/api/v1/storages/gone/storage' })).statusCode).toBe(404);
  });
});

describe('one storage given by name', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serveNamed([['shop', join(MS41.dir, 'storages', 'noroot')]]);
  });
  afterAll(async () => served.close());

  it('answers under its name and under the single-storage routes, with the single route list', async () => {
    const named = await get(served, '/microstream/shop/dictionary');
    const single = await get(served, '/microstream/dictionary');
    expect([named.status, single.status]).toEqual([200, 200]);
    expect(named.body.equals(single.body)).toBe(true);
    const list = JSON.parse((await get(served, '/')).body.toString()) as { URL: string }[];
    expect(list.map((e) => e.URL)).toContain('127.0.0.1:4567/microstream/root');
  });
});

describe('dialects with named storages', () => {
  it('micronaut: /microstream/{name}/root, and no single routes with two storages', async () => {
    const registered = await registeredStorages({ people: join(MS41.dir, 'storages', 'noroot'), towns: join(MS41.dir, 'storages', 'graph') }, () => ({ instance: 'microstream' }));
    const app = buildApp(registered.storages[0]!, { instance: 'microstream', api: registered.registry, dialect: 'micronaut' });
    try {
      expect((await app.inject({ url: '/microstream/towns/root' })).body).toBe('{"name":"ROOT","objectId":"1000000000000000028"}');
      expect((await app.inject({ url: '/microstream/people/root' })).body).toBe('{"name":"ROOT","objectId":"0"}');
      const single = await app.inject({ url: '/microstream/root' });
      expect([single.statusCode, single.headers['content-type']]).toEqual([404, 'application/json']);
    } finally {
      await app.close();
      await registered.close();
    }
  });
});
