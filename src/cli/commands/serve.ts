import { parseArgs } from 'node:util';
import { UsageError } from '../../errors.js';
import { buildApp } from '../../http/app.js';
import { BASIC_AUTH_ENV, loadAuthConfig, refuseSecretFlags, TOKEN_ENV } from '../../http/auth.js';
import { parseCorsOrigins } from '../../http/cors.js';
import { checkServable } from '../../http/integrity.js';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from '../../http/limits.js';
import { loadTlsConfig } from '../../http/tls.js';
import { DEFAULT_POLL_INTERVAL_MS, StorageFollower } from '../../storage/follow.js';
import { Storage, type OpenProgress } from '../../storage/storage.js';
import type { CommandIo } from '../io.js';

export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

const HELP = `Usage: storage-inspector serve <storage-dir> [options]

Serves a MicroStream 4.x storage directory read-only over the Storage REST API
(answers byte for byte like the Java 4.1 service).

Options:
  --port <n>         port to listen on (default 4567)
  --host <address>   interface to listen on (default 127.0.0.1)
  --instance <name>  instance name, the first path segment (default microstream)
  --no-follow        serve the state at startup; do not follow later commits
  --poll-interval <ms>  how often to look for changes besides file system events (default 500)
  --quiet            no request log (failures are still logged)
  -h, --help         this text

Security (all off by default, which keeps the Java service's behaviour):
  --auth-token-file <file>   require "Authorization: Bearer <token>" with the token in this
                             file (or in the environment variable ${TOKEN_ENV})
  --basic-auth-file <file>   accept HTTP Basic credentials, user:password lines in this file
                             (or one pair in the environment variable ${BASIC_AUTH_ENV})
  --cors <origins>           comma separated origins (https://host[:port]) whose pages may
                             read answers, or * for any; no CORS headers without it
  --tls-cert <file>          serve HTTPS with this PEM certificate (chain) ...
  --tls-key <file>           ... and this PEM private key
  --max-response-bytes <n>   refuse (413) object answers larger than this (default ${DEFAULT_MAX_RESPONSE_BYTES})
  --request-timeout <ms>     answer 503 to requests still running after this (default ${DEFAULT_REQUEST_TIMEOUT_MS}; 0: none)
  --shutdown-timeout <ms>    on SIGINT/SIGTERM, wait this long for requests in flight (default ${DEFAULT_SHUTDOWN_TIMEOUT_MS})
Secrets are never taken from command line values (other users can see those).
`;

export interface ServeOptions {
  readonly directory: string;
  readonly port: number;
  readonly host: string;
  readonly instance: string;
  readonly quiet: boolean;
  readonly follow: boolean;
  readonly pollIntervalMs: number;
  /** Security and limits; undefined = not given (defaults apply in `run`). */
  readonly authTokenFile?: string | undefined;
  readonly basicAuthFile?: string | undefined;
  readonly cors?: string | undefined;
  readonly tlsCert?: string | undefined;
  readonly tlsKey?: string | undefined;
  readonly maxResponseBytes?: number | undefined;
  readonly requestTimeoutMs?: number | undefined;
  readonly shutdownTimeoutMs?: number | undefined;
}

export function parseServeArgs(args: string[]): ServeOptions | 'help' {
  refuseSecretFlags(args);
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        port: { type: 'string', default: '4567' },
        host: { type: 'string', default: '127.0.0.1' },
        instance: { type: 'string', default: 'microstream' },
        quiet: { type: 'boolean', default: false },
        'no-follow': { type: 'boolean', default: false },
        'poll-interval': { type: 'string', default: String(DEFAULT_POLL_INTERVAL_MS) },
        'auth-token-file': { type: 'string' },
        'basic-auth-file': { type: 'string' },
        cors: { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'max-response-bytes': { type: 'string' },
        'request-timeout': { type: 'string' },
        'shutdown-timeout': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length !== 1) throw new UsageError('expected exactly one storage directory');
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535) throw new UsageError(`invalid --port "${values.port}"`);
  if (!/^[^/\s?#;]+$/.test(values.instance)) throw new UsageError(`invalid --instance "${values.instance}"`);
  const pollIntervalMs = Number(values['poll-interval']);
  if (!/^\d+$/.test(values['poll-interval']) || pollIntervalMs < 10) {
    throw new UsageError(`invalid --poll-interval "${values['poll-interval']}" (milliseconds, at least 10)`);
  }
  if (values.cors !== undefined) parseCorsOrigins(values.cors); // fail early on a bad list
  if ((values['tls-cert'] === undefined) !== (values['tls-key'] === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
  return {
    directory: positionals[0] as string,
    port,
    host: values.host,
    instance: values.instance,
    quiet: values.quiet,
    follow: !values['no-follow'],
    pollIntervalMs,
    authTokenFile: values['auth-token-file'],
    basicAuthFile: values['basic-auth-file'],
    cors: values.cors,
    tlsCert: values['tls-cert'],
    tlsKey: values['tls-key'],
    maxResponseBytes: integerOption(values['max-response-bytes'], '--max-response-bytes', 1024, 'bytes'),
    requestTimeoutMs: integerOption(values['request-timeout'], '--request-timeout', 0, 'milliseconds, 0 for none'),
    shutdownTimeoutMs: integerOption(values['shutdown-timeout'], '--shutdown-timeout', 0, 'milliseconds'),
  };
}

function integerOption(text: string | undefined, name: string, min: number, unit: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || (unit.startsWith('milli') && value > 2 ** 31 - 1)) {
    throw new UsageError(`invalid ${name} "${text}" (${unit}, at least ${min})`);
  }
  return value;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

export async function run(args: string[], io: CommandIo): Promise<void> {
  const options = parseServeArgs(args);
  if (options === 'help') {
    io.stdout.write(HELP);
    return;
  }
  // Secrets and certificates are read (and checked) before the storage is opened.
  const warn = (message: string): void => void io.stderr.write(`storage-inspector: warning: ${message}\n`);
  const auth = loadAuthConfig({ tokenFile: options.authTokenFile, basicAuthFile: options.basicAuthFile, env: process.env, warn });
  const tls = loadTlsConfig(options.tlsCert, options.tlsKey, warn);
  const cors = options.cors === undefined ? undefined : parseCorsOrigins(options.cors);
  if (!LOOPBACK.test(options.host) && auth === undefined) {
    warn(`listening on ${options.host} without authentication: anyone who can reach this port can read the whole storage (see --auth-token-file)`);
  }
  if (!LOOPBACK.test(options.host) && auth !== undefined && tls === undefined) {
    warn(`listening on ${options.host} with credentials but without TLS: they cross the network in clear text (see --tls-cert)`);
  }

  const started = Date.now();
  const progress = progressPrinter(io, started);
  const storage = await Storage.open(options.directory, { onProgress: progress });
  try {
    checkServable(storage);
  } catch (error) {
    await storage.close();
    throw error;
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const files = storage.channels.reduce((n, c) => n + c.files.length, 0);
  io.stderr.write(
    `storage-inspector: indexed ${storage.entityCount} entities in ${files} data files of ${storage.channels.length} channel(s) in ${seconds} s\n`,
  );
  for (const warning of storage.warnings) io.stderr.write(`storage-inspector: warning: ${warning}\n`);

  const follower = options.follow
    ? new StorageFollower(storage, {
        pollIntervalMs: options.pollIntervalMs,
        onRefresh: (event) => {
          if (event.kind === 'changed') app.log.info({ generation: event.generation, ms: event.ms }, 'storage changed');
          else if (event.kind === 'failed') app.log.warn({ err: event.error }, 'refresh failed; serving the previous state');
        },
      })
    : undefined;
  const app = buildApp(storage, {
    instance: options.instance,
    // --quiet drops the request log (info), not the failures (warn, error).
    logger: { level: options.quiet ? 'warn' : 'info' },
    auth,
    cors,
    tls,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    ...(follower === undefined ? {} : { catchUp: () => follower.refreshNow() }),
  });
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) {
      io.stderr.write(`storage-inspector: ${signal} again: exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    io.stderr.write(`storage-inspector: ${signal}: no new connections; finishing requests in flight (at most ${shutdownTimeoutMs} ms)\n`);
    // After the grace period, connections still open are cut; after a little more, the process goes anyway.
    const cut = setTimeout(() => {
      io.stderr.write('storage-inspector: shutdown timeout: closing the remaining connections\n');
      app.server.closeAllConnections();
    }, shutdownTimeoutMs);
    const hard = setTimeout(() => process.exit(1), shutdownTimeoutMs + 5000);
    hard.unref();
    try {
      await follower?.stop();
      await app.close();
      clearTimeout(cut);
      await storage.close();
    } finally {
      io.stderr.write('storage-inspector: stopped\n');
      process.exit(0);
    }
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => void shutdown(signal));
  }
  await app.listen({ host: options.host, port: options.port });
  follower?.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const scheme = tls === undefined ? 'http' : 'https';
  const guarded = [auth === undefined ? undefined : 'authentication required', cors === undefined ? undefined : 'CORS allow-list'].filter((x) => x !== undefined);
  io.stderr.write(
    `storage-inspector: serving ${options.directory} at ${scheme}://${hostForUrl(options.host)}:${port}/${options.instance}/root${guarded.length > 0 ? ` (${guarded.join(', ')})` : ''}\n`,
  );
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Progress on stderr while indexing takes longer than a second, at most once a second. */
function progressPrinter(io: CommandIo, started: number): (p: OpenProgress) => void {
  let last = started;
  return (p) => {
    const now = Date.now();
    if (now - last < 1000) return;
    last = now;
    const percent = p.bytesTotal === 0 ? 100 : Math.floor((100 * p.bytesDone) / p.bytesTotal);
    io.stderr.write(
      `storage-inspector: indexing ${percent}% (${p.filesDone}/${p.filesTotal} files, ${p.entities} entities so far)\n`,
    );
  };
}
