import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ApiClient } from './api-client.js';
import { createMcpServer } from './mcp-server.js';
import type { McpHttpHandler, McpRouteOptions } from './http-types.js';

/**
 * One `/mcp` request through the SDK's Streamable HTTP transport (its web-standard form: a
 * Request in, a Response out, so that fastify still sends the answer with its hooks, log line and
 * metrics). Stateless (no session id generator): a new server and transport per request, no session kept, JSON answers
 * (no event stream is held open).
 */

export async function createMcpHttpHandler(options: McpRouteOptions): Promise<McpHttpHandler> {
  const api = await ApiClient.create(options.registry, options.requestTimeoutMs, options.api, options.schemaCompilers());
  return async (request) => {
    const server = createMcpServer({ api, registry: options.registry, checkSource: options.checkSource, sqlEngine: options.sqlEngine });
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(request);
      const headers: Record<string, string> = {};
      response.headers.forEach((value, key) => {
        headers[key] = value;
      });
      return { status: response.status, headers, body: await response.text() };
    } finally {
      await server.close();
    }
  };
}
