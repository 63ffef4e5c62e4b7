import { isIP } from 'node:net';
import { type Command, Option } from 'commander';
import { UsageError } from '../../errors.js';
import { DIALECTS, type Dialect } from '../../http/java/dialects.js';
import { BASIC_AUTH_ENV, refuseSecretFlags, TOKEN_ENV } from '../../http/guard/auth.js';
import { defaultMaxConnections, DESCRIPTOR_RESERVE } from '../../http/guard/connections.js';
import { parseCorsOrigins } from '../../http/guard/cors.js';
import { parseAllowedHosts } from '../../http/guard/host-check.js';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from '../../http/guard/limits.js';
import { DEFAULT_MAX_UNSENT_BYTES, DEFAULT_STALL_TIMEOUT_MS } from '../../http/guard/unsent-answers.js';
import { DEFAULT_SEARCH_MAX_CONCURRENT, MAX_SEARCH_MAX_CONCURRENT } from '../../http/api-v1/search/search-limits.js';
import { DEFAULT_POLL_INTERVAL_MS } from '../../storage/follow/follow.js';
import { DEFAULT_MAX_DICTIONARY_BYTES } from '../../storage/storage.js';
import { DEFAULT_RECORD_CACHE_BYTES } from '../../storage/record-cache.js';
import { isPostgresSpec } from '../../storage/open-source.js';
import { refuseStoragePlace } from '../../writer/output-place.js';
import { STORAGE_ARGUMENT_TEXT, withStorageOptions } from '../options/storage-argument.js';
import { groupDigits } from '../reports/number-text.js';
import { fromEnv, integerOption, parseCommand, toolCommand } from '../options/option-values.js';
import { defaultLogFormat, LOG_FORMATS, type LogFormat } from '../output/server-logger.js';
import { sqlLimitsOf, withSqlOptions, type SqlOptionValues } from '../sql/sql-options.js';
import type { SqlLimits } from '../../sql/sql-engine.js';
import { cacheArgsOf, type CacheArgs, type CacheOptionValues } from '../options/cache-options.js';
import { checkStorageSpecs, parseStorageSpecs, type StorageSpec } from './serve-storages.js';

/**
 * The `serve` command line: its options, their ranges and environment variables (for parsing and
 * --help), and what they say once parsed and checked (ServeOptions). Nothing is opened here.
 */

export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

const DESCRIPTION = [
  'Serves a MicroStream (4 to 8) or EclipseStore (1 to 4) storage directory read-only over the Storage REST API (answers byte for byte like the Java service of its generation), with a web viewer at /viewer/.',
  'Several storages: serve NAME=DIR NAME=DIR ... serves each under /{instance}/{NAME}/ (with one NAME=DIR also under /{instance}/).',
  'A storage that MicroStream or EclipseStore keeps in a database (its SQL file system) is given as postgres://user@host:port/db, mariadb://user@host:port/db (also mysql://) or sqlite:FILE, with --table <root table>; the password comes from a password file (--pg-password-file; PostgreSQL also PGPASSWORD, PGPASSFILE, ~/.pgpass; MariaDB ~/.my.cnf), never from the URL.',
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
  /** The (first) storage: a directory, or a database (postgres://, mariadb://, mysql://, sqlite:; see openStorageSource). */
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
  /** Streamed answers whose client takes nothing for this long are ended (0: never). */
  readonly stallTimeoutMs?: number | undefined;
  /** The log to this file instead of stdout. */
  readonly logFile?: string | undefined;
  readonly allowExternalLinks?: boolean;
  readonly maxDictionaryBytes?: number | undefined;
  /** Bytes of records read lately kept in memory (0: none). */
  readonly recordCacheBytes?: number | undefined;
}

/** The `serve` command line: options, their ranges and environment variables (for parsing and --help). */
export function serveCommand(): Command {
  return withSqlOptions(limitOptions(accessOptions(serveOptions())), true);
}

/** The storages, where to listen, which Java service to answer like, following, the log. */
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
    .addOption(fromEnv(new Option('--log-file <file>', 'append the log to this file instead of stdout')));
}

/** Who may read the answers: Host names, credentials, CORS origins, TLS. */
function accessOptions(command: Command): Command {
  return command
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
    .addOption(fromEnv(new Option('--tls-key <file>', '... and this PEM private key')));
}

/** What one request, one answer and the server as a whole may take. */
function limitOptions(command: Command): Command {
  return command
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
        integerOption(
          '--stall-timeout',
          'ms',
          `end an answer whose client has taken nothing of it for this long while some of it waits here (a big answer built whole; a streamed one: NDJSON export of a type's instances, SQL CSV/NDJSON/Parquet unless --sql-stall-timeout is given): its connection is destroyed (the client sees the answer end early), its held bytes given back, a warning logged; 0: never (default: ${groupDigits(DEFAULT_STALL_TIMEOUT_MS)})`,
          0,
          MAX_TIMEOUT_MS,
          'milliseconds',
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
  stallTimeout?: number;
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
    // SQL's streamed answers follow --stall-timeout unless --sql-stall-timeout says otherwise.
    ...sqlOption(sqlLimitsOf(values.sqlStallTimeout === undefined && values.stallTimeout !== undefined ? { ...values, sqlStallTimeout: values.stallTimeout } : values)),
    ...givenCache(cacheArgsOf(values)),
    shutdownTimeoutMs: values.shutdownTimeout,
    metricsTokenFile: values.metricsTokenFile,
    ...(values.allowedHosts === undefined ? {} : { allowedHosts: values.allowedHosts }),
    ...(values.maxConnections === undefined ? {} : { maxConnections: values.maxConnections }),
    ...(values.maxUnsentBytes === undefined ? {} : { maxUnsentBytes: values.maxUnsentBytes }),
    ...(values.stallTimeout === undefined ? {} : { stallTimeoutMs: values.stallTimeout }),
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

