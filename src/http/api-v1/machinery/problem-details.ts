import type { FastifyReply } from 'fastify';
import { Problem } from '../../../api-contract/schemas.js';

/**
 * Errors of our API as RFC 9457 problem details (`application/problem+json`): a status, a short
 * title per kind and a detail naming what was wrong. Thrown by handlers; one error handler
 * (api-v1-plugin.ts) writes them.
 */

export const PROBLEM_TYPE = 'application/problem+json';

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    detail: string,
    /** Extra response headers (Retry-After). */
    readonly headers: Readonly<Record<string, string>> = {},
    /** Extra members of the problem body. */
    readonly extra: Readonly<Record<string, unknown>> = {},
  ) {
    super(detail);
    this.name = 'ApiProblem';
  }
}

export function notFound(detail: string): ApiProblem {
  return new ApiProblem(404, 'Not Found', detail);
}

export function badRequest(detail: string): ApiProblem {
  return new ApiProblem(400, 'Bad Request', detail);
}

export function sendProblem(reply: FastifyReply, status: number, title: string, detail: string, extra: Readonly<Record<string, unknown>> = {}): FastifyReply {
  return reply
    .code(status)
    .type(PROBLEM_TYPE)
    .send({ type: 'about:blank', title, status, detail, instance: reply.request.url, ...extra });
}

/** The response schemas of problem answers, documented with their media type. */
export function problemResponse(description: string): Record<string, unknown> {
  return { description, content: { [PROBLEM_TYPE]: { schema: Problem } } };
}

const PROBLEM_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'invalid parameters',
  404: 'no such storage, object, type or version',
  500: 'the storage could not be read here (file and offset in the detail)',
  503: 'the graph index is being built (Retry-After, progress), or the request took too long',
};

/** Response schemas of a route: its answer and the problems it can give (400, 500 and 503 always). */
export function answers(ok: unknown, ...statuses: number[]): Record<number, unknown> {
  const out: Record<number, unknown> = { 200: ok };
  for (const status of [...new Set([400, ...statuses, 500, 503])].sort()) out[status] = problemResponse(PROBLEM_DESCRIPTIONS[status] ?? 'a problem');
  return out;
}
