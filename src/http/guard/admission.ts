import type { IncomingHttpHeaders } from 'node:http';
import { challenges, checkAuthorization, UNAUTHORIZED_BODY, type AuthConfig } from './auth.js';
import { allowedOrigin, isPreflight, preflightHeaders, responseHeaders, type CorsConfig } from './cors.js';
import { hostAllowed, misdirectedText, type HostAllowList } from './host-check.js';
import { METRICS_PATH } from './operation-paths.js';
import type { TlsConfig } from './tls.js';

/**
 * Host check, CORS and credentials for one request, decided from its method, URL and headers
 * alone: the application runs it before routing, and the port's stand-in while storages open
 * (opening-server.ts) runs the same.
 */

/** What the access checks depend on (a subset of the application's options). */
export interface AdmissionOptions {
  readonly allowedHosts?: HostAllowList | undefined;
  readonly tls?: TlsConfig | undefined;
  readonly auth?: AuthConfig | undefined;
  readonly cors?: CorsConfig | undefined;
  readonly metricsToken?: AuthConfig | undefined;
}

/** What the access checks decided for one request: headers to add, or the whole answer. */
export interface Admission {
  readonly headers: Readonly<Record<string, string | string[]>>;
  readonly answer?: { readonly status: number; readonly contentType?: string; readonly body: string };
}

export const ALLOW_ALL: Admission = { headers: {} };

function isMetricsRequest(method: string, url: string): boolean {
  return method === 'GET' && (url === METRICS_PATH || url.startsWith(`${METRICS_PATH}?`));
}

/**
 * Host check, CORS and authentication, before any routing (so they cover every route, present and
 * future: the Java routes, the viewer, the operations routes, /api/v1 and whatever comes).
 */
export function admit(options: AdmissionOptions, method: string, url: string, headers: IncomingHttpHeaders): Admission {
  if (options.allowedHosts !== undefined) {
    const host = headers['host'];
    const value = Array.isArray(host) ? host[0] : host;
    if (!hostAllowed(value, options.allowedHosts, options.tls === undefined ? 80 : 443)) {
      return {
        headers: { 'cache-control': 'no-store' },
        answer: { status: 421, contentType: 'text/plain;charset=utf-8', body: misdirectedText(value) },
      };
    }
  }
  if (options.auth === undefined && options.cors === undefined && options.metricsToken === undefined) return ALLOW_ALL;
  const out: Record<string, string | string[]> = {};
  if (options.cors !== undefined) {
    if (!options.cors.any) out['vary'] = 'Origin';
    const origin = allowedOrigin(options.cors, headers);
    if (origin !== undefined) {
      // A preflight carries no credentials: answer it here, before authentication.
      if (isPreflight(method, headers)) return { headers: preflightHeaders(options.cors, origin), answer: { status: 204, body: '' } };
      Object.assign(out, responseHeaders(options.cors, origin));
    }
  }
  const authorization = headers['authorization'];
  const presented = Array.isArray(authorization) ? authorization[0] : authorization;
  // The metrics token opens /metrics only; without it /metrics needs what every route needs.
  const metricsGuard = options.metricsToken !== undefined && isMetricsRequest(method, url) ? options.metricsToken : undefined;
  if (metricsGuard !== undefined && checkAuthorization(metricsGuard, presented).ok) return { headers: out };
  const guard = options.auth ?? metricsGuard;
  if (guard !== undefined) {
    const result = checkAuthorization(guard, presented);
    if (!result.ok) {
      out['www-authenticate'] = challenges(guard, result.invalid);
      out['cache-control'] = 'no-store';
      return { headers: out, answer: { status: 401, contentType: 'text/plain;charset=utf-8', body: UNAUTHORIZED_BODY } };
    }
  }
  return { headers: out };
}
