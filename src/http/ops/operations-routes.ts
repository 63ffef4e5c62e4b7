import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FollowStatus } from '../../storage/follow/follow-status.js';
import { routePaths } from '../java/documentation.js';
import type { MetricsSource, ServiceMetrics } from './metrics.js';
import type { Dialect } from '../java/dialects.js';
import { matchTemplate } from '../java/path-templates.js';
import { matchRoute } from '../java/spark-routing.js';
import { HEALTH_PATH, METRICS_PATH, READY_PATH } from '../guard/operation-paths.js';

/**
 * Routes for operators, outside the Java-compatible instance path and left out of the request
 * log: `GET /health` (the process answers), `GET /ready` (the storage is indexed and following
 * keeps up; 503 with the reason otherwise) and `GET /metrics` (Prometheus text format).
 * They pass the same access control as every route; /metrics also accepts its own token (app.ts).
 */

export { HEALTH_PATH, METRICS_PATH, READY_PATH };

export interface OperationsOptions {
  /** The state being served (entity count and generation for /ready). */
  readonly state: () => MetricsSource;
  /** Following's status; undefined when not following (ready as soon as it serves). */
  readonly follow?: FollowStatus | undefined;
  /** undefined: no /metrics route. */
  readonly metrics?: ServiceMetrics | undefined;
}

const NO_STORE = 'no-store';
const TAGS = ['operations'];

const READY_FACTS = {
  entities: { type: 'integer', description: 'objects in the served state' },
  generation: { type: 'integer', description: 'state changes taken over since start (1 after opening)' },
  following: { type: 'boolean', description: 'false with --no-follow' },
  followLagSeconds: { type: 'number', description: 'seconds since the served state was last confirmed current (0 when not following)' },
  problems: {
    type: 'array',
    description:
      'what is wrong while following, each since when: a failed refresh (damaged log, missing file, unreadable dictionary...), a data file cut inside its committed bytes, damaged records; empty when all is well (codes in docs/errors.md)',
    items: {
      type: 'object',
      required: ['code', 'message', 'since'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, since: { type: 'string', format: 'date-time' } },
    },
  },
} as const;

/** Schemas of the operations routes: they document them in /openapi.json and serialize their answers. */
const HEALTH_SCHEMA = {
  tags: TAGS,
  summary: 'Liveness',
  description: 'Answers while the process does; cheap, never cached, not in the request log.',
  response: { 200: { type: 'object', required: ['status'], properties: { status: { type: 'string', const: 'ok' } } } },
};

const READY_SCHEMA = {
  tags: TAGS,
  summary: 'Readiness',
  description:
    'The storage is indexed and following keeps up: 503 with the reason while the storages are being opened (the port answers from the start), when the last refresh failed or when the storage has not been seen current for ten polling intervals (at least 10 s). Not in the request log.',
  response: {
    200: { type: 'object', required: ['status', ...Object.keys(READY_FACTS)], properties: { status: { type: 'string', const: 'ready' }, ...READY_FACTS } },
    503: {
      type: 'object',
      required: ['status', 'reason', ...Object.keys(READY_FACTS)],
      properties: { status: { type: 'string', const: 'not ready' }, reason: { type: 'string' }, ...READY_FACTS },
    },
  },
};

const METRICS_SCHEMA = {
  tags: TAGS,
  summary: 'Prometheus metrics',
  description:
    'Prometheus text format (prom-client): requests by route and status, latency histograms, bytes sent, storage gauges (entities, files, live/total bytes, index memory, last commit time), following (lag, refreshes by outcome), process metrics. Also opened by the --metrics-token-file token. Not in the request log.',
  security: [{ bearer: [] }, {}],
  response: { 200: { description: 'metrics in Prometheus text format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } } },
};

export function registerOperationsRoutes(app: FastifyInstance, options: OperationsOptions): void {
  const quiet = { logLevel: 'silent' as const };
  app.route({
    method: ['GET', 'HEAD'],
    url: HEALTH_PATH,
    schema: HEALTH_SCHEMA,
    ...quiet,
    handler: async (_request, reply) => {
      reply.header('cache-control', NO_STORE);
      return { status: 'ok' };
    },
  });
  app.route({
    method: ['GET', 'HEAD'],
    url: READY_PATH,
    schema: READY_SCHEMA,
    ...quiet,
    handler: async (_request, reply) => {
      reply.header('cache-control', NO_STORE);
      const state = options.state();
      const facts = {
        entities: state.channels.reduce((n, c) => n + c.objects.size, 0),
        generation: state.generation ?? 0,
        following: options.follow?.following ?? false,
        followLagSeconds: options.follow === undefined ? 0 : Math.round(options.follow.lagSeconds() * 1000) / 1000,
        // What is wrong while following, each since when (also while still ready: a cut data file).
        problems: (options.follow?.currentProblems() ?? []).map((p) => ({ code: p.code, message: p.message, since: new Date(p.since).toISOString() })),
      };
      const problem = options.follow?.problem();
      if (problem !== undefined) return reply.code(503).send({ status: 'not ready', reason: problem, ...facts });
      return { status: 'ready', ...facts };
    },
  });
  const metrics = options.metrics;
  if (metrics !== undefined) {
    app.route({
      method: 'GET',
      url: METRICS_PATH,
      schema: METRICS_SCHEMA,
      ...quiet,
      handler: async (_request, reply) => {
        const registry = await metrics.registry();
        const text = await registry.metrics();
        return reply.header('cache-control', NO_STORE).type(registry.contentType).send(text);
      },
    });
  }
}

/**
 * The route a request went to, as a metrics label of bounded cardinality: the fastify route
 * pattern, or for the Java-compatible routes (served by a catch-all) their documented path,
 * `unmatched` for anything else.
 */
export function routeLabeller(instance: string, dialect: Dialect = 'spark'): (request: FastifyRequest) => string {
  const javaRoute = javaRouteLabeller(instance, dialect);
  return (request) => {
    const pattern = request.routeOptions.url;
    if (pattern !== undefined && pattern !== '*') return pattern;
    return javaRoute(request.raw.url ?? '/');
  };
}

/** The label of a request to the Java-compatible routes, from its raw URL: the route's documented path, or `unmatched`. */
export function javaRouteLabeller(instance: string, dialect: Dialect = 'spark'): (rawUrl: string) => string {
  const javaPaths = new Map(routePaths(instance).map((r) => [r.name, r.path]));
  // The other dialects' routes (javalin-service.ts, micronaut-service.ts), by their templates.
  const templates = [`/${instance}/root`, `/${instance}/dictionary`, `/${instance}/object/{oid}`, `/${instance}/maintenance/filesStatistics`];
  if (dialect === 'javalin') templates.unshift(`/${instance}/`);
  const javaRoute = (path: string): string | undefined => {
    if (dialect !== 'spark') return templates.find((t) => matchTemplate(t, path, dialect === 'javalin') !== undefined);
    const name = matchRoute(instance, path)?.name;
    return name === undefined ? undefined : javaPaths.get(name);
  };
  return (raw) => {
    const query = raw.indexOf('?');
    return javaRoute(query < 0 ? raw : raw.slice(0, query)) ?? 'unmatched';
  };
}
