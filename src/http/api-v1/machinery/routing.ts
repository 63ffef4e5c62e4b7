import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TObject, type TProperties } from 'typebox';
import type { StorageContext, StorageRegistry } from '../../../registry/storage-registry.js';
import { ApiProblem, notFound } from './problem-details.js';
import { API_PREFIX, StorageParams } from '../../../api-contract/schemas.js';

/**
 * Every route of `/api/v1` exists twice: for the default storage (`/api/v1/types`) and for a
 * named one (`/api/v1/storages/{storage}/types`). A route is written once, with the storage it
 * answers for resolved per request, and bounded by the request timeout.
 */

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
  readonly handler: (request: FastifyRequest, reply: FastifyReply, context: StorageContext, options: RoutingOptions) => Promise<unknown>;
  /**
   * Not admitted as a big answer whatever its page: for a route whose work is long but bounded by
   * its own budget (search: `maxMs`), which would hold a building slot all that time.
   */
  readonly neverBig?: boolean;
}

export interface RoutingOptions {
  readonly registry: StorageRegistry;
  /** Requests still running after this are answered 503 (0: no limit). */
  readonly requestTimeoutMs: number;
  /** The budget of unsent answers (--max-unsent-bytes); none when undefined. */
  readonly admission?: AnswerAdmission | undefined;
}

/**
 * What a big answer waits for before it is built, from the HTTP layer (big-answers.ts): its
 * connection's earlier answers sent, a building slot, room among the unsent answers
 * (--max-unsent-bytes); resolves with the slot's release, rejects with a 503 at the deadline.
 */
export interface AnswerAdmission {
  big(request: FastifyRequest, deadline: number): Promise<() => void>;
}

/** Items per page unless asked otherwise; a request for a bigger page is admitted as a big answer. */
export const DEFAULT_PAGE = 100;

/** Whether a request asks for more than a default answer (a page past the default). */
function asksForBig(query: unknown): boolean {
  const limit = (query as { limit?: unknown } | undefined)?.limit;
  return typeof limit === 'number' && limit > DEFAULT_PAGE;
}

/** Set on a request holding a building slot until its answer is counted among the unsent ones. */
const SLOT = Symbol('storage-inspector.buildingSlot');
type SlotHolding = FastifyRequest & { [SLOT]?: (() => void) | undefined };

export function registerRoute(scope: FastifyInstance, route: ApiRoute, options: RoutingOptions): void {
  for (const named of [false, true]) {
    const properties: TProperties = { ...(named ? StorageParams.properties : {}), ...(route.schema.params?.properties ?? {}) };
    const schema = {
      ...route.schema,
      ...(Object.keys(properties).length > 0 ? { params: Type.Object(properties) } : {}),
      ...(named ? { summary: `${route.schema.summary} (a named storage)` } : {}),
    };
    scope.get(
      `${API_PREFIX}${named ? '/storages/:storage' : ''}${route.path}`,
      {
        schema,
        // The application's onSend hook (registered first, so run first) has counted the answer
        // among the unsent ones: the next big answer sees it, the slot can go.
        onSend: (request, _reply, payload, done) => {
          releaseSlot(request);
          done(null, payload);
        },
        onResponse: (request, _reply, done) => {
          releaseSlot(request);
          done();
        },
      },
      async (request, reply) => {
        const name = named ? (request.params as { storage: string }).storage : undefined;
        const context = options.registry.get(name);
        if (context === undefined) throw notFound(name === undefined ? 'no storage is served' : `no storage named ${name} is served`);
        if (route.neverBig !== true) await admitted(request, options);
        return withinTimeout(route.handler(request, reply, context, options), options.requestTimeoutMs);
      },
    );
  }
}

/**
 * Before any work, a request for a page past the default is admitted like a big answer of the
 * Java routes: it waits for a building slot and for room among the unsent answers (a 503 at the
 * request's deadline), so that many such requests, or clients that do not read them, cannot pile
 * answers up in memory. Default pages are small and never wait (as `/root` does not).
 */
async function admitted(request: FastifyRequest, options: RoutingOptions): Promise<void> {
  const admission = options.admission;
  if (admission === undefined || !asksForBig(request.query)) return;
  const deadline = options.requestTimeoutMs > 0 ? Date.now() + options.requestTimeoutMs : Number.POSITIVE_INFINITY;
  (request as SlotHolding)[SLOT] = await admission.big(request, deadline);
  // A slot handed over resolves in a microtask: give I/O (and small answers) a turn first, or
  // queued big answers would follow each other without one.
  await nextTurn();
}

function releaseSlot(request: FastifyRequest): void {
  const holding = request as SlotHolding;
  const release = holding[SLOT];
  if (release === undefined) return;
  holding[SLOT] = undefined;
  release();
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
