import { UsageError } from '../../errors.js';
import { loadAuthConfig, type AuthConfig } from '../../http/guard/auth.js';
import { DESCRIPTOR_RESERVE } from '../../http/guard/connections.js';
import { parseCorsOrigins, type CorsConfig } from '../../http/guard/cors.js';
import { hostAllowList, isLoopbackHost, parseAllowedHosts, type HostAllowList } from '../../http/guard/host-check.js';
import { loadMetricsToken } from '../../http/guard/metrics-token.js';
import { loadTlsConfig, type TlsConfig } from '../../http/guard/tls.js';
import { descriptorLimit, storageDescriptorBudget } from '../../storage/source/file-reader.js';
import type { ServeOptions } from './serve-options.js';

/**
 * What `serve` opens before any storage: its secrets and certificates (read and checked first),
 * the Host allow-list and CORS origins, and the warnings and refusals about who could reach it.
 */

export interface ServeAccess {
  readonly auth: AuthConfig | undefined;
  readonly tls: TlsConfig | undefined;
  readonly metricsToken: AuthConfig | undefined;
  readonly cors: CorsConfig | undefined;
  readonly allowedHosts: HostAllowList | undefined;
}

export function openAccess(options: ServeOptions, warn: (message: string) => void): ServeAccess {
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
  warnIfFewDescriptors(options.maxConnections, warn);
  return { auth, tls, metricsToken, cors, allowedHosts };
}

function warnIfFewDescriptors(maxConnections: number | undefined, warn: (message: string) => void): void {
  const limit = descriptorLimit();
  const reserve = storageDescriptorBudget() + DESCRIPTOR_RESERVE;
  if (maxConnections !== undefined && limit !== undefined && maxConnections > limit - reserve) {
    warn(
      `--max-connections ${maxConnections} leaves fewer than ${reserve} of the ${limit} file descriptors this process may open (ulimit -n) for the storage; ` +
        'at that many connections, reading the storage may fail with EMFILE',
    );
  }
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
