import type { FastifyInstance } from 'fastify';
import type { McpHttpHandler, McpRouteOptions } from './http-types.js';

/**
 * `POST /mcp`: the MCP server for assistants that speak Streamable HTTP, registered inside the
 * application by `serve` (the HTTP server does not know it), so that the same authentication,
 * Host check, connection cap and body limit apply as to every other route. The SDK is loaded on the first request, not when `serve` starts.
 */

export type { McpRouteOptions } from './http-types.js';

export const MCP_PATH = '/mcp';

const METHOD_NOT_ALLOWED = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless, POST JSON-RPC requests to /mcp' }, id: null });

export async function mcpRoutes(scope: FastifyInstance, options: McpRouteOptions): Promise<void> {
  let handler: Promise<McpHttpHandler> | undefined;
  // The application reads no bodies; this scope keeps JSON ones (within the application's body limit) for the transport.
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  scope.route({
    method: ['GET', 'POST', 'DELETE'],
    url: MCP_PATH,
    schema: { hide: true },
    handler: async (request, reply) => {
      if (request.method !== 'POST') {
        // No session, so no event stream to open (GET) and none to end (DELETE).
        return reply.code(405).header('allow', 'POST').type('application/json').send(METHOD_NOT_ALLOWED);
      }
      handler ??= Promise.all([import('./http-transport.js'), options.loadSqlEngine?.()])
        .then(([m, sqlEngine]) => m.createMcpHttpHandler(sqlEngine === undefined ? options : { ...options, sqlEngine }))
        .catch((error: unknown) => {
          handler = undefined;
          throw error;
        });
      const headers = new Headers();
      for (const [key, value] of Object.entries(request.headers)) {
        if (typeof value === 'string') headers.set(key, value);
        else if (Array.isArray(value)) headers.set(key, value.join(', '));
      }
      const body = typeof request.body === 'string' ? request.body : '';
      const answer = await (await handler)(new Request(`http://localhost${MCP_PATH}`, { method: 'POST', headers, body }));
      reply.code(answer.status).headers(answer.headers);
      return reply.send(answer.body);
    },
  });
}
