import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Serves the built web viewer (viewer/ → dist/viewer/) at /viewer/. These are the only routes
 * besides the Java-compatible catch-all; find-my-way prefers the static `/viewer` prefix, so
 * nothing else changes. `index.html` is revalidated on every load (`no-cache`), the hashed
 * files under `assets/` are cached for a year (`immutable`). Only files inside the viewer
 * directory are ever read.
 */

export interface ViewerRouteOptions {
  /** Directory holding the built viewer (index.html, assets/); found next to the code by default. */
  readonly directory?: string | undefined;
  /** The REST instance name: an instance called `viewer` keeps its routes and gets no viewer. */
  readonly instance?: string | undefined;
}

export const VIEWER_PREFIX = '/viewer';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.map', '.svg', '.txt']);
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';
/** Files built by Vite with a content hash in their name (`index-DMeefbzi.js`). */
const HASHED = /^assets\/[^/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;
const INDEX_CSP = [
  "default-src 'self'",
  // `?api=` may point the viewer at another REST service (e.g. a Java one that allows CORS).
  'connect-src *',
  "img-src 'self' data:",
  "style-src 'self'",
  // The SQL editor (CodeMirror) sets a few style attributes (tab size, tooltip places); style
  // elements and sheets stay limited to our own files.
  "style-src-attr 'unsafe-inline'",
  "script-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
const NOT_BUILT =
  'The web viewer is not built. Run "npm run build" (or "npm run build:viewer") in the storage-inspector directory, then reload this page.\n';

/** dist/viewer next to the compiled code (dist/http/…), or from the sources (src/http/…). */
export function defaultViewerDirectory(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, '../../viewer'), path.resolve(here, '../../../dist/viewer')];
  return candidates.find((dir) => existsSync(path.join(dir, 'index.html'))) ?? candidates[candidates.length - 1] ?? here;
}

interface CachedFile {
  readonly mtimeMs: number;
  readonly size: number;
  readonly etag: string;
  readonly body: Buffer;
  gzip: Buffer | undefined;
}

export function registerViewerRoutes(app: FastifyInstance, options: ViewerRouteOptions = {}): void {
  if (options.instance === 'viewer') return;
  const directory = path.resolve(options.directory ?? defaultViewerDirectory());
  const cache = new Map<string, CachedFile>();

  const load = async (file: string): Promise<CachedFile | undefined> => {
    let info;
    try {
      info = await stat(file);
    } catch {
      return undefined;
    }
    if (!info.isFile()) return undefined;
    const known = cache.get(file);
    if (known !== undefined && known.mtimeMs === info.mtimeMs && known.size === info.size) return known;
    const body = await readFile(file);
    const entry: CachedFile = { mtimeMs: info.mtimeMs, size: info.size, etag: `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`, body, gzip: undefined };
    cache.set(file, entry);
    return entry;
  };

  const sendFile = async (request: FastifyRequest, reply: FastifyReply, relative: string): Promise<FastifyReply> => {
    const file = path.join(directory, ...relative.split('/'));
    const entry = await load(file);
    if (entry === undefined) {
      if (relative === 'index.html') {
        return reply.code(503).header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT);
      }
      return notFound(reply);
    }
    const ext = path.extname(file).toLowerCase();
    reply.header('content-type', CONTENT_TYPES[ext] ?? 'application/octet-stream');
    reply.header('cache-control', HASHED.test(relative) ? IMMUTABLE : REVALIDATE);
    reply.header('etag', entry.etag);
    reply.header('x-content-type-options', 'nosniff');
    if (relative === 'index.html') {
      reply.header('content-security-policy', INDEX_CSP);
      reply.header('referrer-policy', 'no-referrer');
    }
    const compressible = COMPRESSIBLE.has(ext) && entry.size > 1024;
    if (compressible) reply.header('vary', 'Accept-Encoding');
    if (matchesEtag(request.headers['if-none-match'], entry.etag)) return reply.code(304).send();
    if (request.method === 'HEAD') return reply.code(200).header('content-length', entry.size).send();
    if (compressible && acceptsGzip(request.headers['accept-encoding'])) {
      entry.gzip ??= gzipSync(entry.body, { level: 9 });
      reply.header('content-encoding', 'gzip');
      return reply.code(200).send(entry.gzip);
    }
    return reply.code(200).send(entry.body);
  };

  app.route({
    method: ['GET', 'HEAD'],
    url: VIEWER_PREFIX,
    handler: async (request, reply) => {
      const url = request.raw.url ?? VIEWER_PREFIX;
      const query = url.includes('?') ? url.slice(url.indexOf('?')) : '';
      return reply.code(301).header('location', `${VIEWER_PREFIX}/${query}`).header('cache-control', 'no-cache').send();
    },
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: `${VIEWER_PREFIX}/*`,
    handler: async (request, reply) => {
      const relative = viewerPath(request.raw.url ?? '');
      if (relative === undefined) return notFound(reply);
      return sendFile(request, reply, relative === '' ? 'index.html' : relative);
    },
  });
}

/**
 * The file path below the viewer directory for a request target, or undefined for anything that
 * could leave it (`..`, encoded slashes or backslashes, NUL, empty segments).
 */
export function viewerPath(url: string): string | undefined {
  const pathPart = url.split('?')[0]?.split('#')[0] ?? '';
  if (!pathPart.startsWith(`${VIEWER_PREFIX}/`)) return undefined;
  const rest = pathPart.slice(VIEWER_PREFIX.length + 1);
  if (rest === '') return '';
  const segments: string[] = [];
  for (const raw of rest.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment === '' || segment === '.' || segment === '..' || /[/\\\0]/.test(segment) || segment.includes(':')) return undefined;
    segments.push(segment);
  }
  const relative = segments.join('/');
  const resolved = path.posix.normalize(relative);
  if (resolved !== relative || resolved.startsWith('../') || path.isAbsolute(resolved)) return undefined;
  return relative;
}

function notFound(reply: FastifyReply): FastifyReply {
  return reply.code(404).header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-cache').send('Not found\n');
}

function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  return value.split(',').some((part) => {
    const [coding = '', ...params] = part.trim().toLowerCase().split(';');
    if (coding.trim() !== 'gzip') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

function matchesEtag(header: string | string[] | undefined, etag: string): boolean {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value === undefined) return false;
  return value.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}
