import { parseArgs } from 'node:util';
import { UsageError } from '../../errors.js';
import { buildApp } from '../../http/app.js';
import { DEFAULT_POLL_INTERVAL_MS, StorageFollower } from '../../storage/follow.js';
import { Storage, type OpenProgress } from '../../storage/storage.js';
import type { CommandIo } from '../io.js';

const HELP = `Usage: storage-inspector serve <storage-dir> [options]

Serves a MicroStream 4.x storage directory read-only over the Storage REST API
(answers byte for byte like the Java 4.1 service).

Options:
  --port <n>         port to listen on (default 4567)
  --host <address>   interface to listen on (default 127.0.0.1)
  --instance <name>  instance name, the first path segment (default microstream)
  --no-follow        serve the state at startup; do not follow later commits
  --poll-interval <ms>  how often to look for changes besides file system events (default 500)
  --quiet            no request log
  -h, --help         this text
`;

export interface ServeOptions {
  readonly directory: string;
  readonly port: number;
  readonly host: string;
  readonly instance: string;
  readonly quiet: boolean;
  readonly follow: boolean;
  readonly pollIntervalMs: number;
}

export function parseServeArgs(args: string[]): ServeOptions | 'help' {
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
  return {
    directory: positionals[0] as string,
    port,
    host: values.host,
    instance: values.instance,
    quiet: values.quiet,
    follow: !values['no-follow'],
    pollIntervalMs,
  };
}

export async function run(args: string[], io: CommandIo): Promise<void> {
  const options = parseServeArgs(args);
  if (options === 'help') {
    io.stdout.write(HELP);
    return;
  }
  const started = Date.now();
  const progress = progressPrinter(io, started);
  const storage = await Storage.open(options.directory, { onProgress: progress });
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
    logger: options.quiet ? false : { level: 'info' },
    ...(follower === undefined ? {} : { catchUp: () => follower.refreshNow() }),
  });
  const close = async (): Promise<void> => {
    await follower?.stop();
    await app.close();
    await storage.close();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void close().then(() => process.exit(0));
    });
  }
  await app.listen({ host: options.host, port: options.port });
  follower?.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  io.stderr.write(`storage-inspector: serving ${options.directory} at http://${hostForUrl(options.host)}:${port}/${options.instance}/root\n`);
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
