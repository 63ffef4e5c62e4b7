import { cacheArgsOf, tableCacheOf, withCacheOptions } from '../options/cache-options.js';
import { type Command, Option } from 'commander';
import { StorageRegistry } from '../../registry/storage-registry.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../http/guard/limits.js';
import { DEFAULT_POLL_INTERVAL_MS } from '../../storage/follow/follow.js';
import { DEFAULT_MAX_DICTIONARY_BYTES } from '../../storage/storage.js';
import { warnIfShared } from '../../http/guard/auth.js';
import type { CommandIo } from '../io.js';
import { fromEnv, integerOption, parseCommand, toolCommand } from '../options/option-values.js';
import { STORAGE_ARGUMENT_TEXT, withStorageOptions } from '../options/storage-argument.js';
import { checkStorageSpecs, DEFAULT_STORAGE_NAME, openStorages, parseStorageSpecs, type StorageSpec } from './serve-storages.js';

/**
 * `mcp`: a Model Context Protocol server over stdio for AI assistants, on the storages `serve`
 * takes (opened the same way). stdout carries the protocol and nothing else: every message of
 * ours goes to stderr. The SDK is loaded here only, when the command runs.
 */

const DESCRIPTION = [
  'Lets an AI assistant (Claude Code, Claude Desktop, Cursor, VS Code) inspect a MicroStream or EclipseStore storage: a Model Context Protocol server on stdin/stdout with tools for the overview, objects, instances, search, referrers, paths, versions, garbage and the type dictionary. Read-only.',
  'Storages as for serve: a directory, NAME=DIR for each of several, or a database (postgres://, mariadb://, mysql://user@host:port/db or sqlite:FILE) with --table. Messages go to stderr; stdout is the protocol.',
].join('\n\n');

export function mcpCommand(): Command {
  const command = withStorageOptions(toolCommand('mcp').description(DESCRIPTION).argument('[storages...]', `${STORAGE_ARGUMENT_TEXT}; NAME=<either> for each of several`))
    .addOption(fromEnv(new Option('--no-follow', 'answer from the state at startup; do not follow later commits')))
    .addOption(fromEnv(integerOption('--poll-interval', 'ms', 'how often to look for changes besides file system events', 10, 3_600_000, 'milliseconds').default(DEFAULT_POLL_INTERVAL_MS)))
    .addOption(fromEnv(integerOption('--request-timeout', 'ms', `a tool still running after this answers an error; 0: none (default ${DEFAULT_REQUEST_TIMEOUT_MS})`, 0, 86_400_000, 'milliseconds')))
    .addOption(fromEnv(new Option('--allow-external-links', 'follow symbolic links of the storage directory that lead outside it')))
    .addOption(fromEnv(integerOption('--max-dictionary-bytes', 'n', `refuse a type dictionary larger than this (default ${DEFAULT_MAX_DICTIONARY_BYTES})`, 1024, 2 ** 30, 'bytes')))
    .addOption(fromEnv(new Option('--no-sql', 'no sql_query tool')));
  return withCacheOptions(command);
}

interface McpFlags {
  table?: string;
  pgPasswordFile?: string;
  follow: boolean;
  pollInterval: number;
  requestTimeout?: number;
  allowExternalLinks?: true;
  maxDictionaryBytes?: number;
  sql: boolean;
  cache?: boolean;
  cacheDir?: string;
  cacheMaxSize?: number;
}

export interface McpArgs {
  readonly storages: readonly StorageSpec[];
  readonly flags: McpFlags;
}

export function parseMcpArgs(args: string[]): McpArgs | 'help' {
  const command = mcpCommand();
  if (parseCommand(command, args) === 'help') return 'help';
  const flags = command.opts<McpFlags>();
  const storages = parseStorageSpecs(command.args);
  checkStorageSpecs(storages, { table: flags.table, passwordFile: flags.pgPasswordFile });
  return { storages, flags };
}

export async function run(args: string[], io: CommandIo): Promise<void> {
  const parsed = parseMcpArgs(args);
  if (parsed === 'help') {
    io.stdout.write(mcpCommand().helpInformation());
    return;
  }
  const { storages: specs, flags } = parsed;
  // Whatever the storage code says goes to stderr: stdout belongs to the protocol.
  const quiet: CommandIo = { stdout: io.stderr, stderr: io.stderr };
  if (flags.pgPasswordFile !== undefined) warnIfShared(flags.pgPasswordFile, '--pg-password-file', (m) => void io.stderr.write(`storage-inspector: warning: ${m}\n`));
  const sourceOptions = { table: flags.table, passwordFile: flags.pgPasswordFile, allowExternalLinks: flags.allowExternalLinks === true };
  const registry = new StorageRegistry();
  const opened = await openStorages(
    specs,
    {
      dialect: 'spark',
      follow: flags.follow,
      pollIntervalMs: flags.pollInterval,
      allowExternalLinks: flags.allowExternalLinks === true,
      maxDictionaryBytes: flags.maxDictionaryBytes ?? DEFAULT_MAX_DICTIONARY_BYTES,
    },
    sourceOptions,
    registry,
    quiet,
  );
  const [{ ApiClient }, { createMcpServer }, { checkSourceOpener }, { LineStdioTransport }, { sqlEngineFor }, { closeSqlEngines, settleSqlEngines }, { apiV1Plugin }, { lazySchemaCompilers }] = await Promise.all([
    import('../../mcp/api-client.js'),
    import('../../mcp/mcp-server.js'),
    import('../../mcp/check-sources.js'),
    import('../../mcp/stdio-transport.js'),
    import('../sql/sql-engine-for.js'),
    import('../../http/api-v1/sql/sql-engines.js'),
    import('../../http/api-v1/api-v1-plugin.js'),
    import('../../http/api-v1/machinery/lazy-schema-compilers.js'),
  ]);
  const api = await ApiClient.create(registry, flags.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT_MS, apiV1Plugin, lazySchemaCompilers());
  const server = createMcpServer({
    api,
    registry,
    checkSource: checkSourceOpener(specs, sourceOptions, DEFAULT_STORAGE_NAME),
    // The sql_query tool: the storage's SQL engine with the default limits (--no-sql: none).
    // Its warnings go to stderr, the server's log (stdout is the protocol's), as `serve` logs them.
    ...(flags.sql
      ? { sqlEngine: sqlEngineFor({ cache: tableCacheOf(cacheArgsOf(flags)), onStorageProblem: (name, m) => void io.stderr.write(`storage-inspector: warning: ${name}: sql: ${m}\n`) }) }
      : {}),
  });
  // One line a message; a line too long or not JSON is answered with a JSON-RPC error and reading goes on.
  const transport = new LineStdioTransport(process.stdin, process.stdout, (line) => void io.stderr.write(`${line}\n`));
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    // The assistant ends the server by closing its stdin (or by a signal).
    process.stdin.once('end', () => resolve());
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  opened.start();
  registry.startAll();
  await server.connect(transport);
  io.stderr.write(`storage-inspector: MCP server on stdio for ${registry.names().join(', ')} (${registry.all().map((c) => c.storage.family.label).join(', ')})\n`);
  await closed;
  await server.close();
  await opened.stop();
  // The tables kept in the cache first: closing the API closes its engines and forgets them.
  await settleSqlEngines(registry.all());
  await api.close();
  closeSqlEngines(registry.all());
  await registry.close();
  for (const o of opened.opened) await o.storage.close();
}
