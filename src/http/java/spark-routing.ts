import { routePaths, type RouteName } from './documentation.js';

/**
 * Route matching as SparkJava 2.8 does it for the Java service (rest-rendering.md §1): on the raw
 * request path, segment by segment, empty segments skipped, a trailing slash significant, one
 * `:oid` parameter that loses its `;param` suffix and is percent-decoded.
 */

export interface RouteMatch {
  readonly name: RouteName;
  /** The decoded `:oid` segment for the object route. */
  readonly oid?: string;
}

interface CompiledRoute {
  readonly name: RouteName;
  readonly trailingSlash: boolean;
  readonly segments: readonly string[];
}

/** Routes split into segments once per instance name (matching runs on every request). */
const compiled = new Map<string, readonly CompiledRoute[]>();

function compiledRoutes(instance: string): readonly CompiledRoute[] {
  let routes = compiled.get(instance);
  if (routes === undefined) {
    routes = routePaths(instance).map((r) => ({ name: r.name, trailingSlash: r.path.endsWith('/'), segments: segments(r.path) }));
    compiled.set(instance, routes);
  }
  return routes;
}

export function matchRoute(instance: string, rawPath: string): RouteMatch | undefined {
  const requestSegments = segments(rawPath);
  const trailingSlash = rawPath.endsWith('/');
  for (const route of compiledRoutes(instance)) {
    // A trailing slash must be present on both or on neither.
    if (route.trailingSlash !== trailingSlash) continue;
    const routeSegments = route.segments;
    if (routeSegments.length !== requestSegments.length) continue;
    let oid: string | undefined;
    let matched = true;
    for (let i = 0; i < routeSegments.length && matched; i++) {
      const expected = routeSegments[i] as string;
      const actual = requestSegments[i] as string;
      if (expected.startsWith(':')) oid = decodeParameter(actual);
      else matched = expected === actual;
    }
    if (matched) return oid === undefined ? { name: route.name } : { name: route.name, oid };
  }
  return undefined;
}

/** The non-empty segments between slashes (a scan: `split` and `filter` took twice as long per request). */
function segments(path: string): string[] {
  const found: string[] = [];
  let start = 0;
  for (;;) {
    const slash = path.indexOf('/', start);
    const end = slash < 0 ? path.length : slash;
    if (end > start) found.push(path.slice(start, end));
    if (slash < 0) return found;
    start = slash + 1;
  }
}

/** Path parameter value: `;params` cut off, then percent-decoded (a literal `+` stays `+`). */
function decodeParameter(segment: string): string {
  const semicolon = segment.indexOf(';');
  const value = semicolon < 0 ? segment : segment.slice(0, semicolon);
  if (!value.includes('%')) return value; // nothing to decode (decoding cannot fail without a %)
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * Whether Spark's content negotiation lets a request through: routes accept `*\/*`, and what
 * counts is the quality of the most general media range in `Accept` (`*\/*`, then `type/*`, then
 * a concrete type; the first on ties). A quality of 0 means no route matches.
 */
export function acceptAllowsRoutes(accept: string | undefined): boolean {
  if (accept === undefined) return true;
  // Clients send the same Accept header with every request: its verdict is kept for the next.
  if (accept === lastAccept) return lastAcceptAllows;
  const allows = acceptAllows(accept);
  lastAccept = accept;
  lastAcceptAllows = allows;
  return allows;
}

let lastAccept: string | undefined;
let lastAcceptAllows = true;

function acceptAllows(accept: string): boolean {
  if (accept.trim() === '') return true;
  let best: { generality: number; quality: number } | undefined;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((p) => p.trim());
    if (type === '') continue;
    const generality = type === '*/*' || type === '*' ? 2 : type.endsWith('/*') ? 1 : 0;
    let quality = 1;
    for (const param of params) {
      const [key, value] = param.split('=').map((p) => p.trim());
      if (key !== 'q' || value === undefined) continue;
      const q = /^[0-9]*\.?[0-9]+$/.test(value) ? Number(value) : Number.NaN;
      quality = Number.isNaN(q) ? 0 : q < 0 || q > 1 ? 1 : q;
    }
    if (best === undefined || generality > best.generality) best = { generality, quality };
  }
  return best === undefined || best.quality > 0;
}
