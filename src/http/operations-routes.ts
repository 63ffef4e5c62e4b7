import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FollowStatus } from '../storage/follow-status.js';
import { routePaths } from './documentation.js';
import type { MetricsSource, ServiceMetrics } from './metrics.js';
import { matchRoute } from './spark-routing.js';

/**
 * Routes for operators, outside the Java-compatible instance path and left out of the request
 * log: `GET /health` (the process answers), `GET /ready` (the storage is indexed and following
 * keeps up; 503 with the reason otherwise) and `GET /metrics` (Prometheus text format).
 * They pass the same access control as every route; /metrics also accepts its own token (app.ts).
 */

export const HEALTH_PATH = '/health';
export const READY_PATH = '/ready';
export const METRICS_PATH = '/metrics';

export interface OperationsOptions {
  /** The state being served (entity count and generation for /ready). */
  readonly state: () => MetricsSource;
  /** Following's status; undefined when not following (ready as soon as it serves). */
  readonly follow?: FollowStatus | undefined;
  /** undefined: no /metrics route. */
  readonly metrics?: ServiceMetrics | undefined;
}

const NO_STORE = 'no-store';

export function registerOperationsRoutes(app: FastifyInstance, options: OperationsOptions): void {
  const quiet = { logLevel: 'silent' as const };
  app.route({
    method: ['GET', 'HEAD'],
    url: HEALTH_PATH,
    ...quiet,
    handler: async (_request, reply) => {
      reply.header('cache-control', NO_STORE);
      return { status: 'ok' };
    },
  });
  app.route({
    method: ['GET', 'HEAD'],
    url: READY_PATH,
    ...quiet,
    handler: async (_request, reply) => {
      reply.header('cache-control', NO_STORE);
      const state = options.state();
      const facts = {
        entities: state.channels.reduce((n, c) => n + c.objects.size, 0),
        generation: state.generation ?? 0,
        following: options.follow?.following ?? false,
        followLagSeconds: options.follow === undefined ? 0 : Math.round(options.follow.lagSeconds() * 1000) / 1000,
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
      ...quiet,
      handler: async (_request, reply) => {
        const text = await metrics.registry.metrics();
        return reply.header('cache-control', NO_STORE).type(metrics.registry.contentType).send(text);
      },
    });
  }
}

/**
 * The route a request went to, as a metrics label of bounded cardinality: the fastify route
 * pattern, or for the Java-compatible routes (served by a catch-all) their documented path,
 * `unmatched` for anything else.
 */
export function routeLabeller(instance: string): (request: FastifyRequest) => string {
  const javaPaths = new Map(routePaths(instance).map((r) => [r.name, r.path]));
  return (request) => {
    const pattern = request.routeOptions.url;
    if (pattern !== undefined && pattern !== '*') return pattern;
    const raw = request.raw.url ?? '/';
    const query = raw.indexOf('?');
    const name = matchRoute(instance, query < 0 ? raw : raw.slice(0, query))?.name;
    return (name === undefined ? undefined : javaPaths.get(name)) ?? 'unmatched';
  };
}
