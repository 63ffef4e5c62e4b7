import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** The built command (`node dist/cli/main.js mcp ...`) started by the SDK's stdio client, as an assistant starts it. */

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MAIN = join(ROOT, 'dist', 'cli', 'main.js');

/** `env`: variables set for the command besides the SDK's default environment (PATH, HOME...). */
export async function stdioClient(args: string[], env?: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  if (!existsSync(join(ROOT, 'dist', 'mcp', 'mcp-server.js'))) throw new Error('dist/ has no MCP server: run npm run build first');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, 'mcp', '--no-follow', ...args],
    cwd: ROOT,
    stderr: 'pipe',
    ...(env === undefined ? {} : { env: { ...getDefaultEnvironment(), ...env } }),
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'storage-inspector-test', version: '0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

