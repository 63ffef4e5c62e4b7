import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import swaggerUi, { type FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import { lazySchemaCompilers } from '../api-v1/machinery/lazy-schema-compilers.js';

/**
 * The documentation server behind `/openapi.json` and `/docs` (openapi-routes.ts), loaded and
 * made on their first request: a fastify instance that never listens, with @fastify/swagger, the
 * application's documented routes replayed in their order (same URLs, methods, schemas and config;
 * handlers that are never called) and @fastify/swagger-ui. Its `swagger()` is the application's
 * document; the application answers `/docs` with what this one answers (`inject`).
 */
export async function documentationServer(
  routes: readonly RouteOptions[],
  swaggerOptions: FastifyDynamicSwaggerOptions,
  uiOptions: FastifySwaggerUiOptions,
): Promise<FastifyInstance> {
  // No HEAD routes beside the GETs (the application's were not noted either); the schemas are
  // only read, never compiled.
  const server = Fastify({ logger: false, exposeHeadRoutes: false, schemaController: { compilersFactory: lazySchemaCompilers() } });
  await server.register(swagger, swaggerOptions);
  await server.register(async (scope) => {
    for (const route of routes) {
      scope.route({
        method: route.method,
        url: route.url,
        ...(route.schema === undefined ? {} : { schema: route.schema }),
        ...(route.config === undefined ? {} : { config: route.config }),
        handler: notServed,
      });
    }
  });
  await server.register(swaggerUi, uiOptions);
  await server.ready();
  return server;
}

function notServed(): never {
  throw new Error('the documentation server describes routes, it does not serve them');
}
