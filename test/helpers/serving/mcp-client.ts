import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { apiV1Plugin } from '../../../src/http/api-v1/api-v1-plugin.js';
import { lazySchemaCompilers } from '../../../src/http/api-v1/machinery/lazy-schema-compilers.js';
import { ApiClient } from '../../../src/mcp/api-client.js';
import { createMcpServer } from '../../../src/mcp/mcp-server.js';
import type { ToolDeps } from '../../../src/mcp/tool-kit.js';
import type { StorageRegistry } from '../../../src/registry/storage-registry.js';

/**
 * The MCP server over a registry the test made, in this process, with the SDK's client on an
 * in-memory transport: no child process, no port. Its /api/v1 requests time out after 30 s, the
 * default of `mcp`. Neither starts nor awaits graph builds: the test decides when the index is there.
 * close() closes the client and the API instance, not the registry.
 */
export interface McpClient {
  readonly client: Client;
  /** The /api/v1 instance the tools ask (a test may ask it the same). */
  readonly api: ApiClient;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export const textOf = (result: CallToolResult): string => (result.content[0] as { text: string }).text;

export async function mcpClient(registry: StorageRegistry, extra: Pick<ToolDeps, 'checkSource' | 'sqlEngine'> = {}): Promise<McpClient> {
  const api = await ApiClient.create(registry, 30_000, apiV1Plugin, lazySchemaCompilers());
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer({ api, registry, ...extra }).connect(serverSide);
  const client = new Client({ name: 'in-process-test', version: '0' });
  await client.connect(clientSide);
  return {
    client,
    api,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close();
      await api.close();
    },
  };
}
