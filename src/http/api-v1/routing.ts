import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TObject, type TProperties } from 'typebox';
import type { StorageContext, StorageRegistry } from '../storage-registry.js';
import { ApiProblem, notFound } from './problem.js';
import { StorageParams } from './schemas.js';

/**
 * Every route of `/api/v1` exists twice: for the default storage (`/api/v1/types`) and for a
 * named one (`/api/v1/storages/{storage}/types`). A route is written once, with the storage it
 * answers for resolved per request, and bounded by the request timeout.
 */

export const API_PREFIX = '/api/v1';

export interface RouteSchema {
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly params?: TObject;
  readonly querystring?: TObject;
  readonly response: Record<number, unknown>;
  readonly produces?: readonly string[];
}

export interface ApiRoute {
  /** Path below the prefix, fastify syntax (`/objects/:oid`). */
  readonly path: string;
  readonly schema: RouteSchema;
  readonly handler: (request: FastifyRequest, reply: FastifyReply, context: StorageContext) => Promise<unknown>;
}

export interface RoutingOptions {
  readonly registry: StorageRegistry;
  /** Requests still running after this are answered 503 (0: no limit). */
  readonly requestTimeoutMs: number;
}

export function registerRoute(scope: FastifyInstance, route: ApiRoute, options: RoutingOptions): void {
  for (const named of [false, true]) {
    const properties: TProperties = { ...(named ? StorageParams.properties : {}), ...(route.schema.params?.properties ?? {}) };
    const schema = {
      ...route.schema,
      ...(Object.keys(properties).length > 0 ? { params: Type.Object(properties) } : {}),
      ...(named ? { summary: `${route.schema.summary} (a named storage)` } : {}),
    };
    scope.get(`${API_PREFIX}${named ? '/storages/:storage' : ''}${route.path}`, { schema }, async (request, reply) => {
      const name = named ? (request.params as { storage: string }).storage : undefined;
      const context = options.registry.get(name);
      if (context === undefined) throw notFound(name === undefined ? 'no storage is served' : `no storage named ${name} is served`);
      return withinTimeout(route.handler(request, reply, context), options.requestTimeoutMs);
    });
  }
}

/** One promise and one timer per request (Promise.race and finally would add two promises more). */
function withinTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  if (timeoutMs <= 0) return work;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ApiProblem(503, 'Request Timeout', `the request took longer than the request timeout of ${timeoutMs} ms`)), timeoutMs);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
