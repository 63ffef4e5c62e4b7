import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { admit, ALLOW_ALL, type Admission, type AdmissionOptions } from './admission.js';

/**
 * Host check, CORS and credentials (admission.ts) for every request fastify routes, before its
 * route: the viewer, the operators' routes, our own API, `/mcp` and the Java routes' catch-all.
 * (The Java routes' lane runs the same checks itself, java-lane.ts.)
 */
export const accessPlugin = fp<{ readonly access: AdmissionOptions }>(
  (app, { access }, done) => {
    // Callback-style, not async: it runs on every request, and an async hook costs fastify a
    // promise and a microtask turn each.
    app.addHook('onRequest', (request, reply, next) => {
      const admission = admit(access, request.raw.method ?? 'GET', request.raw.url ?? '/', request.headers);
      if (admission !== ALLOW_ALL) reply.headers(admission.headers);
      if (admission.answer !== undefined) {
        sendAdmission(reply, admission);
        return;
      }
      next();
    });
    done();
  },
  { name: 'access' },
);

/** A refusal of the access checks, as fastify sends it. */
export function sendAdmission(reply: FastifyReply, admission: Admission): void {
  const answer = admission.answer;
  if (answer === undefined) return;
  reply.code(answer.status);
  if (answer.contentType !== undefined) reply.header('content-type', answer.contentType);
  reply.send(answer.body);
}
