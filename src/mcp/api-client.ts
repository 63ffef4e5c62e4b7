import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { API_PREFIX } from '../api-contract/schemas.js';
import type { StorageContext, StorageRegistry } from '../registry/storage-registry.js';

/**
 * The MCP tools answer through `/api/v1` itself: requests are injected (in-process, no socket)
 * into a fastify instance that carries the very plugin `serve` mounts (handed over by the command
 * that starts the MCP server: this room does not import the HTTP server), so the structured
 * content of a tool is the API's answer byte for byte (validated, serialized and bounded by the
 * same schemas and request timeout), and no answer is put together twice. The instance has no access hooks of
 * its own: whoever reaches the MCP server (stdio, or `/mcp` behind the application's checks) is
 * already admitted. Its schema compilers are handed over too (`serve`'s own: each route's schemas
 * compiled on its first request, numbers checked finite): fastify's defaults compiled every route
 * of the API when the instance started (0.25-0.6 s of CPU each time, measured on this machine),
 * and validated without the finite-number check that `serve`'s /api/v1 makes.
 */

export interface ApiProblemBody {
  readonly title: string;
  readonly status: number;
  readonly detail?: string;
}

/** A problem answer of the API (4xx, 5xx), with its detail: a tool error. */
export class ApiAnswerError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    detail: string,
  ) {
    super(detail);
    this.name = 'ApiAnswerError';
  }
}

/** The plugin of `/api/v1` (http/api-v1/api-v1-plugin.ts) as the tools need it. */
export type ApiPlugin = (scope: FastifyInstance, options: { readonly registry: StorageRegistry; readonly requestTimeoutMs: number }) => Promise<void>;

/** fastify's `schemaController.compilersFactory` (http/api-v1/machinery/lazy-schema-compilers.ts makes `serve`'s). */
export type SchemaCompilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/** Query values as the API takes them (numbers and booleans written in decimal). */
export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

/** How long a tool waits for a graph index being built before it answers that it is not ready. */
const GRAPH_WAIT_MS = 30_000;

export class ApiClient {
  private constructor(
    private readonly app: FastifyInstance,
    readonly registry: StorageRegistry,
  ) {}

  static async create(registry: StorageRegistry, requestTimeoutMs: number, api: ApiPlugin, compilers: SchemaCompilers): Promise<ApiClient> {
    const app = Fastify({ logger: false, exposeHeadRoutes: false, schemaController: { compilersFactory: compilers } });
    await app.register(api, { registry, requestTimeoutMs });
    await app.ready();
    return new ApiClient(app, registry);
  }

  /** The storage a tool asked for (the default one when no name is given), or a tool error. */
  context(storage: string | undefined): StorageContext {
    const context = this.registry.get(storage);
    if (context !== undefined) return context;
    const names = this.registry.names();
    throw new ApiAnswerError(404, 'Not Found', storage === undefined ? 'no storage is served' : `no storage named ${storage} is served (served: ${names.join(', ')})`);
  }

  /**
   * GET `path` (below /api/v1, for the given storage) and its JSON answer; a problem answer is
   * thrown as ApiAnswerError. Routes that need the graph index wait for it a while first.
   */
  async get<T>(storage: string | undefined, path: string, query: Query = {}, needsGraph = true): Promise<T> {
    const context = this.context(storage);
    if (needsGraph) await graphReady(context);
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, String(value));
    const text = search.toString();
    const prefix = storage === undefined ? API_PREFIX : `${API_PREFIX}/storages/${encodeURIComponent(storage)}`;
    const response = await this.app.inject({ method: 'GET', url: `${prefix}${path}${text === '' ? '' : `?${text}`}` });
    const body: unknown = response.json();
    if (response.statusCode !== 200) {
      const problem = body as Partial<ApiProblemBody>;
      throw new ApiAnswerError(response.statusCode, problem.title ?? 'Error', problem.detail ?? `the API answered ${response.statusCode}`);
    }
    return body as T;
  }

  async close(): Promise<void> {
    await this.app.close();
  }
}

/**
 * Waits (bounded) for the graph index of a storage and for its dominator tree, which follows it
 * (so that an object's answer has its retained size whenever the index is ready); the API then
 * says what the state is.
 */
async function graphReady(context: StorageContext): Promise<void> {
  if (context.graph.state.kind !== 'building' && context.graph.dominators.state.kind !== 'computing') return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    context.graph
      .ready()
      .then(() => context.graph.dominators.ready())
      .catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, GRAPH_WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
}
