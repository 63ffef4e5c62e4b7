import { UsageError } from '../../errors.js';

/**
 * CORS, off by default (the Java service sends no CORS headers, so browsers only let pages of the
 * same origin read its answers). `--cors` names the origins whose pages may read answers:
 * their requests get `Access-Control-Allow-Origin`, and their preflights (OPTIONS with
 * `Access-Control-Request-Method`) are answered here, without credentials, instead of being
 * routed to the Java service's OPTIONS documentation.
 */

export interface CorsConfig {
  /** Allowed origins, normalised (`scheme://host[:port]`, lower case); empty with `any`. */
  readonly origins: ReadonlySet<string>;
  /** `*`: any origin. */
  readonly any: boolean;
}

const PREFLIGHT_MAX_AGE = '600';
const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
/** Our own headers that pages may read. */
const EXPOSED = 'X-Storage-Inspector-Error, X-Storage-Inspector-Warning';

/** Parses `--cors` (comma separated origins, or `*`). */
export function parseCorsOrigins(value: string): CorsConfig {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) throw new UsageError('--cors needs at least one origin (e.g. https://viewer.example.com) or *');
  if (items.includes('*')) {
    if (items.length > 1) throw new UsageError('--cors: * cannot be combined with other origins');
    return { origins: new Set(), any: true };
  }
  const origins = new Set<string>();
  for (const item of items) origins.add(normaliseOrigin(item));
  return { origins, any: false };
}

function normaliseOrigin(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--cors: "${text}" is not an origin (expected scheme://host[:port])`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || text.endsWith('/')) {
    throw new UsageError(`--cors: "${text}" is not an origin (expected scheme://host[:port], no path)`);
  }
  return url.origin;
}

function header(headers: Readonly<Record<string, string | string[] | undefined>>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The request's Origin if the configuration allows it. */
export function allowedOrigin(config: CorsConfig, headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined {
  const origin = header(headers, 'origin');
  if (origin === undefined) return undefined;
  if (config.any) return origin;
  let normalised: string;
  try {
    normalised = new URL(origin).origin;
  } catch {
    return undefined;
  }
  return normalised === origin.toLowerCase() && config.origins.has(normalised) ? origin : undefined;
}

/** Whether a request is a CORS preflight. */
export function isPreflight(method: string, headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  return method === 'OPTIONS' && header(headers, 'origin') !== undefined && header(headers, 'access-control-request-method') !== undefined;
}

/** Headers for an actual (non-preflight) response to an allowed origin. */
export function responseHeaders(config: CorsConfig, origin: string): Record<string, string> {
  return config.any
    ? { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED }
    : { 'access-control-allow-origin': origin, vary: 'Origin', 'access-control-expose-headers': EXPOSED };
}

/** Headers of the answer (204) to a preflight from an allowed origin. */
export function preflightHeaders(config: CorsConfig, origin: string): Record<string, string> {
  return {
    ...responseHeaders(config, origin),
    'access-control-allow-methods': ALLOWED_METHODS,
    'access-control-allow-headers': 'Authorization, Accept, X-HTTP-Method-Override',
    'access-control-max-age': PREFLIGHT_MAX_AGE,
  };
}
