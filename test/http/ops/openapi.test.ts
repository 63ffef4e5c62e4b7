import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { compileErrors, validate } from '@readme/openapi-parser';
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { CHROMIUM_PATH, launchBrowser, REPO_ROOT } from '../../viewer/browser.js';
import { describeInBrowser } from '../../viewer/browser-suite.js';
import { corpusStorage, send } from '../../security/server.js';
import { registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';
import { listenOnLoopback } from '../../helpers/serving/loopback.js';

/** The OpenAPI document: valid OpenAPI 3.1, complete (every route), and true to what is answered. */

interface Document {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: { enum?: string[]; const?: string } }> }> }>>;
}

/** fastify's `/a/:b` and `/a/*` as OpenAPI paths (`/a/{b}`, `/a/{*}`, as @fastify/swagger writes them). */
function openApiPath(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{*}');
}

let registered: RegisteredStorage;
let app: ReturnType<typeof buildApp>;
let port: number;
const routes: RouteOptions[] = [];
let doc: Document;

beforeAll(async () => {
  registered = await registeredStorage(corpusStorage('graph'));
  app = buildApp(registered.storage, { instance: 'microstream', api: registered.registry, sql: {} });
  // Routes are registered in plugins that load at ready(): this hook sees every one of them.
  app.addHook('onRoute', (route) => void routes.push(route));
  port = await listenOnLoopback(app);
  const answer = await send(port, 'GET', '/openapi.json');
  expect(answer.status).toBe(200);
  doc = JSON.parse(answer.body.toString()) as Document;
});
afterAll(async () => {
  await app.close();
  await registered.close();
});

async function checkValid(document: Document): Promise<void> {
  const result = await validate(structuredClone(document) as never);
  expect(result.valid, compileErrors(result)).toBe(true);
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    await checkValid(doc);
  });

  it('describes every registered route with each of its methods', () => {
    expect(routes.length).toBeGreaterThan(5);
    const hidden: string[] = [];
    for (const route of routes) {
      const url = route.url;
      if ((route.schema as { hide?: boolean } | undefined)?.hide === true) {
        hidden.push(url);
        continue;
      }
      const item = doc.paths[openApiPath(url)];
      expect(item, url).toBeDefined();
      for (const method of [route.method].flat()) expect(Object.keys(item!), `${method} ${url}`).toContain(method.toLowerCase());
    }
    // Hidden: the catch-all that carries the Java routes (described path by path), the page's own
    // files, and /api/v1's catch-all for unknown paths (problem+json 404/405).
    for (const url of hidden) expect(url === '*' || url.startsWith('/docs') || url === '/api/v1/*', url).toBe(true);
    expect(hidden).toContain('*');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/objects/{oid}/referrers', '/api/v1/openapi.json', '/health', '/metrics']));
  });

  it('describes the Java-compatible routes served by the catch-all, with their answers', async () => {
    for (const path of ['/', '/microstream/root', '/microstream/dictionary', '/microstream/object/{oid}', '/microstream/maintenance/filesStatistics']) {
      expect(Object.keys(doc.paths[path] ?? {}).sort(), path).toEqual(['get', 'options']);
    }
    // The texts the document lists are the ones answered.
    const objectErrors = doc.paths['/microstream/object/{oid}']!['get']!.responses['404']!.content!['text/html;charset=utf-8']!.schema!.enum!;
    const asked = {
      'invalid url parameter ObjectId': '/microstream/object/abc',
      'invalid url parameter fixedOffset': '/microstream/object/1000000000000000028?fixedOffset=x',
      'invalid parameter fixedOffset': '/microstream/object/1000000000000000028?fixedOffset=-1',
      'invalid url parameter references': '/microstream/object/1000000000000000028?references=yes',
      'invalid url parameter format': '/microstream/object/1000000000000000028?format=xml',
      'No entity found for objectId 1000000000000099999': '/microstream/object/1000000000000099999',
    };
    expect(Object.keys(asked).sort()).toEqual([...objectErrors].sort());
    for (const [text, target] of Object.entries(asked)) {
      const answer = await send(port, 'GET', target);
      expect(answer.status, target).toBe(404);
      expect(answer.headers['content-type']).toBe('text/html;charset=utf-8');
      expect(answer.body.toString()).toBe(text);
    }
    const pageNotFound = doc.paths['/']!['get']!.responses['404']!.content!['text/html;charset=utf-8']!.schema!.const;
    expect((await send(port, 'GET', '/', { Accept: 'text/html;q=0' })).body.toString()).toBe(pageNotFound);
  });

  it('has its /api/v1 part at /api/v1/openapi.json', async () => {
    const answer = await send(port, 'GET', '/api/v1/openapi.json');
    const part = JSON.parse(answer.body.toString()) as Document & { info: { title: string } };
    await checkValid(part);
    expect(part.info.title).toBe('storage-inspector API');
    expect(Object.keys(part.paths).sort()).toEqual(Object.keys(doc.paths).filter((p) => p.startsWith('/api/v1/')).sort());
  });

  it('serves the reading page from the package, without any external resource', async () => {
    const page = await send(port, 'GET', '/docs/');
    expect(page.status).toBe(200);
    const html = page.body.toString();
    expect(html).toContain('swagger-ui-bundle.js');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect((await send(port, 'GET', '/docs/static/swagger-ui-bundle.js')).status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'self'/);
    // Over plain HTTP the browser would fetch the page's own assets over https (and find nothing).
    expect(page.headers['content-security-policy']).not.toMatch(/upgrade-insecure-requests/);
  });
});

describe('/docs, answered by the documentation server made on first request', () => {
  it('answers what @fastify/swagger-ui answers: GET pages, GET and HEAD files, a redirect, 304, and this server\'s 404 for the rest', async () => {
    const file = await send(port, 'GET', '/docs/static/swagger-ui.css');
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(Number(file.headers['content-length'])).toBe(file.body.length);
    // HEAD: the file's headers (its length), no body.
    const head = await send(port, 'HEAD', '/docs/static/swagger-ui.css');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(file.headers['content-length']);
    expect(head.body.length).toBe(0);
    // A cached file: 304 without a body.
    const again = await send(port, 'GET', '/docs/static/swagger-ui.css', { 'If-None-Match': String(file.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    // The plugin's redirect of its own index.html, with no body and no content type of ours.
    const redirect = await send(port, 'GET', '/docs/static/index.html');
    expect(redirect.status).toBe(302);
    expect(redirect.headers['content-type']).toBeUndefined();
    // What the page does not have is this server's not-found answer (the Java 404 page), as for any unknown path.
    const unknown = await send(port, 'GET', '/not-documented-anywhere');
    for (const target of ['/docs/nothing', '/docs/static/nothing.js']) {
      const missing = await send(port, 'GET', target);
      expect(missing.status, target).toBe(404);
      expect(missing.headers['content-type'], target).toBe(unknown.headers['content-type']);
      expect(missing.body.toString(), target).toBe(unknown.body.toString());
    }
    // The pages are GET only (HEAD of a page goes to the Java routes, as before), the document is the same object.
    expect((await send(port, 'HEAD', '/docs/')).status).toBe(404);
    expect(JSON.parse((await send(port, 'GET', '/docs/json')).body.toString())).toEqual(doc);
  });
});

describeInBrowser(`/docs in ${CHROMIUM_PATH}`, () => {
  it('renders every route of the document', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      const requested: string[] = [];
      page.on('request', (request) => void requested.push(request.url()));
      await page.goto(`http://127.0.0.1:${port}/docs/`);
      await page.locator('.swagger-ui .info .title').filter({ hasText: 'storage-inspector' }).waitFor();
      for (const path of ['/microstream/object/{oid}', '/health', '/ready', '/metrics', '/openapi.json']) {
        await expect(page.locator(`.opblock-summary-path[data-path="${path}"]`).first().isVisible()).resolves.toBe(true);
      }
      const dir = path.join(REPO_ROOT, 'test-artifacts/operations');
      mkdirSync(dir, { recursive: true });
      await page.screenshot({ path: path.join(dir, 'docs.png'), fullPage: false });
      expect(requested.filter((url) => !url.startsWith(`http://127.0.0.1:${port}/`))).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});

describeInBrowser(`/docs under a host name other than loopback, over plain HTTP, in ${CHROMIUM_PATH}`, () => {
  it('loads its assets and renders', async () => {
    // A name that is not loopback (a LAN or container name), resolved to this server by the browser.
    const browser = await launchBrowser(undefined, ['--host-resolver-rules=MAP inspector.test 127.0.0.1']);
    try {
      const page = await browser.context.newPage();
      const failed: string[] = [];
      page.on('requestfailed', (request) => void failed.push(request.url()));
      await page.goto(`http://inspector.test:${port}/docs/`);
      await page.locator('.swagger-ui .info .title').filter({ hasText: 'storage-inspector' }).waitFor({ timeout: 15_000 });
      expect(failed).toEqual([]);
      const dir = path.join(REPO_ROOT, 'test-artifacts/operations');
      mkdirSync(dir, { recursive: true });
      await page.screenshot({ path: path.join(dir, 'docs-host-name.png'), fullPage: false });
    } finally {
      await browser.close();
    }
  });
});

describe('the document in the other dialects', () => {
  it.each(['javalin', 'micronaut'] as const)('lists the %s routes and stays valid', async (dialect) => {
    const other = buildApp(registered.storage, { instance: 'store-data', dialect });
    try {
      const answer = await other.inject({ method: 'GET', url: '/openapi.json' });
      expect(answer.statusCode).toBe(200);
      const document = answer.json() as Document;
      await checkValid(document);
      const java = Object.keys(document.paths).filter((p) => p.startsWith('/store-data'));
      const expected = ['/store-data/root', '/store-data/dictionary', '/store-data/object/{oid}', '/store-data/maintenance/filesStatistics'];
      expect(java.sort()).toEqual((dialect === 'javalin' ? [...expected, '/store-data/'] : expected).sort());
      expect(document.paths['/']).toBeUndefined();
      expect(document.paths['/viewer/{*}']).toBeUndefined();
      // Requests are counted under the dialect's route templates.
      await other.inject({ method: 'GET', url: '/store-data/object/1000000000000000028' });
      const metrics = (await other.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toContain('storage_inspector_http_requests_total{route="/store-data/object/{oid}",method="GET",status="200"} 1');
    } finally {
      await other.close();
    }
  });
});
