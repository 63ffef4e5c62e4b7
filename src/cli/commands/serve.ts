import { isIP } from 'node:net';
import { type Command, Option } from 'commander';
import { UsageError } from '../../errors.js';
import { buildApp } from '../../http/app.js';
import { DIALECTS, type Dialect } from '../../http/java/dialects.js';
import { OpeningServer } from '../../http/ops/opening-server.js';
import { StorageRegistry } from '../../registry/storage-registry.js';
import { BASIC_AUTH_ENV, loadAuthConfig, refuseSecretFlags, TOKEN_ENV, warnIfShared } from '../../http/guard/auth.js';
import { defaultMaxConnections, DESCRIPTOR_RESERVE } from '../../http/guard/connections.js';
import { parseCorsOrigins } from '../../http/guard/cors.js';
import { hostAllowList, isLoopbackHost, parseAllowedHosts } from '../../http/guard/host-check.js';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from '../../http/guard/limits.js';
import { loadMetricsToken } from '../../http/guard/metrics-token.js';
import { loadTlsConfig } from '../../http/guard/tls.js';
import { DEFAULT_MAX_UNSENT_BYTES } from '../../http/guard/unsent-answers.js';
import { DEFAULT_SEARCH_MAX_CONCURRENT, MAX_SEARCH_MAX_CONCURRENT } from '../../http/api-v1/search-slots.js';
import { descriptorLimit, storageDescriptorBudget } from '../../storage/source/file-reader.js';
import { DEFAULT_POLL_INTERVAL_MS } from '../../storage/follow/follow.js';
import { DEFAULT_MAX_DICTIONARY_BYTES } from '../../storage/storage.js';
import { DEFAULT_RECORD_CACHE_BYTES } from '../../storage/record-cache.js';
import { isPostgresSpec } from '../../storage/open-source.js';
import { refuseStoragePlace } from '../../writer/output-place.js';
import type { CommandIo } from '../io.js';
import { STORAGE_ARGUMENT_TEXT, withStorageOptions } from '../storage-argument.js';
import { groupDigits } from '../number-text.js';
import { fromEnv, integerOption, parseCommand, toolCommand } from '../option-values.js';
import { defaultLogFormat, serverLogger, LOG_FORMATS, type LogFormat } from '../server-logger.js';
import { sqlLimitsOf, withSqlOptions, type SqlOptionValues } from '../sql-options.js';
import type { SqlLimits } from '../../sql/sql-engine.js';
import { checkSourceOpener } from '../../mcp/check-sources.js';
import { mcpRoutes } from '../../mcp/http-route.js';
import { apiV1Plugin } from '../../http/api-v1/api-v1-plugin.js';
import { sqlEngineFor } from '../sql-options.js';
import { cacheArgsOf, tableCacheOf, type CacheArgs, type CacheOptionValues } from '../cache-options.js';
import { checkStorageSpecs, DEFAULT_STORAGE_NAME, openStorages, parseStorageSpecs, type StorageSpec } from './serve-storages.js';

export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

const DESCRIPTION = [
  'Serves a MicroStream (4 to 8) or EclipseStore (1 to 4) storage directory read-only over the Storage REST API (answers byte for byte like the Java service of its generation), with a web viewer at /viewer/.',
  'Several storages: serve NAME=DIR NAME=DIR ... serves each under /{instance}/{NAME}/ (with one NAME=DIR also under /{instance}/).',
  'A storage that MicroStream keeps in PostgreSQL (its SQL file system) is given as postgres://user@host:port/db with --table <root table>; the password comes from PGPASSWORD, a password file (PGPASSFILE, ~/.pgpass, --pg-password-file), never from the URL.',
  'Every option can also be given by the environment variable shown as env; a flag wins. Secrets are never taken from command line values (other users can see those): the token and Basic credentials come from files or from ' +
    `${TOKEN_ENV} / ${BASIC_AUTH_ENV}.`,
].join('\n\n');

/** Upper bounds of the time options: beyond them Node's timers overflow (and fire after 1 ms). */
const MAX_POLL_INTERVAL_MS = 3_600_000;
const MAX_TIMEOUT_MS = 86_400_000;
const MAX_RESPONSE_BYTES = 2 ** 32;
const MAX_UNSENT_BYTES = 2 ** 34;
const MAX_CONNECTIONS = 1_000_000;
/** Node's largest string is about 512 MiB of UTF-16; a dictionary is text. */
const MAX_DICTIONARY_BYTES = 2 ** 30;
const MAX_RECORD_CACHE_BYTES = 2 ** 40;

export interface ServeOptions {
  /** The (first) storage: a directory, or a postgres:// URL (see openStorageSource). */
  readonly directory: string;
  /** Every storage given: one, or NAME=<directory or URL> each. */
  readonly storages: readonly StorageSpec[];
  /** The root table of a storage kept in PostgreSQL. */
  readonly table?: string | undefined;
  /** A file holding the database password. */
  readonly pgPasswordFile?: string | undefined;
  readonly port: number;
  readonly host: string;
  /** Undefined: the Java default of the dialect for the storage's family (`microstream`, `store-data`). */
  readonly instance?: string | undefined;
  readonly dialect: Dialect;
  readonly quiet: boolean;
  readonly logFormat: LogFormat;
  readonly follow: boolean;
  /** Refuse a storage MicroStream would refuse instead of serving what can be read of it. */
  readonly strict?: boolean | undefined;
  readonly pollIntervalMs: number;
  /** Security and limits; undefined = not given (defaults apply in `run`). */
  readonly authTokenFile?: string | undefined;
  readonly basicAuthFile?: string | undefined;
  readonly cors?: string | undefined;
  readonly tlsCert?: string | undefined;
  readonly tlsKey?: string | undefined;
  readonly maxResponseBytes?: number | undefined;
  readonly requestTimeoutMs?: number | undefined;
  /** SQL limits, or false (--no-sql). */
  readonly sql?: Partial<SqlLimits> | false;
  /** Where the SQL tables are kept between runs, as given (the defaults otherwise). */
  readonly cache?: CacheArgs;
  /** Searches running at once (/api/v1/search and the MCP search tool); more are refused 503. */
  readonly searchMaxConcurrent?: number | undefined;
  readonly shutdownTimeoutMs?: number | undefined;
  readonly metricsTokenFile?: string | undefined;
  readonly allowedHosts?: string | undefined;
  readonly maxConnections?: number | undefined;
  readonly maxUnsentBytes?: number | undefined;
  /** The log to this file instead of stdout. */
  readonly logFile?: string | undefined;
  readonly allowExternalLinks?: boolean;
  readonly maxDictionaryBytes?: number | undefined;
  /** Bytes of records read lately kept in memory (0: none). */
  readonly recordCacheBytes?: number | undefined;
}

/** The `serve` command line: options, their ranges and environment variables (for parsing and --help). */
export function serveCommand(): Command {
  return withSqlOptions(serveOptions(), true);
}

function serveOptions(): Command {
  return withStorageOptions(
    toolCommand('serve')
      .description(DESCRIPTION)
      .argument('[storages...]', `${STORAGE_ARGUMENT_TEXT}; NAME=<either> for each of several storages`),
  )
    .addOption(fromEnv(integerOption('--port', 'n', 'port to listen on; 0 picks a free one', 0, 65535, 'a TCP port').default(4567)))
    .addOption(fromEnv(new Option('--host <address>', 'interface to listen on').default('127.0.0.1')))
    .addOption(
      fromEnv(new Option('--instance <name>', 'instance name, the first path segment (default: microstream for a MicroStream storage, store-data for an EclipseStore storage)')),
    )
    .addOption(
      fromEnv(
        new Option('--dialect <name>', 'which Java service to answer like: spark (the recorded one), javalin (EclipseStore\'s current service), micronaut (the Micronaut controller)')
          .choices(DIALECTS)
          .default('spark'),
      ),
    )
    .addOption(fromEnv(new Option('--no-follow', 'serve the state at startup; do not follow later commits')))
    .addOption(fromEnv(new Option('--strict', 'refuse a storage MicroStream would refuse to start (a data file the log names is gone, damaged log entries) instead of serving what can be read of it')))
    .addOption(
      fromEnv(
        integerOption('--poll-interval', 'ms', 'how often to look for changes besides file system events', 10, MAX_POLL_INTERVAL_MS, 'milliseconds').default(
          DEFAULT_POLL_INTERVAL_MS,
        ),
      ),
    )
    .addOption(fromEnv(new Option('--quiet', 'no request log (failures are still logged)')))
    .addOption(
      fromEnv(
        new Option('--log-format <format>', 'log lines: json (one JSON object per line, for machines) or pretty (for people)')
          .choices(LOG_FORMATS)
          .default(undefined, 'pretty on a terminal, json otherwise (a pipe, a file, --log-file)'),
      ),
    )
    .addOption(fromEnv(new Option('--log-file <file>', 'append the log to this file instead of stdout')))
    .addOption(
      fromEnv(
        new Option(
          '--allowed-hosts <names>',
          'comma separated host names (name or name:port) accepted in the Host header besides localhost, 127.0.0.1 and [::1]; * for any. On loopback, other names get 421 (DNS rebinding)',
        ),
      ),
    )
    .addOption(fromEnv(new Option('--auth-token-file <file>', `require "Authorization: Bearer <token>" with the token in this file (or ${TOKEN_ENV})`)))
    .addOption(fromEnv(new Option('--basic-auth-file <file>', `accept HTTP Basic credentials, user:password lines in this file (or one pair in ${BASIC_AUTH_ENV})`)))
    .addOption(fromEnv(new Option('--metrics-token-file <file>', 'a Bearer token in this file also opens GET /metrics (and nothing else)')))
    .addOption(fromEnv(new Option('--cors <origins>', 'comma separated origins (https://host[:port]) whose pages may read answers, or * for any')))
    .addOption(fromEnv(new Option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (chain) ...')))
    .addOption(fromEnv(new Option('--tls-key <file>', '... and this PEM private key')))
    .addOption(
      fromEnv(
        integerOption('--max-response-bytes', 'n', `refuse (413) object answers larger than this (default: ${groupDigits(DEFAULT_MAX_RESPONSE_BYTES)})`, 1024, MAX_RESPONSE_BYTES, 'bytes'),
      ),
    )
    .addOption(
      fromEnv(
        integerOption('--request-timeout', 'ms', `answer 503 to requests still running after this; 0: none (default: ${groupDigits(DEFAULT_REQUEST_TIMEOUT_MS)})`, 0, MAX_TIMEOUT_MS, 'milliseconds'),
      ),
    )
    .addOption(
      fromEnv(
        integerOption(
          '--shutdown-timeout',
          'ms',
          `on SIGINT/SIGTERM, wait this long for requests in flight (default: ${groupDigits(DEFAULT_SHUTDOWN_TIMEOUT_MS)})`,
          0,
          MAX_TIMEOUT_MS,
          'milliseconds',
        ),
      ),
    )
    .addOption(
      fromEnv(
        integerOption(
          '--max-connections',
          'n',
          `open connections at most; at the cap the longest idle one is closed, or the new one gets 503 (default: ${groupDigits(defaultMaxConnections())}: below the descriptor limit by what the storage may keep open and ${DESCRIPTOR_RESERVE} more, at most 4096)`,
          1,
          MAX_CONNECTIONS,
          'connections',
        ),
      ),
    )
    .addOption(
      fromEnv(
        integerOption(
          '--max-unsent-bytes',
          'n',
          `bytes of answers not yet read by their clients above which big answers wait to be built (default: ${groupDigits(DEFAULT_MAX_UNSENT_BYTES)})`,
          1024 * 1024,
          MAX_UNSENT_BYTES,
          'bytes',
        ),
      ),
    )
    .addOption(
      fromEnv(
        new Option(
          '--allow-external-links',
          'follow symbolic links of the storage directory that lead outside it (refused by default: a storage file is only read inside the storage directory)',
        ),
      ),
    )
    .addOption(
      fromEnv(
        integerOption(
          '--max-dictionary-bytes',
          'n',
          `refuse a type dictionary larger than this (default: ${groupDigits(DEFAULT_MAX_DICTIONARY_BYTES)})`,
          1024,
          MAX_DICTIONARY_BYTES,
          'bytes',
        ),
      ),
    )
    .addOption(
      fromEnv(
        integerOption(
          '--search-max-concurrent',
          'n',
          `searches running at once (/api/v1/search and the MCP search tool); more are refused with 503 and Retry-After (default: ${DEFAULT_SEARCH_MAX_CONCURRENT})`,
          1,
          MAX_SEARCH_MAX_CONCURRENT,
          'searches',
        ),
      ),
    )
    .addOption(
      fromEnv(
        integerOption(
          '--record-cache-bytes',
          'n',
          `keep up to this many bytes of records read lately in memory, to answer them again without the files (default: ${groupDigits(DEFAULT_RECORD_CACHE_BYTES)}; 0 keeps none)`,
          0,
          MAX_RECORD_CACHE_BYTES,
          'bytes',
        ),
      ),
    );
}

interface ServeFlags extends SqlOptionValues, CacheOptionValues {
  table?: string;
  pgPasswordFile?: string;
  port: number;
  host: string;
  instance?: string;
  dialect: Dialect;
  follow: boolean;
  strict?: true;
  pollInterval: number;
  quiet?: true;
  logFormat?: LogFormat;
  metricsTokenFile?: string;
  authTokenFile?: string;
  basicAuthFile?: string;
  cors?: string;
  tlsCert?: string;
  tlsKey?: string;
  maxResponseBytes?: number;
  requestTimeout?: number;
  shutdownTimeout?: number;
  allowedHosts?: string;
  maxConnections?: number;
  maxUnsentBytes?: number;
  logFile?: string;
  allowExternalLinks?: true;
  maxDictionaryBytes?: number;
  recordCacheBytes?: number;
  searchMaxConcurrent?: number;
}

export function parseServeArgs(args: string[]): ServeOptions | 'help' {
  refuseSecretFlags(args);
  const command = serveCommand();
  if (parseCommand(command, args) === 'help') return 'help';
  const values = command.opts<ServeFlags>();
  const storages = parseStorageSpecs(command.args);
  if (values.host.trim() === '') throw new UsageError('invalid --host "": give an interface address such as 127.0.0.1, ::1 or 0.0.0.0');
  if (isIP(values.host) === 0 && !HOST_NAME.test(values.host)) {
    throw new UsageError(`invalid --host "${values.host}": not an IP address or host name`);
  }
  if (values.instance !== undefined && !/^[^/\s?#;]+$/.test(values.instance)) throw new UsageError(`invalid --instance "${values.instance}"`);
  if (values.instance === 'viewer') {
    throw new UsageError('invalid --instance "viewer": /viewer/ is where the web viewer is served; choose another name');
  }
  if (values.instance === 'mcp') {
    throw new UsageError('invalid --instance "mcp": /mcp is where the MCP server for AI assistants is served; choose another name');
  }
  if (values.cors !== undefined) parseCorsOrigins(values.cors); // fail early on a bad list
  if ((values.tlsCert === undefined) !== (values.tlsKey === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
  if (values.allowedHosts !== undefined) parseAllowedHosts(values.allowedHosts);
  if (values.logFile === '') throw new UsageError('invalid --log-file "": give a file name');
  checkStorageSpecs(storages, { table: values.table, passwordFile: values.pgPasswordFile });
  if (values.logFile !== undefined) refuseStoragePlace(values.logFile, { option: '--log-file', storages: storages.map((s) => s.directory).filter((d) => !isPostgresSpec(d)) });
  return {
    directory: storages[0]!.directory,
    storages,
    table: values.table,
    pgPasswordFile: values.pgPasswordFile,
    port: values.port,
    host: values.host,
    instance: values.instance,
    dialect: values.dialect,
    quiet: values.quiet === true,
    logFormat: values.logFormat ?? defaultLogFormat(values.logFile, process.stdout.isTTY),
    follow: values.follow,
    strict: values.strict,
    pollIntervalMs: values.pollInterval,
    authTokenFile: values.authTokenFile,
    basicAuthFile: values.basicAuthFile,
    cors: values.cors,
    tlsCert: values.tlsCert,
    tlsKey: values.tlsKey,
    maxResponseBytes: values.maxResponseBytes,
    requestTimeoutMs: values.requestTimeout,
    ...sqlOption(sqlLimitsOf(values)),
    ...givenCache(cacheArgsOf(values)),
    shutdownTimeoutMs: values.shutdownTimeout,
    metricsTokenFile: values.metricsTokenFile,
    ...(values.allowedHosts === undefined ? {} : { allowedHosts: values.allowedHosts }),
    ...(values.maxConnections === undefined ? {} : { maxConnections: values.maxConnections }),
    ...(values.maxUnsentBytes === undefined ? {} : { maxUnsentBytes: values.maxUnsentBytes }),
    ...(values.logFile === undefined ? {} : { logFile: values.logFile }),
    ...(values.allowExternalLinks === true ? { allowExternalLinks: true } : {}),
    ...(values.maxDictionaryBytes === undefined ? {} : { maxDictionaryBytes: values.maxDictionaryBytes }),
    ...(values.recordCacheBytes === undefined ? {} : { recordCacheBytes: values.recordCacheBytes }),
    ...(values.searchMaxConcurrent === undefined ? {} : { searchMaxConcurrent: values.searchMaxConcurrent }),
  };
}

/** The cache options when any was given: only what was given is kept. */
function givenCache(cache: CacheArgs): { cache?: CacheArgs } {
  return Object.keys(cache).length === 0 ? {} : { cache };
}

/** SQL is on with default limits unless said otherwise: only what was given is kept. */
function sqlOption(sql: Partial<SqlLimits> | false): { sql?: Partial<SqlLimits> | false } {
  return sql !== false && Object.keys(sql).length === 0 ? {} : { sql };
}

/** A DNS name (RFC 1123 labels); anything else is neither an address nor a name to listen on. */
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export async function run(args: string[], io: CommandIo): Promise<void> {
  const options = parseServeArgs(args);
  if (options === 'help') {
    io.stdout.write(serveCommand().helpInformation());
    return;
  }
  // Secrets and certificates are read (and checked) before the storage is opened.
  const warn = (message: string): void => void io.stderr.write(`storage-inspector: warning: ${message}\n`);
  const auth = loadAuthConfig({ tokenFile: options.authTokenFile, basicAuthFile: options.basicAuthFile, env: process.env, warn });
  const tls = loadTlsConfig(options.tlsCert, options.tlsKey, warn);
  const metricsToken = loadMetricsToken(options.metricsTokenFile, warn);
  const cors = options.cors === undefined ? undefined : parseCorsOrigins(options.cors);
  const allowedHosts = hostAllowList(options.host, options.allowedHosts === undefined ? undefined : parseAllowedHosts(options.allowedHosts));
  refuseOpenServer(options.host, auth !== undefined, options.allowedHosts !== undefined);
  if (!isLoopbackHost(options.host) && auth === undefined) {
    warn(`listening on ${options.host} without authentication: anyone who can reach this port can read the whole storage (see --auth-token-file)`);
  }
  if (!isLoopbackHost(options.host) && auth !== undefined && tls === undefined) {
    warn(`listening on ${options.host} with credentials but without TLS: they cross the network in clear text (see --tls-cert)`);
  }
  if (allowedHosts === undefined) {
    warn('--allowed-hosts * turns off the Host check: any web page whose name resolves to this machine can read the storage from your browser (DNS rebinding)');
  }
  const limit = descriptorLimit();
  const reserve = storageDescriptorBudget() + DESCRIPTOR_RESERVE;
  if (options.maxConnections !== undefined && limit !== undefined && options.maxConnections > limit - reserve) {
    warn(
      `--max-connections ${options.maxConnections} leaves fewer than ${reserve} of the ${limit} file descriptors this process may open (ulimit -n) for the storage; ` +
        'at that many connections, reading the storage may fail with EMFILE',
    );
  }

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
    auth,
    tls,
    cors,
    metricsToken,
    allowedHosts,
  });
  let storages: Awaited<ReturnType<typeof openStorages>>;
  try {
    storages = await openStorages(
      options.storages,
      { ...options, maxDictionaryBytes: options.maxDictionaryBytes ?? DEFAULT_MAX_DICTIONARY_BYTES },
      { table: options.table, passwordFile: options.pgPasswordFile }, registry, io);
  } catch (error) {
    await opening.handOver();
    throw error;
  }
  // Whatever fails from here to the hand-over must not be kept waiting by the stand-in.
  opening.unref();
  const first = storages.opened[0]!;
  // The SQL tables kept between runs (sql/table-cache.ts), shared with `sql`, `export` and `mcp`.
  const sqlService = options.sql === false ? false : { ...(options.sql ?? {}), cache: tableCacheOf(options.cache) };
  // Our own API's graph indexes are built in the background once the server listens.
  const app = buildApp(first.storage, {
    api: registry,
    instance: first.instance,
    dialect: options.dialect,
    // --quiet drops the request log (info), not the failures (warn, error).
    logger: await serverLogger(options.logFormat, options.quiet ? 'warn' : 'info', options.logFile),
    auth,
    metricsToken,
    // /ready and /metrics follow the first storage.
    follow: first.followStatus,
    cors,
    tls,
    allowedHosts,
    maxConnections: options.maxConnections,
    maxUnsentBytes: options.maxUnsentBytes,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    sql: sqlService,
    searchMaxConcurrent: options.searchMaxConcurrent,
    ...(first.follower === undefined ? {} : { catchUp: () => first.follower!.refreshNow() }),
  });
  // /mcp: the MCP server for AI assistants (src/mcp/), behind the same checks, answering through /api/v1.
  await app.register(mcpRoutes, {
    registry,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    api: apiV1Plugin,
    checkSource: checkSourceOpener(
      options.storages,
      { table: options.table, passwordFile: options.pgPasswordFile, allowExternalLinks: options.allowExternalLinks === true },
      DEFAULT_STORAGE_NAME,
    ),
    // The sql_query tool runs on the same engines as /api/v1/sql (none with --no-sql).
    ...(sqlService === false ? {} : { sqlEngine: sqlEngineFor(sqlService) }),
  });
  storages.setLogger(app.log);
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) {
      io.stderr.write(`storage-inspector: ${signal} again: exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    // Counted: requests whose answer has not been handed to the operating system completely. An
    // answer that fits in the connection's socket buffers is complete for the process (the system
    // delivers it, also after the process ends), so clients may still be receiving beyond these.
    const inFlight = app.connections.stats.inFlight;
    io.stderr.write(
      `storage-inspector: ${signal}: no new connections; finishing ${inFlight} request(s) in flight (answers not yet handed to the system completely; what its socket buffers hold it delivers) (at most ${shutdownTimeoutMs} ms, --shutdown-timeout)\n`,
    );
    // If closing hangs anyway (it should not), the process still goes.
    const hard = setTimeout(() => process.exit(1), shutdownTimeoutMs + 5000);
    hard.unref();
    try {
      await storages.stop();
      // Stop accepting; responses already started are sent completely, then their connections
      // close; only the shutdown limit cuts one, and says so.
      const closed = app.close();
      const drained = await app.connections.drain(shutdownTimeoutMs);
      if (drained.cut > 0 || drained.unanswered > 0) {
        const what = [
          drained.cut > 0 ? `cut ${drained.cut} response(s) still being sent` : undefined,
          drained.unanswered > 0 ? `closed ${drained.unanswered} request(s) not answered yet` : undefined,
        ].filter((part) => part !== undefined);
        io.stderr.write(`storage-inspector: shutdown timeout of ${shutdownTimeoutMs} ms (--shutdown-timeout) passed: ${what.join(' and ')}\n`);
      } else if (drained.inFlightAtStart > 0) {
        io.stderr.write(`storage-inspector: all ${drained.inFlightAtStart} request(s) in flight were answered completely\n`);
      }
      await closed;
      await registry.close();
      for (const o of storages.opened) await o.storage.close();
    } finally {
      io.stderr.write('storage-inspector: stopped\n');
      process.exit(0);
    }
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => void shutdown(signal));
  }
  // Plugins are loaded before the stand-in lets go of the port: the port is free only while it is bound anew.
  await app.ready();
  await opening.handOver();
  await app.listen({ host: options.host, port: opening.port });
  storages.start();
  registry.startAll();
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const scheme = tls === undefined ? 'http' : 'https';
  const guarded = [auth === undefined ? undefined : 'authentication required', cors === undefined ? undefined : 'CORS allow-list'].filter((x) => x !== undefined);
  const base = `${scheme}://${hostForUrl(options.host)}:${port}`;
  const guards = guarded.length > 0 ? ` (${guarded.join(', ')})` : '';
  const dialect = options.dialect === 'spark' ? '' : `, ${options.dialect} dialect`;
  const lines: string[] = [];
  if (options.storages.length === 1 && options.storages[0]!.name === undefined) {
    lines.push(`serving ${first.storage.directory} (${first.storage.family.label}${dialect}) at ${base}/${first.instance}/root${guards}`);
  } else {
    for (const o of storages.opened) {
      const single = options.storages.length === 1 ? ` and ${base}/${o.instance}/root` : '';
      lines.push(`serving ${o.name}: ${o.storage.directory} (${o.storage.family.label}${dialect}) at ${base}/${o.instance}/${o.name}/root${single}${guards}`);
    }
    for (const u of registry.unavailable()) lines.push(`not serving ${u.name}: ${u.reason}`);
  }
  lines.push(options.dialect === 'spark' ? `web viewer at ${base}/viewer/` : `no web viewer in the ${options.dialect} dialect (it needs the default one)`);
  lines.push(`API at ${base}/api/v1/, every route documented at ${base}/docs/ (${base}/openapi.json)`);
  lines.push(`MCP server for AI assistants at ${base}/mcp (Streamable HTTP)`);
  io.stderr.write(lines.map((line) => `storage-inspector: ${line}\n`).join(''));
}

/** The stand-in's listen, with the usual failures said in words that point to the fix. */
async function listenOrExplain(options: ServeOptions, settings: Parameters<typeof OpeningServer.listen>[0]): Promise<OpeningServer> {
  try {
    return await OpeningServer.listen(settings);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const where = `${hostForUrl(options.host)}:${options.port}`;
    if (code === 'EADDRINUSE') {
      throw new Error(`cannot listen on ${where}: the port is already in use (another server?); choose another with --port <n>, or --port 0 for a free one`, { cause: error });
    }
    if (code === 'EACCES') {
      throw new Error(`cannot listen on ${where}: not permitted (ports below 1024 need privileges); choose another with --port <n>, or --port 0 for a free one`, { cause: error });
    }
    if (code === 'EADDRNOTAVAIL') throw new Error(`cannot listen on ${where}: this machine has no interface with the address ${options.host} (--host)`, { cause: error });
    throw error;
  }
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Beyond loopback without credentials, anyone who reaches the port reads the whole storage (a
 * container's port published on every interface, by default): refused unless the operator
 * says which names clients use (`--allowed-hosts`, e.g. when the port is published on
 * 127.0.0.1 only) or requires credentials.
 */
export function refuseOpenServer(host: string, hasAuth: boolean, hasAllowedHosts: boolean): void {
  if (isLoopbackHost(host) || hasAuth || hasAllowedHosts) return;
  throw new UsageError(
    `refusing to listen on ${host} without authentication: anyone who can reach the port could read the whole storage. ` +
      'Require credentials (--auth-token-file, --basic-auth-file), or name the host names clients use with --allowed-hosts ' +
      '(e.g. --allowed-hosts localhost when the port is published on 127.0.0.1 only; * turns the Host check off)',
  );
}
