import { createRequire } from 'node:module';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { API_TAGS } from '../api-v1/machinery/api-tags.js';
import type { Dialect } from '../java/dialects.js';
import { JAVA_TAG, javaRoutesOpenApi } from '../java/java-routes-openapi.js';

/**
 * The OpenAPI 3.1 document of every route (`GET /openapi.json`) and a page to read it
 * (`GET /docs`, Swagger UI served from the installed package, nothing from a CDN). Routes with
 * schemas document themselves, the Java-compatible routes (one catch-all) are described in
 * java-routes-openapi.ts, and routes without a schema get a summary here.
 *
 * Both are made when first asked for, not while the server starts: @fastify/swagger and
 * @fastify/swagger-ui (with @fastify/static, yaml, glob and the rest) took about a fifth of the CPU
 * from launch to the first answer of a small storage. Until then a hook only notes each route as
 * it is added (what @fastify/swagger's own hook notes); the first request for the document or the
 * page builds a documentation server (documentation-server.ts) that registers the same plugins with
 * the same options and the noted routes in the same order, so the document is the one the plugins
 * would have made in this application; `/docs` is answered by that server.
 */

declare module 'fastify' {
  interface FastifyInstance {
    /** The OpenAPI document of every route (made on first call; after `ready`). */
    openApiDocument(): Promise<Record<string, unknown>>;
  }
}

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

export const OPERATIONS_TAG = 'operations';
const VIEWER_TAG = 'viewer';

/** Summaries of routes that carry no schema of their own (static files, redirects). */
const SCHEMALESS: Readonly<Record<string, { readonly tag: string; readonly summary: string; readonly description: string }>> = {
  '/viewer': { tag: VIEWER_TAG, summary: 'Web viewer (redirect)', description: 'Redirects (301) to `/viewer/`, keeping the query.' },
  '/viewer/*': {
    tag: VIEWER_TAG,
    summary: 'Web viewer files',
    description:
      'The browser viewer (index.html, hashed assets cached for a year, gzip when accepted, ETag/304). `503` when the viewer was not built, `404` (plain text) for other paths.',
  },
};

function packageVersion(): string {
  return (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;
}

/** The document's beginning: what the routes' own descriptions are added to. */
function documentBase(options: { readonly instance: string; readonly dialect?: Dialect | undefined }): Record<string, unknown> {
  const java = javaRoutesOpenApi(options.instance, options.dialect ?? 'spark');
  // Built as plain JSON (the tests validate the whole document): openapi-types' 3.1 types do not
  // survive exactOptionalPropertyTypes.
  return {
    openapi: '3.1.0',
    info: {
      title: 'storage-inspector',
      version: packageVersion(),
      description:
        'Serves a MicroStream / EclipseStore storage read-only. The Java-compatible routes answer byte for byte like the Java Storage REST service (numbers as JSON strings, errors as plain-text 404s); /api/v1 is our own JSON API (its part alone: /api/v1/openapi.json); the operations routes are for health checks and monitoring. Every route passes the same access control (`--auth-token-file`, `--basic-auth-file`); `/metrics` also accepts the `--metrics-token-file` token.',
    },
    tags: [
      { name: JAVA_TAG, description: `The Java Storage REST service's routes under /${options.instance}, byte for byte` },
      { name: OPERATIONS_TAG, description: 'Health, readiness, metrics and this document' },
      { name: VIEWER_TAG, description: 'The web viewer (static files)' },
      ...API_TAGS.map((t) => ({ ...t, description: `/api/v1: ${t.description}` })),
    ],
    paths: java.paths,
    components: {
      schemas: java.schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'with --auth-token-file (or --metrics-token-file, for /metrics only)' },
        basic: { type: 'http', scheme: 'basic', description: 'with --basic-auth-file' },
      },
    },
  };
}

/** @fastify/swagger's options: the document's beginning, and summaries for routes without a schema. */
function swaggerOptions(options: { readonly instance: string; readonly dialect?: Dialect | undefined }): FastifyDynamicSwaggerOptions {
  return {
    openapi: documentBase(options) as unknown as NonNullable<FastifyDynamicSwaggerOptions['openapi']>,
    transform: ({ schema, url }) => {
      const known = SCHEMALESS[url];
      if (known === undefined || (schema !== undefined && schema !== null && Object.keys(schema).length > 0)) return { schema, url };
      return { schema: { tags: [known.tag], summary: known.summary, description: known.description }, url };
    },
  };
}

/** @fastify/swagger-ui's options: the page under /docs, reading /openapi.json. */
const SWAGGER_UI_OPTIONS: FastifySwaggerUiOptions = {
  routePrefix: DOCS_PATH,
  staticCSP: true,
  // The plugin's policy ends with upgrade-insecure-requests: over plain HTTP under any name but
  // a loopback one the browser would then fetch the page's own assets over https, and show nothing.
  transformStaticCSP: (header: string) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
  uiConfig: { url: OPENAPI_PATH, docExpansion: 'list', deepLinking: true, validatorUrl: null, tryItOutEnabled: false },
};

/** The routes and their documentation, once they are all known. */
export interface OpenApi {
  /** The documentation server (documentation-server.ts), made on first call. */
  server(): Promise<FastifyInstance>;
  /**
   * A place among the routes for routes another instance adds later (the /api/v1 instance, made
   * on its first request: api-v1/lazy-api-v1.ts): they are documented here, in the order they
   * come, as if added now. `make` makes that instance (adding its routes through the function
   * returned); the document's first request calls it if no request did.
   */
  later(make: () => Promise<unknown>): (route: RouteOptions) => void;
}

/** Routes noted later, at their place (OpenApi.later). */
interface LaterRoutes {
  readonly make: () => Promise<unknown>;
  readonly routes: RouteOptions[];
}

/** As @fastify/swagger's own hook: the HEAD routes fastify adds beside each GET are not documented; hidden routes (catch-alls, the page's own) never are. */
function documented(route: RouteOptions): boolean {
  return route.method !== 'HEAD' && (route.schema as { hide?: boolean } | undefined)?.hide !== true;
}

/**
 * Notes every route as it is added, for the document made later; call before registering any
 * route. Decorates the application with `openApiDocument()`.
 */
export function registerOpenApi(app: FastifyInstance, options: { readonly instance: string; readonly dialect?: Dialect | undefined }): OpenApi {
  const routes: (RouteOptions | LaterRoutes)[] = [];
  app.addHook('onRoute', (route) => {
    if (documented(route)) routes.push(route);
  });
  /** Every route, those noted later in their place (their instances made first). */
  const allRoutes = async (): Promise<RouteOptions[]> => {
    const all: RouteOptions[] = [];
    for (const entry of routes) {
      if ('make' in entry) {
        await entry.make();
        all.push(...entry.routes);
      } else all.push(entry);
    }
    return all;
  };
  let ready = false;
  app.addHook('onReady', (done) => {
    ready = true;
    done();
  });
  let server: Promise<FastifyInstance> | undefined;
  const openApi: OpenApi = {
    server() {
      if (!ready) return Promise.reject(new Error('the OpenAPI document is made after the server is ready'));
      server ??= Promise.all([import('./documentation-server.js'), allRoutes()])
        .then(([m, all]) => m.documentationServer(all, swaggerOptions(options), SWAGGER_UI_OPTIONS))
        .catch((error: unknown) => {
          // Asked again, it is tried again.
          server = undefined;
          throw error;
        });
      return server;
    },
    later(make) {
      const later: LaterRoutes = { make, routes: [] };
      routes.push(later);
      return (route) => {
        if (documented(route)) later.routes.push(route);
      };
    },
  };
  app.decorate('openApiDocument', async () => (await openApi.server()).swagger() as unknown as Record<string, unknown>);
  app.addHook('onClose', async () => {
    if (server !== undefined) await (await server.catch(() => undefined))?.close();
  });
  return openApi;
}

/**
 * Response headers of the documentation server that belong to its own connection, not to ours
 * (its content-length is kept: fastify keeps it for HEAD and corrects it otherwise).
 */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date']);

/** `GET /openapi.json` and the Swagger UI page under `/docs`. */
export async function openApiRoutes(scope: FastifyInstance, options: { readonly openApi: OpenApi }): Promise<void> {
  scope.get(
    OPENAPI_PATH,
    {
      schema: {
        tags: [OPERATIONS_TAG],
        summary: 'This document',
        description: 'The OpenAPI 3.1 document of every route this server answers.',
        response: { 200: { description: 'the OpenAPI document', type: 'object', additionalProperties: true } },
      },
    },
    async () => scope.openApiDocument(),
  );
  // The page and its files: answered by the documentation server, through this application's
  // hooks (access control, limits, logging). The same methods as @fastify/swagger-ui's routes:
  // GET, and HEAD for the static files (other requests go to the Java routes, as before).
  const page = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const server = await options.openApi.server();
    const answer = await server.inject({ method: request.method === 'HEAD' ? 'HEAD' : 'GET', url: request.raw.url ?? request.url, headers: request.headers });
    for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !CONNECTION_HEADERS.has(name)) reply.header(name, value);
    // What the page does not have is answered as any unknown path of this application is.
    if (answer.statusCode === 404) {
      reply.removeHeader('content-type').removeHeader('content-length');
      reply.callNotFound();
      return reply;
    }
    reply.code(answer.statusCode);
    // An empty answer (a redirect, 304) stays without a body, as the plugins sent it.
    return answer.rawPayload.length === 0 ? reply.send() : reply.send(answer.rawPayload);
  };
  scope.get(DOCS_PATH, { schema: { hide: true } }, page);
  scope.get(`${DOCS_PATH}/*`, { schema: { hide: true } }, page);
  scope.route({ method: ['HEAD', 'GET'], url: `${DOCS_PATH}/static/*`, schema: { hide: true }, handler: page });
}
