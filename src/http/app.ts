import { setMaxListeners } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import Fastify, {
  LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { isAppError } from '../errors.js';
import type { AuthConfig } from './guard/auth.js';
import { admit, ALLOW_ALL, type Admission } from './guard/admission.js';
import { ConnectionGuard, defaultMaxConnections } from './guard/connections.js';
import type { CorsConfig } from './guard/cors.js';
import { answerInDialect } from './java/dialects.js';
import type { HostAllowList } from './guard/host-check.js';
import {
  errorCode,
  limitAnswer,
  notFoundPage,
  serverErrorPage,
  type Answer,
  type JavaServiceOptions,
  type RawRequest,
  type ServiceState,
} from './java/java-service.js';
import { BigAnswerAdmission, BigAnswerPending, type BuildConditions } from './guard/big-answers.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, RequestLimitError, requestTimedOut, shuttingDown } from './guard/limits.js';
import { lazySchemaCompilers } from './guard/lazy-schema-compilers.js';
import { createMetrics } from './ops/metrics.js';
import { openApiRoutes, registerOpenApi } from './ops/openapi-routes.js';
import { javaRouteLabeller, registerOperationsRoutes, routeLabeller } from './ops/operations-routes.js';
import { javaLane } from './java/java-lane.js';
import type { FollowStatus } from '../storage/follow/follow-status.js';
import type { TlsConfig } from './guard/tls.js';
import { apiV1Plugin } from './api-v1/api-v1-plugin.js';
import type { AnswerAdmission } from './api-v1/routing.js';
import type { SqlServiceOptions } from './api-v1/sql-engines.js';
import { combinedRouteListJson, resolveStorage, unavailableAnswer } from './java/named-routes.js';
import type { StorageRegistry } from '../registry/storage-registry.js';
import { DEFAULT_MAX_UNSENT_BYTES, UnsentAnswers } from './guard/unsent-answers.js';
import { registerViewerRoutes } from './viewer/viewer-routes.js';
import { RequestDeadlines } from './guard/request-deadlines.js';
import { holdTickShape } from './java/tick-shape.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Open connections, their cap, responses in flight, shutdown (connections.ts). */
    connections: ConnectionGuard;
    /**
     * Bytes of answers not yet taken by their clients (unsent-answers.ts). Every reply is counted
     * automatically; a route that builds a big answer should `await unsentAnswers.room(deadline)`
     * first, as the Java routes do.
     */
    unsentAnswers: UnsentAnswers;
  }
}

/**
 * The HTTP application: fastify carries the bytes, logs one line per request and shuts down
 * gracefully; the Java-compatible service is one catch-all route, because Spark's routing (raw
 * paths, empty segments, method override) is not fastify's. Its hot requests (GET and HEAD to
 * paths no fastify route can match) skip fastify's pipeline through a lane of their own
 * (java-lane.ts) that gives the same answers with the same checks, metrics and log lines.
 * Never listens by itself: `serve` does that.
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
}

/** How much later than a request's deadline its answer is replaced by a timeout 503 regardless. */
const TIMEOUT_GRACE_MS = 200;

/** The current consistent state to answer from (a following reader swaps it between requests). */
export type StateProvider = () => ServiceState;

/** A storage and how to answer for it. */
interface JavaTarget {
  readonly state: ServiceState;
  readonly options: JavaServiceOptions;
  readonly catchUp?: (() => Promise<void>) | undefined;
}

/** An instance no request path contains: only SparkJava's `/` route matches it. */
const NO_INSTANCE = '\u0000';

/** Whether the registry serves storages on the Java-compatible routes (`serve NAME=DIR ...`). */
function servesNamedStorages(registry: StorageRegistry): boolean {
  return registry.unavailable().length > 0 || registry.all().some((context) => context.served !== undefined);
}

function isFileGone(error: unknown): boolean {
  return isAppError(error) && error.code === 'STORAGE_FILE_GONE';
}

// Before anything this process opens or builds runs its full collections (tick-shape.ts says why).
holdTickShape();

export function buildApp(state: StateProvider | ServiceState, options: AppOptions): FastifyInstance {
  const current: StateProvider = typeof state === 'function' ? state : () => state;
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  /** The Java-compatible routes' own lane (java-lane.ts), set up once the routes are known. */
  let lane: ((request: IncomingMessage, response: ServerResponse) => boolean) | undefined;
  // Request ids for the log, one numbering for both lanes (fastify's own form: req-1, req-2, ...).
  let requestCount = 0;
  const nextRequestId = (): string => `req-${(++requestCount).toString(36)}`;
  const app = Fastify({
    logger: options.logger ?? false,
    // Each route's schemas compiled on its first request, not all before the first answer.
    // Schemas compiled on first use (lazy-schema-compilers.ts); no infinite number passes one (finite-numbers.ts).
    schemaController: { compilersFactory: lazySchemaCompilers() },
    // Still given with the server below: fastify names its addresses https:// from it.
    ...(options.tls === undefined ? {} : { https: { cert: options.tls.cert, key: options.tls.key } }),
    // The server's requests go to the Java routes' lane first (serverFactory: fastify's way of
    // putting something in front of its handler); fastify's server settings are applied as it would.
    serverFactory: (handler, settings) => {
      const listener = (request: IncomingMessage, response: ServerResponse): void => {
        if (lane === undefined || !lane(request, response)) handler(request, response);
      };
      const server = options.tls === undefined ? createHttpServer(listener) : createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, listener);
      // The settings fastify gives its own server (its defaults filled in).
      const timeouts = settings as { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number };
      if (timeouts.keepAliveTimeout !== undefined) server.keepAliveTimeout = timeouts.keepAliveTimeout;
      if (timeouts.requestTimeout !== undefined) server.requestTimeout = timeouts.requestTimeout;
      server.setTimeout(timeouts.connectionTimeout ?? 0);
      return server;
    },
    genReqId: nextRequestId,
    // Receiving a request and idle sockets are bounded; handlers are bounded in `handler` below.
    ...(timeoutMs > 0 ? { requestTimeout: timeoutMs, connectionTimeout: timeoutMs + 5000 } : {}),
    // One line per request, written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    exposeHeadRoutes: false,
    // Bodies are never read; this only bounds what a client can make us buffer.
    bodyLimit: 1024 * 1024,
    frameworkErrors: (error, request, reply) => {
      // onRequest hooks do not run for these: check access here.
      const admission = admit(options, request.raw.method ?? 'GET', request.raw.url ?? '/', request.headers);
      reply.headers(admission.headers);
      if (admission.answer !== undefined) {
        sendAdmission(reply, admission);
        return;
      }
      // Requests fastify cannot route (e.g. a malformed percent escape) still get Java's answer.
      void dispatch(request.raw, reply.raw).then(
        (answer) => send(reply, answer),
        () => send(reply, serverErrorPage(error)),
      );
    },
  });

  // First path segments of fastify's routes: a request to any other path is the Java routes'.
  const fastifySegments = new Set<string>();
  let laneable = true;
  app.addHook('onRoute', (route) => {
    if (route.url === '*') return;
    const segment = route.url.slice(1).split('/', 1)[0] ?? '';
    // A parametric or wildcard first segment could match any path: no lane then.
    if (/[:*(]/.test(segment)) laneable = false;
    fastifySegments.add(segment);
  });

  const connections = new ConnectionGuard(app.server, options.maxConnections ?? defaultMaxConnections(), options.tls !== undefined);
  const unsent = new UnsentAnswers(options.maxUnsentBytes ?? DEFAULT_MAX_UNSENT_BYTES);
  app.decorate('connections', connections);
  app.decorate('unsentAnswers', unsent);

  // Shutdown: big answers that have not started being built are not built any more (503).
  const shutdown = new AbortController();
  // Every request waiting for admission listens to it.
  setMaxListeners(0, shutdown.signal);
  const buildConditions: BuildConditions = {
    connectionDrained: () => Promise.resolve(),
    room: (deadline, signal) => unsent.room(deadline, signal),
    signal: shutdown.signal,
  };
  /** What big /api/v1 answers wait for, as big answers of the Java routes do. */
  const apiAdmission: AnswerAdmission = {
    big: async (request, deadline) => {
      const admission = new BigAnswerAdmission({ ...buildConditions, connectionDrained: (_deadline, signal) => connections.earlierResponsesSent(request.raw, signal) }, deadline);
      await admission.acquire();
      return () => admission.finish();
    },
  };
  /** Which storage a Java-compatible request is for (several storages: by its path, named-routes.ts). */
  const targetFor = (url: string): JavaTarget | Answer => {
    const registry = options.api;
    if (registry === undefined || !servesNamedStorages(registry)) return { state: current(), options, catchUp: options.catchUp };
    const queryStart = url.indexOf('?');
    const rawPath = queryStart < 0 ? url : url.slice(0, queryStart);
    const resolution = resolveStorage(registry, rawPath);
    if (resolution.kind === 'unavailable') return unavailableAnswer(resolution.storage);
    if (resolution.kind === 'storage') {
      const served = resolution.context.served;
      return { state: resolution.context.storage, options: { ...options, instance: resolution.instance }, catchUp: served?.catchUp };
    }
    // No storage's path: the dialect answers its "not found" (SparkJava: or the route list of all).
    const any = registry.all()[0];
    if (any === undefined) return notFoundPage();
    return { state: any.storage, options: { ...options, instance: NO_INSTANCE, routeListing: (host) => combinedRouteListJson(registry, host) } };
  };
  /** One run of the request against one consistent state. */
  const answerOnce = (target: JavaTarget, raw: IncomingMessage, admission: BigAnswerAdmission): Promise<Answer> => {
    const state = target.state;
    const request: RawRequest = { method: raw.method ?? 'GET', url: raw.url ?? '/', headers: raw.headers };
    const run = (): Promise<Answer> => answerInDialect(state, target.options, request, { admission });
    return state.consistent === undefined ? run() : state.consistent(run);
  };
  /**
   * Runs the request; a big answer is admitted outside the consistent state, then built
   * (big-answers.ts). Most answers are small: they take one run and no promise more.
   */
  const answerAdmitted = (target: JavaTarget, raw: IncomingMessage, response: ServerResponse): Promise<Answer> => {
    const conditions: BuildConditions = { ...buildConditions, connectionDrained: (_deadline, signal) => connections.earlierResponsesSent(raw, signal) };
    const admission = new BigAnswerAdmission(conditions, timeoutMs > 0 ? Date.now() + timeoutMs : Number.POSITIVE_INFINITY);
    return answerOnce(target, raw, admission).catch((error: unknown) =>
      error instanceof BigAnswerPending ? answerBig(target, raw, response, admission) : Promise.reject(error),
    );
  };
  /** A request found to be big: admitted (waiting for its turn), then run again. */
  const answerBig = async (target: JavaTarget, raw: IncomingMessage, response: ServerResponse, admission: BigAnswerAdmission): Promise<Answer> => {
    try {
      for (;;) {
        try {
          await admission.acquire();
        } catch (error) {
          if (error instanceof RequestLimitError) return limitAnswer(error);
          throw error;
        }
        try {
          const answer = await answerOnce(target, raw, admission);
          // Counted before the building slot is freed, so that the next big answer sees it.
          if (admission.admitted) unsent.hold(answer.body.length, response);
          return answer;
        } catch (error) {
          if (!(error instanceof BigAnswerPending) || admission.admitted) throw error;
        }
      }
    } finally {
      admission.finish();
    }
  };
  const dispatch = async (raw: IncomingMessage, response: ServerResponse): Promise<Answer> => {
    try {
      const target = targetFor(raw.url ?? '/');
      if (!('state' in target)) return target;
      const answer = await answerAdmitted(target, raw, response);
      if (target.catchUp === undefined || !isFileGone(answer.error)) return answer;
      await target.catchUp();
      return await answerAdmitted(target, raw, response);
    } catch (error) {
      return serverErrorPage(error);
    }
  };
  const send = (reply: FastifyReply, answer: Answer): void => {
    reply.code(answer.status);
    reply.header('content-type', answer.contentType);
    if (answer.headers !== undefined) reply.headers(answer.headers);
    reply.send(answer.body);
  };
  const sendAdmission = (reply: FastifyReply, admission: Admission): void => {
    const answer = admission.answer;
    if (answer === undefined) return;
    reply.code(answer.status);
    if (answer.contentType !== undefined) reply.header('content-type', answer.contentType);
    reply.send(answer.body);
  };
  /**
   * The answer, or a 503 once the request timeout has passed (the work stops at its next check).
   * A little later than the request's own deadline, so that a request waiting for something
   * (room for its answer) says what it waited for.
   */
  const deadlines = timeoutMs > 0 ? new RequestDeadlines(timeoutMs + TIMEOUT_GRACE_MS, () => limitAnswer(requestTimedOut(timeoutMs))) : undefined;
  app.addHook('onClose', (_instance, done) => {
    deadlines?.close();
    done();
  });
  const withinTimeout = (pending: Promise<Answer>): Promise<Answer> => (deadlines === undefined ? pending : deadlines.within(pending));

  // The hooks below are callback-style, not async: they run on every request, and an async hook
  // costs fastify a promise and a microtask turn each.
  app.addHook('onRequest', (request, reply, done) => {
    const admission = admit(options, request.raw.method ?? 'GET', request.raw.url ?? '/', request.headers);
    if (admission !== ALLOW_ALL) reply.headers(admission.headers);
    if (admission.answer !== undefined) {
      sendAdmission(reply, admission);
      return;
    }
    done();
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));

  // While shutting down, answers to requests in flight close their connection, so that closing
  // waits for them and not for idle keep-alive connections.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    shutdown.abort(shuttingDown());
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    // Every answer counts against the unsent-bytes budget until its client has taken it.
    if (Buffer.isBuffer(payload)) unsent.hold(payload.length, reply.raw);
    else if (typeof payload === 'string') unsent.hold(payload.length, reply.raw);
    done(null, payload);
  });

  const metrics = options.metrics === false ? undefined : createMetrics(current, options.follow);
  const routeLabel = routeLabeller(options.instance, options.dialect ?? 'spark');
  // Without a logger (or above info), the request line is not even put together.
  const logRequests = options.logger !== undefined && options.logger !== false && ['trace', 'debug', 'info'].includes(app.log.level);
  app.addHook('onResponse', (request, reply, done) => {
    if (metrics !== undefined) {
      const length = Number(reply.getHeader('content-length') ?? 0);
      metrics.observe(routeLabel(request), request.method, reply.statusCode, reply.elapsedTime / 1000, Number.isFinite(length) ? length : 0);
    }
    if (logRequests) {
      request.log.info(
        { method: request.method, url: request.raw.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
        'request',
      );
    }
    done();
  });

  /** Logs why an answer failed, if it did. */
  const answered = (answer: Answer, url: string | undefined): void => {
    if (answer.error === undefined) return;
    const code = errorCode(answer.error);
    const entry = { err: answer.error, code, status: answer.status, url };
    // A malformed query is the client's doing (Java answers 500 for it too): not an error of ours.
    if (answer.status >= 500 && code !== 'QUERY_DECODE') app.log.error(entry, 'request failed');
    else app.log.warn(entry, 'request refused');
  };
  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const answer = await withinTimeout(dispatch(request.raw, reply.raw));
    answered(answer, request.raw.url);
    send(reply, answer);
  };
  // The Java routes' lane, once every fastify route is known (java-lane.ts).
  const javaRouteLabel = javaRouteLabeller(options.instance, options.dialect ?? 'spark');
  app.addHook('onReady', (done) => {
    if (laneable) {
      lane = javaLane({
        fastifySegments,
        admit: (method, url, headers) => admit(options, method, url, headers),
        answer: (request, response) => withinTimeout(dispatch(request, response)).catch((error: unknown) => serverErrorPage(error)),
        answered,
        hold: (bytes, response) => unsent.hold(bytes, response),
        closing: () => closing,
        finished:
          metrics === undefined && !logRequests
            ? undefined
            : (route, request, response, ms, bytes, reqId) => {
                metrics?.observe(route, request.method ?? 'GET', response.statusCode, ms / 1000, bytes);
                if (logRequests) app.log.info({ reqId, method: request.method, url: request.url, status: response.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
              },
        requestId: logRequests ? nextRequestId : undefined,
        label: javaRouteLabel,
      });
    }
    done();
  });
  // Every route is registered in a plugin after the OpenAPI hook, which notes them as they are
  // added (the document is made from them when first asked for, openapi-routes.ts): the web viewer's static files under /viewer/, the operators' routes, our own API
  // (/api/v1), the document itself (find-my-way prefers them all to the catch-all), and the
  // catch-all of the Java routes, which the document describes on its own (java-routes-openapi.ts).
  const openApi = registerOpenApi(app, { instance: options.instance, dialect: options.dialect });
  void app.register(async (scope) => {
    // The viewer speaks the SparkJava dialect (route list, string ids); other dialects go without it.
    if ((options.dialect ?? 'spark') === 'spark') registerViewerRoutes(scope, { instance: options.instance });
    registerOperationsRoutes(scope, { state: current, follow: options.follow, metrics });
    if (options.api !== undefined) await scope.register(apiV1Plugin, { registry: options.api, requestTimeoutMs: timeoutMs, admission: apiAdmission, sql: options.sql ?? false, searchMaxConcurrent: options.searchMaxConcurrent });
    await scope.register(openApiRoutes, { openApi });
    scope.route({ method: app.supportedMethods, url: '*', handler, schema: { hide: true } });
  });
  app.setNotFoundHandler(handler);
  // Node closes CONNECT requests without a word when nobody listens; this is not a proxy: say so.
  app.server.on('connect', (_request: unknown, socket: import('node:net').Socket) => {
    socket.end('HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD, OPTIONS\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  return app;
}
