import { createRequire } from 'node:module';
import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { API_TAGS } from './api-v1/api-v1-plugin.js';
import type { Dialect } from './dialects.js';
import { JAVA_TAG, javaRoutesOpenApi } from './java-routes-openapi.js';

/**
 * The OpenAPI 3.1 document of every route (`GET /openapi.json`) and a page to read it
 * (`GET /docs`, Swagger UI served from the installed package, nothing from a CDN). One
 * @fastify/swagger registration for the whole application: it must be registered before any
 * route (it learns routes as they are added); routes with schemas document themselves, the
 * Java-compatible routes (one catch-all) are described in java-routes-openapi.ts, and routes
 * without a schema get a summary here.
 */

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
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}

/** Registers the document generator; call before registering any route. */
export function registerOpenApi(app: FastifyInstance, options: { readonly instance: string; readonly dialect?: Dialect | undefined }): void {
  const java = javaRoutesOpenApi(options.instance, options.dialect ?? 'spark');
  // Built as plain JSON (the tests validate the whole document): openapi-types' 3.1 types do not
  // survive exactOptionalPropertyTypes.
  const document = {
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
  void app.register(swagger, {
    openapi: document as unknown as NonNullable<FastifyDynamicSwaggerOptions['openapi']>,
    transform: ({ schema, url }) => {
      const known = SCHEMALESS[url];
      if (known === undefined || (schema !== undefined && schema !== null && Object.keys(schema).length > 0)) return { schema, url };
      return { schema: { tags: [known.tag], summary: known.summary, description: known.description }, url };
    },
  });
}

/** `GET /openapi.json` and the Swagger UI page under `/docs`. */
export async function openApiRoutes(scope: FastifyInstance): Promise<void> {
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
    async () => scope.swagger(),
  );
  await scope.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    staticCSP: true,
    // The plugin's policy ends with upgrade-insecure-requests: over plain HTTP under any name but
    // a loopback one the browser would then fetch the page's own assets over https, and show nothing.
    transformStaticCSP: (header: string) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
    uiConfig: { url: OPENAPI_PATH, docExpansion: 'list', deepLinking: true, validatorUrl: null, tryItOutEnabled: false },
  });
}
