import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { AuthConfig } from './guard/auth.js';
import { accessPlugin } from './guard/access-plugin.js';
import { capacityPlugin } from './guard/capacity-plugin.js';
import type { CorsConfig } from './guard/cors.js';
import type { HostAllowList } from './guard/host-check.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './guard/limits.js';
import type { TlsConfig } from './guard/tls.js';
import type { JavaServiceOptions, ServiceState } from './java/java-service.js';
import { javaPlugin, type JavaEntrances } from './java/java-plugin.js';
import { holdTickShape } from './java/tick-shape.js';
import { apiRouteOf, lazyApiV1Plugin } from './api-v1/lazy-api-v1.js';
import type { AnswerAdmission } from './api-v1/machinery/routing.js';
import type { SqlServiceOptions } from './api-v1/sql/sql-engines.js';
import { createMetrics } from './ops/metrics.js';
import { openApiRoutes, registerOpenApi } from './ops/openapi-routes.js';
import { javaRouteLabeller, registerOperationsRoutes, routeLabeller } from './ops/operations-routes.js';
import { laneFinished, requestIds, requestLogPlugin } from './ops/request-log.js';
import { registerViewerRoutes } from './viewer/viewer-routes.js';
import { serverOptions } from './server-options.js';
import type { FollowStatus } from '../storage/follow/follow-status.js';
import type { StorageRegistry } from '../registry/storage-registry.js';

/**
 * The HTTP application, composed of fastify plugins: the guards first (access checks, capacity
 * and shutdown), the request log, then the routes: the Java-compatible ones (java/java-plugin.ts,
 * with their own lane past fastify's pipeline), the web viewer's files, the operators' routes, our
 * own API (/api/v1, loaded on its first request) and the OpenAPI document. fastify carries the bytes, logs one line per request
 * and shuts down gracefully. Never listens by itself: `serve` does that (and mounts /mcp).
 */

export interface AppOptions extends JavaServiceOptions {
  /** fastify's logger option (pino); false for none. */
  readonly logger?: FastifyServerOptions['logger'];
  /**
   * Called when a request read a data file that was deleted meanwhile (housekeeping of a running
   * Java storage); resolves once the state is current again, and the request is answered anew.
   */
  readonly catchUp?: () => Promise<void>;
  /** Credentials every request must carry (all routes); none when undefined. */
  readonly auth?: AuthConfig | undefined;
  /** Origins whose pages may read answers; no CORS headers when undefined (like Java). */
  readonly cors?: CorsConfig | undefined;
  /** Serve HTTPS with this certificate and key. */
  readonly tls?: TlsConfig | undefined;
  /** Following's status for /ready and /metrics; undefined when not following. */
  readonly follow?: FollowStatus | undefined;
  /** Serve /metrics (default true). */
  readonly metrics?: boolean;
  /** A token that opens /metrics (and nothing else), besides the credentials of `auth`. */
  readonly metricsToken?: AuthConfig | undefined;
  /**
   * The storages our own API (`/api/v1`) answers for; no such routes when undefined. Storages
   * registered with `served` are also served on the Java-compatible routes by name.
   */
  readonly api?: StorageRegistry | undefined;
  /** SQL over the storages of `api` (POST /api/v1/sql) with these limits; off when false or absent. */
  readonly sql?: SqlServiceOptions | false | undefined;
  /** Searches of `api` (and of the MCP tools) running at once; more are refused 503 (default 4). */
  readonly searchMaxConcurrent?: number | undefined;
  /** Answer only requests whose Host header is on this list (421 otherwise); no check when undefined. */
  readonly allowedHosts?: HostAllowList | undefined;
  /** Open connections at most (default: below the descriptor limit, see connections.ts). */
  readonly maxConnections?: number | undefined;
  /** Bytes of unsent answers above which no big answer is built (default 64 MiB). */
  readonly maxUnsentBytes?: number | undefined;
  /** A streamed answer (the NDJSON export) whose client takes nothing for this long is ended (default 30 s; 0: never). */
  readonly stallTimeoutMs?: number | undefined;
}

/** The current consistent state to answer from (a following reader swaps it between requests). */
export type StateProvider = () => ServiceState;

// Before anything this process opens or builds runs its full collections (tick-shape.ts says why).
holdTickShape();

export function buildApp(state: StateProvider | ServiceState, options: AppOptions): FastifyInstance {
  const current: StateProvider = typeof state === 'function' ? state : () => state;
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const instance = options.instance;
  const dialect = options.dialect ?? 'spark';
  const requestId = requestIds();
  const java: JavaEntrances = {};
  const app = Fastify(serverOptions({ logger: options.logger ?? false, tls: options.tls, timeoutMs, requestId, java }));
  // Bodies are never read (/mcp keeps its own JSON parser in its scope).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));

  const metrics = options.metrics === false ? undefined : createMetrics(current, options.follow);
  // Without a logger (or above info), the request line is not even put together.
  const logRequests = options.logger !== undefined && options.logger !== false && ['trace', 'debug', 'info'].includes(app.log.level);
  void app.register(accessPlugin, { access: options });
  void app.register(capacityPlugin, { maxConnections: options.maxConnections, maxUnsentBytes: options.maxUnsentBytes, stallTimeoutMs: options.stallTimeoutMs, tls: options.tls !== undefined });
  const label = routeLabeller(instance, dialect);
  // /api/v1's answers are labelled by the API's route that answered (lazy-api-v1.ts), not the route handing them on.
  void app.register(requestLogPlugin, { metrics, logRequests, label: (request) => apiRouteOf(request.raw) ?? label(request) });
  // The OpenAPI hook notes every route added after it (the document is made when first asked for).
  const openApi = registerOpenApi(app, { instance, dialect: options.dialect });
  // First among the routes: it notes theirs, to know which paths its lane may take.
  void app.register(javaPlugin, {
    state: current,
    service: options,
    registry: options.api,
    catchUp: options.catchUp,
    timeoutMs,
    access: options,
    entrances: java,
    finished: laneFinished(app.log, metrics, logRequests),
    requestId: logRequests ? requestId : undefined,
    label: javaRouteLabeller(instance, dialect),
  });
  void app.register(async (scope) => {
    // The viewer speaks the SparkJava dialect (route list, string ids); other dialects go without it.
    if (dialect === 'spark') registerViewerRoutes(scope, { instance });
    registerOperationsRoutes(scope, { state: current, follow: options.follow, metrics });
    if (options.api !== undefined) {
      // Loaded and made on its first request (lazy-api-v1.ts), its routes documented in this place.
      await scope.register(lazyApiV1Plugin, {
        load: async () => (await import('./api-v1/api-v1-plugin.js')).apiV1Plugin,
        documented: (make) => openApi.later(make),
        registry: options.api,
        requestTimeoutMs: timeoutMs,
        admission: bigApiAnswers(app),
        sql: options.sql ?? false,
        searchMaxConcurrent: options.searchMaxConcurrent,
      });
    }
    await scope.register(openApiRoutes, { openApi });
  });
  return app;
}

/** What big /api/v1 answers wait for, as big answers of the Java routes do. */
function bigApiAnswers(app: FastifyInstance): AnswerAdmission {
  return {
    big: async (request, deadline) => {
      const admission = app.bigAnswers.admission(request.raw, deadline);
      await admission.acquire();
      return () => admission.finish();
    },
  };
}
