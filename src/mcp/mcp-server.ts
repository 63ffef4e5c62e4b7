import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createRequire } from 'node:module';
import { registerResources } from './resources.js';
import { refuseUnknownArguments, type ToolDeps } from './tool-kit.js';
import { registerAnalysisTools } from './tools/analysis-tools.js';
import { registerHistoryTools } from './tools/history-tools.js';
import { registerObjectTools } from './tools/object-tools.js';
import { registerRetainedTool } from './tools/retained-tool.js';
import { registerSearchTools } from './tools/search-tools.js';
import { registerSqlTool } from './tools/sql-tool.js';
import { registerStorageTools } from './tools/storage-tools.js';

/**
 * One MCP server (the SDK's McpServer) over the served storages: the tools and the resources. A
 * server serves one connection: stdio makes one, `/mcp` one per request (stateless).
 */

const INSTRUCTIONS =
  'Read-only inspection of a MicroStream/EclipseStore storage (Java object-graph persistence). Start with storage_overview, then describe_object on the root id; ids are decimal strings. Answers are bounded: a "truncated:" line gives the next cursor or what to narrow. The data-model resource explains ids, types, references and garbage.';

/** The version in package.json (two levels up from both src/mcp and dist/mcp). */
function toolVersion(): string {
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}

export function createMcpServer(deps: ToolDeps): McpServer {
  const server = new McpServer({ name: 'storage-inspector', title: 'storage-inspector', version: toolVersion() }, { instructions: INSTRUCTIONS });
  refuseUnknownArguments(server);
  registerStorageTools(server, deps);
  registerObjectTools(server, deps);
  registerSearchTools(server, deps);
  registerAnalysisTools(server, deps);
  registerRetainedTool(server, deps);
  registerHistoryTools(server, deps);
  registerSqlTool(server, deps);
  registerResources(server, deps.registry);
  return server;
}
