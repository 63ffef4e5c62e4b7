import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerViewerRoutes, viewerPath } from '../../../src/http/viewer/viewer-routes.js';

/** Serving the built viewer: content types, caching, and nothing outside its directory. */

let base: string;
let viewerDir: string;
const JS = `console.log(${JSON.stringify('x'.repeat(3000))});\n`;

function app(options: { directory?: string; instance?: string } = {}): FastifyInstance {
  const fastify = Fastify({ exposeHeadRoutes: false });
  registerViewerRoutes(fastify, { directory: options.directory ?? viewerDir, instance: options.instance ?? 'microstream' });
  // Stands in for the Java-compatible catch-all route of buildApp.
  fastify.route({ method: ['GET', 'HEAD'], url: '*', handler: async (request) => `catch-all ${request.raw.url ?? ''}` });
  return fastify;
}

beforeAll(() => {
  base = mkdtempSync(path.join(tmpdir(), 'viewer-routes-'));
  viewerDir = path.join(base, 'viewer');
  mkdirSync(path.join(viewerDir, 'assets'), { recursive: true });
  writeFileSync(path.join(viewerDir, 'index.html'), '<!doctype html><title>viewer</title><script type="module" src="./assets/index-AbCdEf12.js"></script>');
  writeFileSync(path.join(viewerDir, 'assets/index-AbCdEf12.js'), JS);
  writeFileSync(path.join(viewerDir, 'assets/index-Zz9_-xY1.css'), 'body{margin:0}');
  writeFileSync(path.join(viewerDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(path.join(base, 'secret.txt'), 'SECRET');
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

describe('viewer routes', () => {
  it('redirects /viewer to /viewer/, keeping the query', async () => {
    const server = app();
    const plain = await server.inject({ url: '/viewer' });
    expect(plain.statusCode).toBe(301);
    expect(plain.headers['location']).toBe('/viewer/');
    const query = await server.inject({ url: '/viewer?api=http://h:4567' });
    expect(query.headers['location']).toBe('/viewer/?api=http://h:4567');
  });

  it('serves index.html for revalidation on every load', async () => {
    const server = app();
    for (const url of ['/viewer/', '/viewer/index.html', '/viewer/?x=1']) {
      const response = await server.inject({ url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['content-security-policy']).toContain("script-src 'self'");
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.body).toContain('<title>viewer</title>');
    }
  });

  it('serves hashed assets as immutable, other files for revalidation', async () => {
    const server = app();
    const js = await server.inject({ url: '/viewer/assets/index-AbCdEf12.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.body).toBe(JS);
    const css = await server.inject({ url: '/viewer/assets/index-Zz9_-xY1.css' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const icon = await server.inject({ url: '/viewer/favicon.svg' });
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it('compresses text when the client accepts gzip, and answers 304 to a matching ETag', async () => {
    const server = app();
    const zipped = await server.inject({ url: '/viewer/assets/index-AbCdEf12.js', headers: { 'accept-encoding': 'br, gzip' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['vary']).toBe('Accept-Encoding');
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(JS);
    const refused = await server.inject({ url: '/viewer/assets/index-AbCdEf12.js', headers: { 'accept-encoding': 'gzip;q=0' } });
    expect(refused.headers['content-encoding']).toBeUndefined();
    const etag = String(zipped.headers['etag']);
    const again = await server.inject({ url: '/viewer/assets/index-AbCdEf12.js', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('answers HEAD without a body', async () => {
    const response = await app().inject({ method: 'HEAD', url: '/viewer/' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
  });

  it('answers 404 for unknown files and for anything that could leave the directory', async () => {
    const server = app();
    const urls = [
      '/viewer/assets/index-00000000.js',
      '/viewer/assets',
      '/viewer/assets/',
      '/viewer/../secret.txt',
      '/viewer/%2e%2e/secret.txt',
      '/viewer/assets/..%2f..%2fsecret.txt',
      '/viewer/..%5csecret.txt',
      '/viewer/%2E%2E%2Fsecret.txt',
      '/viewer/assets/%00.js',
      '/viewer/%E0%A4%A',
      '/viewer//etc/passwd',
      '/viewer/C:%5cWindows',
    ];
    for (const url of urls) {
      const response = await server.inject({ url });
      expect(response.body, url).not.toContain('SECRET');
      if (response.body.startsWith('catch-all')) continue; // fastify normalised it to another route
      if (response.statusCode === 400) continue; // fastify refused the malformed escape itself
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type'], url).toBe('text/plain; charset=utf-8');
    }
  });

  it('says how to build the viewer when it is missing', async () => {
    const server = app({ directory: path.join(base, 'not-built') });
    const response = await server.inject({ url: '/viewer/' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toContain('npm run build');
    expect((await server.inject({ url: '/viewer/assets/index-AbCdEf12.js' })).statusCode).toBe(404);
  });

  it('leaves every other path to the REST routes', async () => {
    const server = app();
    for (const url of ['/microstream/root', '/', '/viewerx', '/microstream/viewer/']) {
      expect((await server.inject({ url })).body, url).toBe(`catch-all ${url}`);
    }
    // An instance named "viewer" keeps its REST routes; there is no web viewer then.
    const named = app({ instance: 'viewer' });
    expect((await named.inject({ url: '/viewer/root' })).body).toBe('catch-all /viewer/root');
  });

  it('maps request paths to files below the viewer directory only', () => {
    expect(viewerPath('/viewer/')).toBe('');
    expect(viewerPath('/viewer/assets/a-12345678.js?v=1')).toBe('assets/a-12345678.js');
    expect(viewerPath('/viewer/a%20b.txt')).toBe('a b.txt');
    for (const bad of ['/viewer/..', '/viewer/a/../b', '/viewer/%2e%2e', '/viewer/a%2fb', '/viewer/a%5cb', '/viewer/a%00', '/viewer/a//b', '/other/x', '/viewer/%zz']) {
      expect(viewerPath(bad), bad).toBeUndefined();
    }
  });
});
