/**
 * The Javalin and Micronaut dialects against the shapes their sources define (EclipseStore's
 * `storage/rest/service-javalin`, micronaut-microstream's `MicroStreamRestController`). Bodies
 * that come from the adapter's Gson converter are compared with the recorded SparkJava answers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { ECLIPSESTORE, MICROSTREAM } from '../../../src/format/storage-family.js';
import { buildApp } from '../../../src/http/app.js';
import { defaultInstance } from '../../../src/http/java/dialects.js';
import { Storage } from '../../../src/storage/storage.js';
import { compareWithCase, CORPORA, expectedBody, loadCases } from '../../helpers/corpora/conformance.js';

const ES = CORPORA.find((c) => c.generation.startsWith('EclipseStore'))!;
const MS8 = CORPORA.find((c) => c.generation === 'MicroStream 8.1')!;
const ROOT_ID = '1000000000000000028';

async function served(dir: string, dialect: 'javalin' | 'micronaut'): Promise<{ storage: Storage; app: FastifyInstance }> {
  const storage = await Storage.open(dir);
  const app = buildApp(storage, { instance: defaultInstance(dialect, storage.family), dialect });
  return { storage, app };
}

describe('default instances', () => {
  it('are the Java defaults of each service for each family', () => {
    expect(defaultInstance('spark', MICROSTREAM)).toBe('microstream');
    expect(defaultInstance('spark', ECLIPSESTORE)).toBe('store-data');
    expect(defaultInstance('javalin', ECLIPSESTORE)).toBe('store-data');
    expect(defaultInstance('micronaut', MICROSTREAM)).toBe('microstream');
    expect(defaultInstance('micronaut', ECLIPSESTORE)).toBe('eclipsestore');
  });
});

describe('--dialect javalin (EclipseStore 4.1 storage)', () => {
  const dir = join(ES.dir, 'storages', 'graph');
  const { cases } = loadCases(join(ES.dir, 'cases', 'graph.jsonl'));
  let storage: Storage;
  let app: FastifyInstance;
  beforeAll(async () => ({ storage, app } = await served(dir, 'javalin')));
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  it('lists its routes at /store-data/ as [{url, httpMethod}], with or without the slash', async () => {
    const expected =
      '[{"url":"/store-data/","httpMethod":"get"},{"url":"/store-data/root","httpMethod":"get"},{"url":"/store-data/dictionary","httpMethod":"get"},' +
      '{"url":"/store-data/object/{oid}","httpMethod":"get"},{"url":"/store-data/maintenance/filesStatistics","httpMethod":"get"}]';
    for (const url of ['/store-data/', '/store-data']) {
      const response = await app.inject({ url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json');
      expect(response.body).toBe(expected);
    }
  });

  it('answers /root through Jackson: a numeric object id; format=text gives toString(), others 400', async () => {
    for (const url of ['/store-data/root', '/store-data/root/', '/store-data/root?format=JSON', '/store-data/root?format=']) {
      const response = await app.inject({ url });
      expect([url, response.statusCode, response.headers['content-type'], response.body]).toEqual([url, 200, 'application/json', `{"name":"ROOT","objectId":${ROOT_ID}}`]);
    }
    const text = await app.inject({ url: '/store-data/root?format=text' });
    expect(text.headers['content-type']).toBe('text/plain');
    expect(text.body).toMatch(/^org\.eclipse\.store\.storage\.restadapter\.types\.ViewerRootDescription@[0-9a-f]+$/);
    const xml = await app.inject({ url: '/store-data/root?format=xml' });
    expect([xml.statusCode, xml.headers['content-type'], xml.body]).toEqual([400, 'text/plain', 'Unsupported format: xml']);
  });

  it('serves the dictionary as text/plain', async () => {
    const response = await app.inject({ url: '/store-data/dictionary' });
    expect(response.headers['content-type']).toBe('text/plain');
    expect(response.rawPayload.equals(readFileSync(join(dir, 'PersistenceTypeDictionary.ptd')))).toBe(true);
  });

  it("answers every object as the adapter's Gson converter does (the recorded bodies)", async () => {
    const objects = cases.filter((c) => c.kind === 'object' && c.status === 200);
    expect(objects.length).toBeGreaterThan(1000);
    for (const c of objects) {
      const response = await app.inject({ url: c.request });
      const actual = { status: response.statusCode, contentType: response.headers['content-type'] as string, body: response.rawPayload };
      expect(compareWithCase(c, '/srv/storages/graph', dir, actual), c.request).toBeUndefined();
    }
    const formatted = await app.inject({ url: `/store-data/object/${ROOT_ID}?format=application/json&references=TRUE` });
    expect(formatted.statusCode).toBe(200);
  });

  it("reports the adapter's and the parameters' errors as 404 text/plain with the same messages", async () => {
    const errors = cases.filter((c) => c.status === 404 && c.request.startsWith('/store-data/object/') && /^(invalid|No entity found)/.test(c.body ?? ''));
    expect(errors.length).toBeGreaterThan(20);
    for (const c of errors) {
      const response = await app.inject({ url: c.request });
      expect([c.request, response.statusCode, response.headers['content-type'], response.body]).toEqual([c.request, 404, 'text/plain', expectedBody(c).toString()]);
    }
    const format = await app.inject({ url: `/store-data/object/${ROOT_ID}?format=xml` });
    expect([format.statusCode, format.body]).toEqual([404, 'invalid url parameter format']);
  });

  it('serves the statistics from the Gson converter', async () => {
    const recorded = cases.find((c) => c.kind === 'filesStatistics' || c.request === '/store-data/maintenance/filesStatistics')!;
    const response = await app.inject({ url: '/store-data/maintenance/filesStatistics' });
    expect(response.headers['content-type']).toBe('application/json');
    const strip = (body: string): string => body.replace(/"creationTime":"[^"]*"/, '').split('/srv/storages/graph/').join(`${dir}/`);
    expect(strip(response.body)).toBe(strip(expectedBody(recorded).toString()));
  });

  it("answers other paths and methods with Javalin's negotiated 404", async () => {
    const plain = await app.inject({ url: '/' });
    expect([plain.statusCode, plain.headers['content-type'], plain.body]).toEqual([404, 'text/plain', 'Endpoint GET / not found']);
    const html = await app.inject({ url: '/microstream/root', headers: { accept: 'text/html,*/*' } });
    expect([html.statusCode, html.headers['content-type'], html.body]).toEqual([404, 'text/html', 'Endpoint GET /microstream/root not found']);
    const json = await app.inject({ url: '/nope', headers: { accept: 'application/json' } });
    expect(json.headers['content-type']).toBe('application/json');
    expect(JSON.parse(json.body)).toEqual({ title: 'Endpoint GET /nope not found', status: 404, type: 'https://javalin.io/documentation#notfoundresponse', details: {} });
    const options = await app.inject({ method: 'OPTIONS', url: '/store-data/root' });
    expect([options.statusCode, options.body]).toEqual([404, 'Endpoint OPTIONS /store-data/root not found']);
    const head = await app.inject({ method: 'HEAD', url: '/store-data/root' });
    expect(head.statusCode).toBe(200);
  });

  it('offers no web viewer (it speaks the default dialect)', async () => {
    expect((await app.inject({ url: '/viewer/' })).statusCode).toBe(404);
  });
});

describe('--dialect micronaut (MicroStream 8.1 storage)', () => {
  const dir = join(MS8.dir, 'storages', 'graph');
  const { cases } = loadCases(join(MS8.dir, 'cases', 'graph.jsonl'));
  let storage: Storage;
  let app: FastifyInstance;
  beforeAll(async () => ({ storage, app } = await served(dir, 'micronaut')));
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  it('answers /root with the object id as a string and the dictionary as raw text', async () => {
    const root = await app.inject({ url: '/microstream/root' });
    expect([root.statusCode, root.headers['content-type'], root.body]).toEqual([200, 'application/json', `{"name":"ROOT","objectId":"${ROOT_ID}"}`]);
    const dictionary = await app.inject({ url: '/microstream/dictionary' });
    expect(dictionary.headers['content-type']).toBe('application/json');
    expect(dictionary.rawPayload.equals(readFileSync(join(dir, 'PersistenceTypeDictionary.ptd')))).toBe(true);
  });

  it('describes every object like the adapter, serialized without HTML escaping', async () => {
    let escaped = 0;
    for (const name of ['graph', 'primitives']) {
      const other = name === 'graph' ? undefined : await served(join(MS8.dir, 'storages', name), 'micronaut');
      const target = other?.app ?? app;
      try {
        const objects = loadCases(join(MS8.dir, 'cases', `${name}.jsonl`)).cases.filter((c) => c.kind === 'object' && c.status === 200);
        for (const c of objects) {
          const response = await target.inject({ url: c.request });
          expect(response.statusCode).toBe(200);
          const withoutHashes = (body: string): unknown => JSON.parse(body.replace(/@[0-9a-f]{1,8}"/g, '@*"'));
          expect(withoutHashes(response.body), c.request).toEqual(withoutHashes(expectedBody(c).toString()));
          if (expectedBody(c).includes('\\u003d')) {
            escaped++;
            expect(response.body).not.toContain('\\u003d');
            expect(response.body).toContain('=');
          }
        }
      } finally {
        await other?.app.close();
        await other?.storage.close();
      }
    }
    expect(escaped).toBeGreaterThan(0);
  });

  it('reports statistics with numbers and a creation time without milliseconds', async () => {
    const response = await app.inject({ url: '/microstream/maintenance/filesStatistics' });
    const statistics = JSON.parse(response.body);
    expect(statistics.creationTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(statistics.fileCount).toBe(21);
    expect(Object.keys(statistics)).toEqual(['fileCount', 'liveDataLength', 'totalDataLength', 'creationTime', 'channelStatistics']);
    const recorded = JSON.parse(expectedBody(cases.find((c) => c.request === '/microstream/maintenance/filesStatistics')!).toString());
    expect(statistics.liveDataLength).toBe(Number(recorded.liveDataLength));
    expect(statistics.channelStatistics['1'].files[0]).toEqual({
      fileCount: 1,
      liveDataLength: Number(recorded.channelStatistics['1'].files[0].liveDataLength),
      totalDataLength: Number(recorded.channelStatistics['1'].files[0].totalDataLength),
      fileNumber: Number(recorded.channelStatistics['1'].files[0].fileNumber),
      file: `${dir}/channel_1/${recorded.channelStatistics['1'].files[0].file.split('/').pop()}`,
    });
  });

  it('converts query values like Micronaut: 400 for a bad number, yes/on for true', async () => {
    const bad = await app.inject({ url: `/microstream/object/${ROOT_ID}?valueLength=abc` });
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(bad.body)._embedded.errors[0]).toEqual({ message: 'Failed to convert argument [valueLength] for value [abc] due to: For input string: "abc"', path: '/valueLength' });
    const withReferences = JSON.parse((await app.inject({ url: `/microstream/object/${ROOT_ID}?references=yes` })).body);
    expect(withReferences.references.length).toBeGreaterThan(0);
    const without = JSON.parse((await app.inject({ url: `/microstream/object/${ROOT_ID}?references=maybe` })).body);
    expect(without.references).toBeNull();
  });

  it("leaves the adapter's exceptions unhandled: 500", async () => {
    for (const url of ['/microstream/object/abc', '/microstream/object/999', `/microstream/object/${ROOT_ID}?fixedOffset=-1`]) {
      const response = await app.inject({ url });
      expect([url, response.statusCode, response.headers['content-type']]).toEqual([url, 500, 'application/json']);
      expect(JSON.parse(response.body).message).toBe('Internal Server Error');
    }
  });

  it('has no route list; unknown paths are 404, other methods 405', async () => {
    for (const url of ['/', '/microstream/', '/microstream']) {
      const response = await app.inject({ url });
      expect([url, response.statusCode, JSON.parse(response.body)._embedded.errors[0].message]).toEqual([url, 404, 'Page Not Found']);
    }
    const options = await app.inject({ method: 'OPTIONS', url: '/microstream/root' });
    expect([options.statusCode, options.headers['allow']]).toEqual([405, 'HEAD,GET']);
  });
});
