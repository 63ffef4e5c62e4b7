import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { LogController, type FastifyHttpOptions, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { lazySchemaCompilers } from './api-v1/machinery/lazy-schema-compilers.js';
import type { TlsConfig } from './guard/tls.js';
import type { JavaEntrances } from './java/java-plugin.js';

/**
 * fastify's settings for the application, and the server it runs on: a request reaches the Java
 * routes' lane first (java-plugin.ts), fastify otherwise; requests fastify cannot route still get
 * the Java routes' answer.
 */

export interface ServerSettings {
  readonly logger: boolean | Exclude<FastifyServerOptions['logger'], undefined>;
  readonly tls: TlsConfig | undefined;
  /** The request timeout (0: none). */
  readonly timeoutMs: number;
  /** The request ids of the log (request-log.ts). */
  readonly requestId: () => string;
  /** The Java routes' ways in, filled in by their plugin. */
  readonly java: JavaEntrances;
}

/** fastify's options for a node:http server, and its https option, which fastify reads to name its addresses. */
export type ServerOptions = FastifyHttpOptions<Server> & { readonly https?: { readonly cert: Buffer; readonly key: Buffer } };

export function serverOptions(settings: ServerSettings): ServerOptions {
  const { tls, timeoutMs, java } = settings;
  return {
    logger: settings.logger,
    // Schemas compiled on first use (lazy-schema-compilers.ts); no infinite number passes one (finite-numbers.ts).
    schemaController: { compilersFactory: lazySchemaCompilers() },
    // Still given with the server below: fastify names its addresses https:// from it.
    ...(tls === undefined ? {} : { https: { cert: tls.cert, key: tls.key } }),
    // The server's requests go to the Java routes' lane first (serverFactory: fastify's way of
    // putting something in front of its handler); fastify's server settings are applied as it would.
    serverFactory: (handler, options) => {
      const listener = (request: IncomingMessage, response: ServerResponse): void => {
        if (java.lane === undefined || !java.lane(request, response)) handler(request, response);
      };
      const server = tls === undefined ? createHttpServer(listener) : createHttpsServer({ cert: tls.cert, key: tls.key }, listener);
      // The settings fastify gives its own server (its defaults filled in).
      const timeouts = options as { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number };
      if (timeouts.keepAliveTimeout !== undefined) server.keepAliveTimeout = timeouts.keepAliveTimeout;
      if (timeouts.requestTimeout !== undefined) server.requestTimeout = timeouts.requestTimeout;
      server.setTimeout(timeouts.connectionTimeout ?? 0);
      // Node closes CONNECT requests without a word when nobody listens; this is not a proxy: say so.
      server.on('connect', refuseConnect);
      return server;
    },
    genReqId: settings.requestId,
    // Receiving a request and idle sockets are bounded; answers are bounded by the routes.
    ...(timeoutMs > 0 ? { requestTimeout: timeoutMs, connectionTimeout: timeoutMs + 5000 } : {}),
    // One line per request, written by the request log (request-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    exposeHeadRoutes: false,
    // Bodies are never read; this only bounds what a client can make us buffer.
    bodyLimit: 1024 * 1024,
    // (The Java routes' plugin sets `unrouted` as it loads, before the server listens.)
    frameworkErrors: (_error: unknown, request: FastifyRequest, reply: FastifyReply) => {
      if (java.unrouted === undefined) reply.code(500).send();
      else java.unrouted(request, reply);
    },
  };
}

function refuseConnect(_request: IncomingMessage, socket: Socket): void {
  socket.end('HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD, OPTIONS\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
}
