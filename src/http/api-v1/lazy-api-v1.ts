import type { IncomingMessage } from 'node:http';
import Fastify, { LogController, type FastifyInstance, type FastifyPluginAsync, type RouteOptions } from 'fastify';
import { API_PREFIX } from '../../api-contract/api-prefix.js';
import { answerCounting } from '../guard/capacity-plugin.js';
import type { ApiV1Options } from './api-v1-plugin.js';
import { lazySchemaCompilers } from './machinery/lazy-schema-compilers.js';

/**
 * `/api/v1`, loaded on its first request (as the OpenAPI document and `/docs` are): its plugin
 * (api-v1-plugin.ts) with its typebox schemas, the SQL engine's module, history, diff, GigaMaps
 * and its ~60 routes cost `serve` about a tenth of its CPU from launch to the first Java answer
 * (docs/benchmarks/startup.md), which needs none of it.
 *
 * Until then the application has one hidden route for `/api/v1/*` (every method, as the API's own
 * catch-all). Its first request makes an instance of its own that never listens, with the plugin
 * registered as the application would have (same options, compilers, request ids and logger, the
 * application's unsent-bytes budget and shutdown), and every request below the prefix goes on to
 * it (`routing`) after the application's hooks have run (access checks, connection limits): the
 * request log line, the metrics (by the API route's own path, `apiRouteOf`) and the answer's
 * bytes are the application's. Bodies are left unread for the API's own parsers.
 * Its routes are documented in their place (`documented`, the OpenAPI document's `later`).
 */

export interface LazyApiV1Options extends ApiV1Options {
  /** Loads the plugin (a dynamic import, so that nothing of it loads before). */
  readonly load: () => Promise<FastifyPluginAsync<ApiV1Options>>;
  /** Where the API's routes go in the OpenAPI document: given how to make them, returns where to note each. */
  readonly documented?: ((make: () => Promise<unknown>) => (route: RouteOptions) => void) | undefined;
}

/** Every method, as the API's own catch-all answers them (405 for all but GET). */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** The route path of each request the API instance routed, for the application's metrics label. */
const apiRoutes = new WeakMap<IncomingMessage, string>();

/** The API route (its path pattern) that answered a request, if the API instance routed it. */
export function apiRouteOf(request: IncomingMessage): string | undefined {
  return apiRoutes.get(request);
}

export async function lazyApiV1Plugin(scope: FastifyInstance, options: LazyApiV1Options): Promise<void> {
  const { load, documented, ...apiOptions } = options;
  /** The application's request id of each request handed on. */
  const ids = new WeakMap<IncomingMessage, string>();
  let made: Promise<FastifyInstance> | undefined;
  let note: ((route: RouteOptions) => void) | undefined;

  const make = async (): Promise<FastifyInstance> => {
    const plugin = await load();
    const config = scope.initialConfig;
    const api = Fastify({
      loggerInstance: scope.log,
      logController: new LogController({ disableRequestLogging: true }),
      schemaController: { compilersFactory: lazySchemaCompilers() },
      genReqId: (request) => ids.get(request) ?? 'req-api',
      // As the application (server-options.ts): HEAD is answered where a route says so.
      exposeHeadRoutes: false,
      ...(config.bodyLimit === undefined ? {} : { bodyLimit: config.bodyLimit }),
    });
    // The application's decorations that the API's routes use (capacity-plugin.ts, ops/openapi-routes.ts).
    if (scope.hasDecorator('connections')) api.decorate('connections', scope.connections);
    if (scope.hasDecorator('unsentAnswers')) api.decorate('unsentAnswers', scope.unsentAnswers);
    if (scope.hasDecorator('bigAnswers')) api.decorate('bigAnswers', scope.bigAnswers);
    if (scope.hasDecorator('openApiDocument')) api.decorate('openApiDocument', scope.openApiDocument);
    // As the application: bodies are not read (the SQL route keeps its JSON parser in its scope).
    api.removeAllContentTypeParsers();
    api.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));
    if (scope.hasDecorator('bigAnswers')) api.addHook('onSend', answerCounting(scope.bigAnswers, scope.unsentAnswers));
    api.addHook('onRequest', (request, _reply, next) => {
      if (request.routeOptions.url !== undefined) apiRoutes.set(request.raw, request.routeOptions.url);
      next();
    });
    if (note !== undefined) api.addHook('onRoute', note);
    await api.register(plugin, apiOptions);
    await api.ready();
    return api;
  };
  const instance = (): Promise<FastifyInstance> => {
    made ??= make().catch((error: unknown) => {
      // Asked again, it is tried again.
      made = undefined;
      throw error;
    });
    return made;
  };
  note = documented?.(instance);

  scope.addHook('onClose', async () => {
    if (made !== undefined) await (await made.catch(() => undefined))?.close();
  });
  await scope.register(async (forward) => {
    // The body stays unread: the API instance reads it (or not) with its own parsers and limits.
    forward.removeAllContentTypeParsers();
    forward.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    forward.route({
      method: METHODS,
      url: `${API_PREFIX}/*`,
      schema: { hide: true },
      handler: async (request, reply) => {
        const api = await instance();
        ids.set(request.raw, request.id);
        // Headers the application's hooks set (CORS for an allowed origin, above all) are the
        // answer's too: a hijacked reply sends none of them, and the API instance writes the
        // response itself (Node merges these with the ones it writes).
        for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
        reply.hijack();
        api.routing(request.raw, reply.raw);
      },
    });
  });
}
