import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { apiV1Plugin } from '../../src/http/api-v1/api-v1-plugin.js';
import { buildApp } from '../../src/http/app.js';
import { ApiClient } from '../../src/mcp/api-client.js';
import { createMcpServer } from '../../src/mcp/mcp-server.js';
import type { ToolDeps } from '../../src/mcp/tool-kit.js';
import { StorageRegistry } from '../../src/registry/storage-registry.js';
import { Storage } from '../../src/storage/storage.js';

/**
 * The MCP server over one or more storages, in this process: the SDK's client on an in-memory
 * transport, and the /api/v1 routes beside it to compare with. No child process, no port: a test
 * calls the tools as a client does, fast enough for a mutation run.
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

export const textOf = (result: CallToolResult): string => (result.content[0] as { text: string }).text;

export async function mcpInProcess(
  storages: Readonly<Record<string, string>>,
  extra: Pick<ToolDeps, 'checkSource' | 'sqlEngine'> = {},
): Promise<McpInProcess> {
  const registry = new StorageRegistry();
  const opened: Storage[] = [];
  for (const [name, directory] of Object.entries(storages)) {
    const storage = await Storage.open(directory);
    opened.push(storage);
    registry.add(name, storage);
  }
  registry.startAll();
  for (const name of registry.names()) await registry.get(name)!.graph.ready();
  const app = buildApp(opened[0]!, { instance: 'microstream', api: registry });
  const api = await ApiClient.create(registry, 30_000, apiV1Plugin);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer({ api, registry, ...extra }).connect(serverSide);
  const client = new Client({ name: 'in-process-test', version: '0' });
  await client.connect(clientSide);
  const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    client,
    registry,
    call,
    text: async (name, args) => textOf(await call(name, args)),
    api: async <T>(url: string) => {
      const response = await app.inject({ url: `/api/v1${url}` });
      if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
      return response.json() as T;
    },
    close: async () => {
      await client.close();
      await api.close();
      await app.close();
      await registry.close();
      for (const storage of opened) await storage.close();
    },
  };
}
