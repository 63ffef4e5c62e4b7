/**
 * Which REST API the viewer talks to. By default the one next to the page (`/viewer/` is served
 * by storage-inspector itself); `?api=<url>` may name another server, e.g. a Java Storage REST
 * service that allows CORS. A link can carry any `?api=`: an address that is not http(s) is
 * refused, and before the viewer talks to a server other than the page's own, the user is asked
 * (once per browser tab and server).
 */

export type ApiChoice =
  | { readonly kind: 'own'; readonly base: string }
  | { readonly kind: 'foreign'; readonly base: string; readonly origin: string }
  | { readonly kind: 'invalid'; readonly given: string; readonly reason: string };

const ALLOWED_KEY = 'storage-inspector.allowed-api-origins';

/** The API named by the page's address. */
export function chooseApi(page: { readonly search: string; readonly origin: string; readonly pathname: string; readonly href: string }): ApiChoice {
  const given = new URLSearchParams(page.search).get('api');
  // Same server: the REST routes sit next to /viewer/ (also behind a proxy that adds a prefix).
  if (given === null || given.trim() === '') return { kind: 'own', base: page.origin + page.pathname.replace(/\/viewer(\/.*)?$/, '') };
  let url: URL;
  try {
    url = new URL(given.trim(), page.href);
  } catch {
    return { kind: 'invalid', given, reason: 'it is not a web address' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { kind: 'invalid', given, reason: `only http:// and https:// addresses are accepted, not ${url.protocol}` };
  }
  if (url.username !== '' || url.password !== '') return { kind: 'invalid', given, reason: 'it carries a user name or password' };
  const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  return url.origin === page.origin ? { kind: 'own', base } : { kind: 'foreign', base, origin: url.origin };
}

/** The user agreed (in this tab) that the viewer may talk to this origin. */
export function foreignOriginAllowed(origin: string): boolean {
  return allowedOrigins().includes(origin);
}

export function allowForeignOrigin(origin: string): void {
  try {
    sessionStorage.setItem(ALLOWED_KEY, JSON.stringify([...new Set([...allowedOrigins(), origin])]));
  } catch {
    // storage unavailable: asked again on the next load
  }
}

function allowedOrigins(): string[] {
  try {
    const parsed: unknown = JSON.parse(sessionStorage.getItem(ALLOWED_KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((o): o is string => typeof o === 'string') : [];
  } catch {
    return [];
  }
}
