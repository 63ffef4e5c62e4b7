import pinoPretty from 'pino-pretty';
import type { FastifyServerOptions } from 'fastify';

/** `--log-format`: JSON lines (pino's own, for log collectors) or pino-pretty's text for people. */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Fields of the request line that the pretty format puts into its message instead of below it. */
const REQUEST_FIELDS = ['method', 'url', 'status', 'ms'] as const;

/** The logger options for fastify; `destination`: a file to append to (`--log-file`) or a stream (tests); default stdout. */
export function serverLogger(format: LogFormat, level: 'info' | 'warn', destination?: NodeJS.WritableStream | string): FastifyServerOptions['logger'] {
  if (format === 'json') {
    if (destination === undefined) return { level };
    return typeof destination === 'string' ? { level, file: destination } : { level, stream: destination };
  }
  const stream = pinoPretty({
    // Synchronous: a line is out before the process exits (shutdown, fatal errors).
    sync: true,
    ...(destination === undefined ? {} : { destination }),
    colorize: destination === undefined && process.stdout.isTTY === true,
    ...(typeof destination === 'string' ? { append: true, mkdir: false } : {}),
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: ['pid', 'hostname', 'reqId', ...REQUEST_FIELDS].join(','),
    // `GET /microstream/root 200 1.2 ms` on one line; other fields (err, code, ...) stay below.
    messageFormat: (log, messageKey) => {
      const f = log as Record<string, unknown>;
      const request = [f['method'], f['url'], f['status'], f['ms'] === undefined ? undefined : `${String(f['ms'])} ms`]
        .filter((v) => v !== undefined)
        .join(' ');
      const message = String(f[messageKey] ?? '');
      return request === '' ? message : `${message === 'request' ? '' : `${message}: `}${request}`;
    },
  });
  return { level, stream };
}
