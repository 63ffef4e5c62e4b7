import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ServiceMetrics } from './metrics.js';

/**
 * One log line and one observation in the metrics per answered request: for fastify's routes
 * (an onResponse hook) and, with the same fields, for the Java routes' lane (java-lane.ts).
 */

/** Request ids for the log, one numbering for fastify and the lane (fastify's own form: req-1, req-2, ...). */
export function requestIds(): () => string {
  let count = 0;
  return () => `req-${(++count).toString(36)}`;
}

export interface RequestLogOptions {
  /** Observations of each answer; none when undefined. */
  readonly metrics: ServiceMetrics | undefined;
  /** Whether a line is logged per request (a logger at info or finer). */
  readonly logRequests: boolean;
  /** The metrics label of a request fastify routed (operations-routes.ts). */
  readonly label: (request: FastifyRequest) => string;
}

export const requestLogPlugin = fp<RequestLogOptions>(
  (app, { metrics, logRequests, label }, done) => {
    app.addHook('onResponse', (request, reply, next) => {
      if (metrics !== undefined) {
        const length = Number(reply.getHeader('content-length') ?? 0);
        metrics.observe(label(request), request.method, reply.statusCode, reply.elapsedTime / 1000, Number.isFinite(length) ? length : 0);
      }
      if (logRequests) {
        request.log.info(
          { method: request.method, url: request.raw.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
          'request',
        );
      }
      next();
    });
    done();
  },
  { name: 'request-log' },
);

/** What the lane tells when one of its responses has been sent. */
export type LaneFinished = (route: string, request: IncomingMessage, response: ServerResponse, ms: number, bytes: number, requestId: string | undefined) => void;

/** The same observation and line for a response of the Java routes' lane; undefined when nobody listens. */
export function laneFinished(log: FastifyBaseLogger, metrics: ServiceMetrics | undefined, logRequests: boolean): LaneFinished | undefined {
  if (metrics === undefined && !logRequests) return undefined;
  return (route, request, response, ms, bytes, reqId) => {
    metrics?.observe(route, request.method ?? 'GET', response.statusCode, ms / 1000, bytes);
    if (logRequests) log.info({ reqId, method: request.method, url: request.url, status: response.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
  };
}
