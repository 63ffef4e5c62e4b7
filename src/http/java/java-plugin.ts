import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { StorageRegistry } from '../../registry/storage-registry.js';
import { admit, type AdmissionOptions } from '../guard/admission.js';
import { sendAdmission } from '../guard/access-plugin.js';
import type { Answer, JavaServiceOptions, ServiceState } from './java-service.js';
import { javaLane, type JavaLaneOptions } from './java-lane.js';
import { JavaRequests } from './java-requests.js';

/**
 * The Java-compatible routes as one plugin: Spark's routing (raw paths, empty segments, method
 * override) is not fastify's, so they are one catch-all route (and fastify's not-found handler),
 * and their hot requests (GET and HEAD to paths no fastify route can match) skip fastify's
 * pipeline through a lane of their own (java-lane.ts) that gives the same answers with the same
 * checks, metrics and log lines. Every door leads to one JavaRequests (java-requests.ts).
 * Registered before the routes of the other plugins, so that it sees them all.
 */

/** The ways in that the server's listener and fastify's framework errors take (set once ready). */
export interface JavaEntrances {
  /** The lane: true when it took the request (and will answer it), false when fastify should. */
  lane?: ((request: IncomingMessage, response: ServerResponse) => boolean) | undefined;
  /** A request fastify cannot route (e.g. a malformed percent escape): still Java's answer. */
  unrouted?: ((request: FastifyRequest, reply: FastifyReply) => void) | undefined;
}

export interface JavaPluginOptions {
  readonly state: () => ServiceState;
  readonly service: JavaServiceOptions;
  readonly registry?: StorageRegistry | undefined;
  readonly catchUp?: (() => Promise<void>) | undefined;
  readonly timeoutMs: number;
  /** Host check, CORS, credentials (admission.ts): the lane runs them itself. */
  readonly access: AdmissionOptions;
  /** Filled in by the plugin for the server's listener and fastify's framework errors. */
  readonly entrances: JavaEntrances;
  /** The lane's part of the request log and metrics (request-log.ts). */
  readonly finished: JavaLaneOptions['finished'];
  readonly requestId: JavaLaneOptions['requestId'];
  readonly label: JavaLaneOptions['label'];
}

export const javaPlugin = fp<JavaPluginOptions>(
  (app, options, done) => {
    const requests = new JavaRequests({
      state: options.state,
      service: options.service,
      registry: options.registry,
      catchUp: options.catchUp,
      timeoutMs: options.timeoutMs,
      admission: (request, deadline) => app.bigAnswers.admission(request, deadline),
      hold: (bytes, response) => app.unsentAnswers.hold(bytes, response),
      log: app.log,
    });
    app.addHook('onClose', (_instance, next) => {
      requests.close();
      next();
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

    const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      send(reply, await requests.answer(request.raw, reply.raw));
    };
    app.route({ method: app.supportedMethods, url: '*', handler, schema: { hide: true } });
    app.setNotFoundHandler(handler);
    options.entrances.unrouted = (request, reply) => {
      // onRequest hooks do not run for these: access is checked here.
      const admission = admit(options.access, request.raw.method ?? 'GET', request.raw.url ?? '/', request.headers);
      reply.headers(admission.headers);
      if (admission.answer !== undefined) sendAdmission(reply, admission);
      else void requests.answer(request.raw, reply.raw).then((answer) => send(reply, answer));
    };
    // The lane, once every fastify route is known.
    app.addHook('onReady', (next) => {
      if (laneable) {
        options.entrances.lane = javaLane({
          fastifySegments,
          admit: (method, url, headers) => admit(options.access, method, url, headers),
          answer: (request, response) => requests.answer(request, response),
          hold: (bytes, response) => app.unsentAnswers.hold(bytes, response),
          closing: () => app.bigAnswers.closing,
          finished: options.finished,
          requestId: options.requestId,
          label: options.label,
        });
      }
      next();
    });
    done();
  },
  { name: 'java-routes', dependencies: ['capacity'] },
);

function send(reply: FastifyReply, answer: Answer): void {
  reply.code(answer.status);
  reply.header('content-type', answer.contentType);
  if (answer.headers !== undefined) reply.headers(answer.headers);
  reply.send(answer.body);
}
