import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { UsageError } from '../../errors.js';

/**
 * Protection against DNS rebinding: a web page whose name is made to resolve to 127.0.0.1 can
 * send requests to a loopback server from the user's browser, and read the answers, because for
 * the browser they come from the page's own origin. Such requests still carry the page's name in
 * their `Host` header. So a server answers only requests addressed to a loopback name
 * (`localhost`, `127.0.0.1`, `[::1]`), to an address it listens on (with any port: a page whose
 * origin is an address is no rebinding), plus the names the operator lists with
 * `--allowed-hosts` (e.g. the name a reverse proxy forwards); others get 421. On every interface,
 * loopback or not, unless `--allowed-hosts '*'`.
 */

export interface HostAllowList {
  /** Host names (lower case, IPv6 in brackets) accepted with any port: loopback names and the addresses listened on. */
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
 * The allow-list of a server bound to `bindHost`: the loopback names, the addresses it listens on
 * (`listening`: by default the machine's interface addresses for a wildcard such as 0.0.0.0, the
 * address or name itself otherwise), plus `extra`. Undefined only for `--allowed-hosts '*'`.
 */
export function hostAllowList(
  bindHost: string,
  extra: readonly string[] | 'any' | undefined,
  listening: readonly string[] = listeningAddresses(bindHost),
): HostAllowList | undefined {
  if (extra === 'any') return undefined;
  const loopbackNames = new Set(LOOPBACK_NAMES);
  for (const address of listening) loopbackNames.add(isIP(address) === 6 ? `[${address.toLowerCase()}]` : address.toLowerCase());
  return { loopbackNames, names: new Set(extra ?? []) };
}

/** Wildcard addresses: the server listens on every interface (0.0.0.0 on IPv4 ones only). */
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/** The addresses a server bound to `bindHost` can be reached at (Host values that name it). */
export function listeningAddresses(bindHost: string, interfaces = networkInterfaces()): string[] {
  if (!WILDCARDS.has(bindHost)) return [bindHost];
  const ipv4Only = bindHost === '0.0.0.0';
  const addresses: string[] = [];
  for (const list of Object.values(interfaces)) {
    for (const info of list ?? []) {
      if (ipv4Only && info.family !== 'IPv4') continue;
      // A link-local IPv6 address needs its zone in a URL: no browser sends it as a Host.
      if (info.family === 'IPv6' && info.scopeid !== undefined && info.scopeid !== 0) continue;
      addresses.push(info.address);
    }
  }
  return addresses;
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
    'It accepts localhost, 127.0.0.1, [::1], the addresses it listens on and the names given with --allowed-hosts (protection against DNS rebinding).\n'
  );
}
