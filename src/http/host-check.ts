import { isIP } from 'node:net';
import { UsageError } from '../errors.js';

/**
 * Protection against DNS rebinding: a web page whose name is made to resolve to 127.0.0.1 can
 * send requests to a loopback server from the user's browser, and read the answers, because for
 * the browser they come from the page's own origin. Such requests still carry the page's name in
 * their `Host` header. So a server bound to loopback answers only requests addressed to a
 * loopback name (`localhost`, `127.0.0.1`, `[::1]`, with any port), plus the names the operator
 * lists with `--allowed-hosts` (e.g. the name a reverse proxy forwards); others get 421.
 */

export interface HostAllowList {
  /** Host names (lower case, IPv6 in brackets) accepted with any port. */
  readonly loopbackNames: ReadonlySet<string>;
  /** Names given by the operator: `name` (any port) or `name:port`. */
  readonly names: ReadonlySet<string>;
}

/** `localhost`, `127.0.0.1`, `[::1]`: the names a browser uses for this machine. */
export const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

const LOOPBACK_ADDRESS = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/i;

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_ADDRESS.test(host);
}

/**
 * `--allowed-hosts`: comma separated `name[:port]` items (DNS names, IPv4 addresses, bracketed
 * IPv6 addresses), or `*` for any Host. Returns the normalised items, or 'any'.
 */
export function parseAllowedHosts(value: string): string[] | 'any' {
  const items = value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (items.length === 0) throw new UsageError('--allowed-hosts needs at least one host name (e.g. inspector.example.com) or *');
  if (items.includes('*')) {
    if (items.length > 1) throw new UsageError('--allowed-hosts: * cannot be combined with names');
    return 'any';
  }
  for (const item of items) {
    if (splitHost(item) === undefined) throw new UsageError(`--allowed-hosts: "${item}" is not a host name, IPv4 address or [IPv6] address with an optional :port`);
  }
  return items;
}

/**
 * The allow-list of a server bound to `bindHost`: the loopback names when it is a loopback
 * address (and the address itself), plus `extra`. Undefined when nothing is to be checked
 * (another interface without `--allowed-hosts`, or `--allowed-hosts '*'`).
 */
export function hostAllowList(bindHost: string, extra: readonly string[] | 'any' | undefined): HostAllowList | undefined {
  if (extra === 'any') return undefined;
  const loopback = isLoopbackHost(bindHost);
  if (!loopback && extra === undefined) return undefined;
  const loopbackNames = new Set(LOOPBACK_NAMES);
  if (loopback) loopbackNames.add(isIP(bindHost) === 6 ? `[${bindHost.toLowerCase()}]` : bindHost.toLowerCase());
  return { loopbackNames, names: new Set(extra ?? []) };
}

/** `name` and optional port of a Host header value; undefined when it is malformed. */
function splitHost(value: string): { name: string; port: string | undefined } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)(?::(\d{1,5}))?$/.exec(value);
  if (match === null) return undefined;
  const name = match[1] as string;
  if (name.startsWith('[') && isIP(name.slice(1, -1)) !== 6) return undefined;
  return { name, port: match[2] };
}

/**
 * Whether a request with this `Host` header may be answered. A loopback name passes with any
 * port (a page can only send it if it was itself loaded from this machine; a local proxy may
 * forward its own port); an operator's name passes as listed. `defaultPort` is the scheme's
 * (80 or 443), which browsers leave out of the header. A request without a Host header
 * (HTTP/1.0) cannot come from a browser page and passes.
 */
export function hostAllowed(header: string | undefined, list: HostAllowList, defaultPort: number): boolean {
  if (header === undefined) return true;
  const parsed = splitHost(header.trim().toLowerCase());
  if (parsed === undefined) return false;
  if (list.loopbackNames.has(parsed.name)) return true;
  const givenPort = parsed.port === undefined ? defaultPort : Number(parsed.port);
  return list.names.has(parsed.name) || list.names.has(`${parsed.name}:${givenPort}`);
}

/** The body of the 421 answer: what was refused and how to allow it. */
export function misdirectedText(header: string | undefined): string {
  const shown = (header ?? '').slice(0, 100).replace(/[^\x20-\x7e]/g, '?');
  return (
    `Misdirected Request: this storage-inspector does not answer for the host "${shown}". ` +
    'It accepts localhost, 127.0.0.1, [::1] and the names given with --allowed-hosts (protection against DNS rebinding).\n'
  );
}
