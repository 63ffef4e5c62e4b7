import type { FastifyError, FastifyInstance } from 'fastify';
import { STATUS_CODES } from 'node:http';
import { isAppError } from '../../errors.js';
import { RequestLimitError } from '../guard/limits.js';
import { ClientGone } from '../guard/streamed-room.js';
import type { StorageRegistry } from '../../registry/storage-registry.js';
import { analysisRoutes } from './analysis/analysis-routes.js';
import { gigaMapRoutes } from './gigamap/gigamap-routes.js';
import { historyRoutes } from './history/history-routes.js';
import { objectRoutes } from './objects/object-routes.js';
import { ApiProblem, sendProblem } from './machinery/problem-details.js';
import { API_PREFIX } from '../../api-contract/schemas.js';
import { registerRoute, type AnswerAdmission } from './machinery/routing.js';
import { searchRoutes } from './search/search-route.js';
import { searchSlotsOf } from './search/search-slots.js';
import { closeSqlEngines, type SqlServiceOptions } from './sql/sql-engines.js';
import { sqlRoutes } from './sql/sql-routes.js';
import { storageRoutes } from './objects/storage-routes.js';
import { registerStoragesRoute } from './objects/storages-route.js';
import { summaryRoutes } from './analysis/summaries.js';
import { versionRoutes } from './objects/version-routes.js';
import { API_INFO, API_TAGS } from './machinery/api-tags.js';

export { API_INFO, API_TAGS } from './machinery/api-tags.js';

/**
 * Our own JSON API under `/api/v1`, as one encapsulated fastify plugin: its routes, their
 * schemas (which validate, serialize and make up the OpenAPI document at
 * `/api/v1/openapi.json`), and one error handler that answers every failure as
 * `application/problem+json`. Access control, CORS and connection limits are the application's
 * (hooks on the root instance cover these routes too).
 */

export interface ApiV1Options {
  readonly registry: StorageRegistry;
  /** Requests still running after this many milliseconds are answered 503 (0: no limit). */
  readonly requestTimeoutMs: number;
  /** The budget of unsent answers every answer waits for (--max-unsent-bytes). */
  readonly admission?: AnswerAdmission | undefined;
  /** SQL limits, or false: POST /api/v1/sql answers 404 (--no-sql). */
  readonly sql?: SqlServiceOptions | false;
  /** Searches running at once (--search-max-concurrent); more are refused 503. Unset: the default, or what an earlier registration over the same registry set. */
  readonly searchMaxConcurrent?: number | undefined;
}

interface OpenApiDocument {
  readonly info: Record<string, unknown>;
  readonly tags?: readonly { readonly name: string }[];
  readonly paths: Record<string, unknown>;
}

/** The /api/v1 part of the application's document: its paths and tags, the same components. */
function apiDocument(document: OpenApiDocument): OpenApiDocument {
  const apiTags = new Set(API_TAGS.map((t) => t.name));
  return {
    ...document,
    info: { ...document.info, ...API_INFO },
    tags: (document.tags ?? []).filter((t) => apiTags.has(t.name)),
    paths: Object.fromEntries(Object.entries(document.paths).filter(([path]) => path.startsWith(`${API_PREFIX}/`))),
  };
}

export async function apiV1Plugin(scope: FastifyInstance, options: ApiV1Options): Promise<void> {
  scope.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiProblem) {
      reply.headers(error.headers);
      return sendProblem(reply, error.status, error.title, error.message, error.extra);
    }
    if (error.validation !== undefined) return sendProblem(reply, 400, 'Bad Request', error.message);
    if (error instanceof ClientGone) {
      // Not the server's failure: no error line, no 5xx. Its connection is gone, so fastify's
      // request line and the metrics (both at the answer's finish) never see it: this line does.
      request.log.debug({ url: request.url }, error.message);
      return sendProblem(reply, 499, 'Cancelled', error.message);
    }
    if (error instanceof RequestLimitError) {
      if (error.code === 'SERVER_BUSY') reply.header('retry-after', '1');
      return sendProblem(reply, error.status, error.code === 'SERVER_BUSY' ? 'Server Busy' : 'Service Unavailable', error.message);
    }
    if (isAppError(error) && error.code === 'STORAGE_FILE_GONE') {
      reply.header('retry-after', '1');
      return sendProblem(reply, 503, 'Storage Changed', `${error.message}; ask again`);
    }
    if (isAppError(error) && error.code.startsWith('FORMAT_')) return sendProblem(reply, 500, 'Unreadable Record', error.message);
    // fastify's own refusals of what the client sent (a body over its limit, an unparsable media
    // type, an empty JSON body) keep their 4xx status: they are the client's, not a failure here.
    const status = error.statusCode;
    // A DOMException's code is a number: `code?.startsWith` threw, and fastify's default handler answered unlogged.
    if (typeof error.code === 'string' && error.code.startsWith('FST_ERR_') && status !== undefined && status >= 400 && status < 500) {
      return sendProblem(reply, status, STATUS_CODES[status] ?? 'Bad Request', error.message);
    }
    request.log.error({ err: error, url: request.url }, 'request failed');
    return sendProblem(reply, 500, 'Internal Server Error', error.message);
  });

  // The search slots are the registry's, shared with every other API instance over it (the MCP tools').
  searchSlotsOf(options.registry, options.searchMaxConcurrent);
  registerStoragesRoute(scope, options.registry);
  for (const route of [...storageRoutes, ...objectRoutes, ...summaryRoutes, ...versionRoutes, ...analysisRoutes, ...searchRoutes, ...gigaMapRoutes, ...historyRoutes]) registerRoute(scope, route, options);
  await scope.register(sqlRoutes, { registry: options.registry, sql: options.sql ?? false, requestTimeoutMs: options.requestTimeoutMs });
  scope.addHook('onClose', async () => closeSqlEngines(options.registry.all()));

  // The application's one OpenAPI document (openapi-routes.ts) holds every route; this is its /api/v1 part.
  scope.get(`${API_PREFIX}/openapi.json`, { schema: { tags: ['storage'], summary: 'The OpenAPI document of /api/v1' } }, async () =>
    apiDocument((await scope.openApiDocument()) as unknown as OpenApiDocument),
  );
  // Whatever else is asked below the prefix is a problem of this API, not a Java 404 page.
  scope.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
    url: `${API_PREFIX}/*`,
    schema: { hide: true },
    handler: async (request, reply) => {
      if (request.method !== 'GET') {
        reply.header('allow', 'GET');
        return sendProblem(reply, 405, 'Method Not Allowed', `${API_PREFIX} answers GET only`);
      }
      return sendProblem(reply, 404, 'Not Found', `no route ${request.url.split('?')[0]} (see ${API_PREFIX}/openapi.json)`);
    },
  });
}
