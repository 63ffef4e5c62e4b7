import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { buildApp } from '../../../src/http/app.js';
import type { ToolDeps } from '../../../src/mcp/tool-kit.js';
import type { StorageRegistry } from '../../../src/registry/storage-registry.js';
import { mcpClient, textOf } from './mcp-client.js';
import { graphsBuilt, registeredStorages } from './registered-storage.js';

export { textOf };

/**
 * The MCP server over one or more storages, in this process: the SDK's client on an in-memory
 * transport, and the /api/v1 routes beside it to compare with. No child process, no port: a test
 * calls the tools as a client does, fast enough for a mutation run. Every graph index is built
 * before it returns (registeredStorages, graphsBuilt, then mcpClient).
 */
export interface McpInProcess {
  readonly client: Client;
  readonly registry: StorageRegistry;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** The text of a call's answer. */
  text(name: string, args?: Record<string, unknown>): Promise<string>;
  /** GET /api/v1… of the first storage, parsed. */
  api<T = Record<string, unknown>>(url: string): Promise<T>;
  close(): Promise<void>;
}

export async function mcpInProcess(
  storages: Readonly<Record<string, string>>,
  extra: Pick<ToolDeps, 'checkSource' | 'sqlEngine'> = {},
): Promise<McpInProcess> {
  const registered = await registeredStorages(storages);
  const { registry } = registered;
  await graphsBuilt(registry);
  const app = buildApp(registered.storages[0]!, { instance: 'microstream', api: registry });
  const mcp = await mcpClient(registry, extra);
  return {
    client: mcp.client,
    registry,
    call: mcp.call,
    text: async (name, args) => textOf(await mcp.call(name, args)),
    api: async <T>(url: string) => {
      const response = await app.inject({ url: `/api/v1${url}` });
      if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
      return response.json() as T;
    },
    close: async () => {
      await mcp.close();
      await app.close();
      await registered.close();
    },
  };
}
