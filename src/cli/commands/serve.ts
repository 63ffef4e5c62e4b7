import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp } from '../../http/app.js';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from '../../http/guard/limits.js';
import { lazySchemaCompilers } from '../../http/api-v1/machinery/lazy-schema-compilers.js';
import { warnIfShared } from '../../http/guard/auth.js';
import { checkSourceOpener } from '../../mcp/check-sources.js';
import { mcpRoutes } from '../../mcp/http-route.js';
import { StorageRegistry } from '../../registry/storage-registry.js';
import { DEFAULT_MAX_DICTIONARY_BYTES } from '../../storage/storage.js';
import type { CommandIo } from '../io.js';
import { serverLogger } from '../output/server-logger.js';
import { tableCacheOf } from '../options/cache-options.js';
import { openAccess, type ServeAccess } from './serve-access.js';
import { afterFirstAnswer, FIRST_ANSWER_WAIT_MS, listenOrExplain, servingLines, shutDownOnSignals } from './serve-lifecycle.js';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, parseServeArgs, serveCommand, type ServeOptions } from './serve-options.js';
import { DEFAULT_STORAGE_NAME, openStorages, type OpenedStorages } from './serve-storages.js';

/**
 * `serve`: its options (serve-options.ts), what it opens (serve-access.ts: secrets, certificates,
 * who may connect; serve-storages.ts: the storages), and how it serves (serve-lifecycle.ts: the
 * port's stand-in while storages open, shutdown, the lines saying where what is). Here they are
 * put together, with the application (http/app.ts) and the MCP server mounted on it at /mcp.
 */

export { DEFAULT_SHUTDOWN_TIMEOUT_MS, parseServeArgs, serveCommand, type ServeOptions } from './serve-options.js';
export { refuseOpenServer } from './serve-access.js';

export async function run(args: string[], io: CommandIo): Promise<void> {
  const options = parseServeArgs(args);
  if (options === 'help') {
    io.stdout.write(serveCommand().helpInformation());
    return;
  }
  // Secrets and certificates are read (and checked) before the storage is opened.
  const warn = (message: string): void => void io.stderr.write(`storage-inspector: warning: ${message}\n`);
  const access = openAccess(options, warn);
  if (options.pgPasswordFile !== undefined) warnIfShared(options.pgPasswordFile, '--pg-password-file', warn);
  const registry = new StorageRegistry();
  // The port answers /health and /ready while the storages open (opening-server.ts).
  // (Not naming the storages: a postgres:// URL may carry credentials.)
  const what = options.storages.length === 1 ? 'the storage' : `${options.storages.length} storages`;
  const openingSince = Date.now();
  const opening = await listenOrExplain(options, {
    host: options.host,
    port: options.port,
    status: () => `opening ${what}, ${Math.round((Date.now() - openingSince) / 1000)} s so far`,
    following: options.follow,
    ...access,
  });
  let storages: OpenedStorages;
  try {
    storages = await openStorages(
      options.storages,
      { ...options, maxDictionaryBytes: options.maxDictionaryBytes ?? DEFAULT_MAX_DICTIONARY_BYTES },
      { table: options.table, passwordFile: options.pgPasswordFile },
      registry,
      io,
    );
  } catch (error) {
    await opening.handOver();
    throw error;
  }
  // Whatever fails from here to the hand-over must not be kept waiting by the stand-in.
  opening.unref();
  const app = await application(options, access, storages, registry);
  storages.setLogger(app.log);
  shutDownOnSignals(app, storages, registry, options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS, io);
  // Plugins are loaded before the stand-in lets go of the port: the port is free only while it is bound anew.
  await app.ready();
  await opening.handOver();
  await app.listen({ host: options.host, port: opening.port });
  storages.start();
  // The graph indexes are built in the background, once the first answer has gone out.
  afterFirstAnswer(app.server, FIRST_ANSWER_WAIT_MS, () => registry.startAll());
  io.stderr.write(servingLines(app, options, access, storages, registry).map((line) => `storage-inspector: ${line}\n`).join(''));
}

/** The application for the opened storages, with the MCP server at /mcp. */
async function application(options: ServeOptions, access: ServeAccess, storages: OpenedStorages, registry: StorageRegistry): Promise<FastifyInstance> {
  const first = storages.opened[0]!;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // The SQL tables kept between runs (sql/cache/table-cache.ts), shared with `sql`, `export` and `mcp`.
  // Their warnings go to the server's log (set below, once the application has one).
  let log: FastifyBaseLogger | undefined;
  const onStorageProblem = (storage: string, message: string): void => log?.warn({ storage }, `sql: ${message}`);
  const sqlService = options.sql === false ? false : { ...(options.sql ?? {}), cache: tableCacheOf(options.cache), onStorageProblem };
  // Our own API's graph indexes are built in the background once the server listens.
  const app = buildApp(first.storage, {
    api: registry,
    instance: first.instance,
    dialect: options.dialect,
    // --quiet drops the request log (info), not the failures (warn, error).
    logger: await serverLogger(options.logFormat, options.quiet ? 'warn' : 'info', options.logFile),
    ...access,
    // /ready and /metrics follow the first storage.
    follow: first.followStatus,
    maxConnections: options.maxConnections,
    maxUnsentBytes: options.maxUnsentBytes,
    stallTimeoutMs: options.stallTimeoutMs,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    requestTimeoutMs,
    sql: sqlService,
    searchMaxConcurrent: options.searchMaxConcurrent,
    ...(first.follower === undefined ? {} : { catchUp: () => first.follower!.refreshNow() }),
  });
  log = app.log;
  // /mcp: the MCP server for AI assistants (src/mcp/), behind the same checks, answering through /api/v1.
  await app.register(mcpRoutes, {
    registry,
    requestTimeoutMs,
    // The tools' own /api/v1 instance is made on the first request to /mcp; the plugin is loaded then.
    api: async (scope, apiOptions) => (await import('../../http/api-v1/api-v1-plugin.js')).apiV1Plugin(scope, apiOptions),
    schemaCompilers: lazySchemaCompilers,
    checkSource: checkSourceOpener(
      options.storages,
      { table: options.table, passwordFile: options.pgPasswordFile, allowExternalLinks: options.allowExternalLinks === true },
      DEFAULT_STORAGE_NAME,
    ),
    // The sql_query tool runs on the same engines as /api/v1/sql (none with --no-sql), loaded
    // with the MCP server on the first request to /mcp.
    ...(sqlService === false ? {} : { loadSqlEngine: async () => (await import('../sql/sql-engine-for.js')).sqlEngineFor(sqlService) }),
  });
  return app;
}
