import type { FastifyServerOptions } from 'fastify';

/** `--log-format`: JSON lines (pino's own, for log collectors) or pino-pretty's text for people. */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Fields of the request line that the pretty format puts into its message instead of below it. */
const REQUEST_FIELDS = ['method', 'url', 'status', 'ms'] as const;

/**
 * The format when `--log-format` is not given: pretty for a person at a terminal, JSON lines when
 * the log goes to a file, a pipe or a log collector.
 */
export function defaultLogFormat(logFile: string | undefined, stdoutIsTty: boolean | undefined): LogFormat {
  return logFile === undefined && stdoutIsTty === true ? 'pretty' : 'json';
}

/**
 * The logger options for fastify; `destination`: a file to append to (`--log-file`) or a stream
 * (tests); default stdout. pino-pretty is loaded only for the pretty format.
 */
export async function serverLogger(
  format: LogFormat,
  level: 'info' | 'warn',
  destination?: NodeJS.WritableStream | string,
): Promise<FastifyServerOptions['logger']> {
  if (format === 'json') {
    if (destination === undefined) return { level };
    return typeof destination === 'string' ? { level, file: destination } : { level, stream: destination };
  }
  const { default: pinoPretty } = await import('pino-pretty');
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
