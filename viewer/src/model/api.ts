/**
 * Client of the Storage REST API (the Java 4.1 service's routes; this viewer uses nothing else,
 * so it works against the Java service as well when that allows CORS). Object ids stay strings:
 * they exceed 2^53.
 */

export type Json = string | Json[];

export interface ObjectDescription {
  readonly objectId: string;
  readonly typeId: string;
  readonly length: string;
  readonly variableLength: readonly string[] | null;
  readonly simplified: boolean;
  readonly data: readonly Json[];
  readonly references: readonly (ObjectDescription | null)[] | null;
}

export interface FileStatistics {
  readonly fileNumber: string;
  readonly file: string;
  readonly fileCount: string;
  readonly liveDataLength: string;
  readonly totalDataLength: string;
}

export interface ChannelStatistics {
  readonly channelIndex: number;
  readonly files: readonly FileStatistics[];
  readonly fileCount: string;
  readonly liveDataLength: string;
  readonly totalDataLength: string;
}

export interface FilesStatistics {
  readonly creationTime: string;
  readonly channelStatistics: Readonly<Record<string, ChannelStatistics>>;
  readonly fileCount: string;
  readonly liveDataLength: string;
  readonly totalDataLength: string;
}

export interface RootInfo {
  readonly name: string;
  readonly objectId: string;
}

export interface ObjectQuery {
  readonly fixedOffset?: number;
  readonly fixedLength?: number;
  readonly variableOffset?: number;
  readonly variableLength?: number;
  readonly valueLength?: number;
  readonly references?: boolean;
}

export type ApiErrorKind = 'unreachable' | 'not-found' | 'server' | 'unauthorized' | 'bad-answer';

/** A failed request, with a message in plain words for the user. */
export class ApiError extends Error {
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    readonly status: number | undefined,
    readonly url: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Before tokens were bound to their server, one key held the token for any server: never used again. */
const UNBOUND_TOKEN_KEY = 'storage-inspector.token';
const TOKEN_KEY_PREFIX = 'storage-inspector.token@';

/**
 * The REST API of one server. A Bearer token entered for it is kept (for this browser tab) under
 * the server's origin and only ever sent to that origin: a link naming another server in `?api=`
 * cannot make the viewer send it there.
 */
export class Api {
  /** Origin of `base` (scheme, host, port): what credentials are bound to. */
  readonly origin: string;
  private tokenValue: string | undefined;

  constructor(
    /** Origin (and optional path prefix) of the REST service, without a trailing slash. */
    readonly base: string,
    public instance: string,
  ) {
    this.origin = new URL(base).origin;
    try {
      sessionStorage.removeItem(UNBOUND_TOKEN_KEY);
      this.tokenValue = sessionStorage.getItem(this.tokenKey) ?? undefined;
    } catch {
      this.tokenValue = undefined;
    }
  }

  /** Bearer token for this server, if one was entered for it. */
  get token(): string | undefined {
    return this.tokenValue;
  }

  setToken(token: string | undefined): void {
    this.tokenValue = token;
    try {
      if (token === undefined) sessionStorage.removeItem(this.tokenKey);
      else sessionStorage.setItem(this.tokenKey, token);
    } catch {
      // storage unavailable: keep it in memory only
    }
  }

  private get tokenKey(): string {
    return TOKEN_KEY_PREFIX + this.origin;
  }

  /** Display form of the server, e.g. `127.0.0.1:4567`. */
  get serverLabel(): string {
    try {
      return new URL(this.base).host;
    } catch {
      return this.base;
    }
  }

  url(path: string): string {
    // A storage served by name has a two-segment instance (`microstream/shop`).
    return `${this.base}/${this.instance.split('/').map(encodeURIComponent).join('/')}${path}`;
  }

  objectUrl(oid: string, query: ObjectQuery = {}): string {
    const params: string[] = [];
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined) continue;
      params.push(`${key}=${String(value)}`);
    }
    return this.url(`/object/${oid}`) + (params.length > 0 ? `?${params.join('&')}` : '');
  }

  async root(): Promise<RootInfo> {
    return this.json<RootInfo>(this.url('/root'), 'the root object');
  }

  async object(oid: string, query: ObjectQuery = {}): Promise<ObjectDescription> {
    return this.json<ObjectDescription>(this.objectUrl(oid, query), `object ${oid}`);
  }

  async dictionary(): Promise<string> {
    const response = await this.request(this.url('/dictionary'), 'the type dictionary');
    return response.text();
  }

  async statistics(): Promise<FilesStatistics> {
    return this.json<FilesStatistics>(this.url('/maintenance/filesStatistics'), 'the storage statistics');
  }

  /** The instance name from the route list (`GET /`), or undefined if it cannot be told. */
  async discoverInstance(): Promise<string | undefined> {
    return (await this.discoverInstances())[0];
  }

  /**
   * Every storage the route list (`GET /`) names, as the path before its `/root` route: one
   * instance (`microstream`), or one per storage when several are served (`microstream/shop`).
   */
  async discoverInstances(): Promise<string[]> {
    const routes = await this.json<{ URL?: string }[]>(`${this.base}/`, 'the route list');
    if (!Array.isArray(routes)) return [];
    const instances: string[] = [];
    for (const route of routes) {
      const url = route.URL ?? '';
      const slash = url.indexOf('/');
      if (slash < 0 || !url.endsWith('/root')) continue;
      const path = url.slice(slash + 1, -'/root'.length);
      if (path === '') continue;
      const instance = path.split('/').map((s) => safeDecode(s)).join('/');
      if (!instances.includes(instance)) instances.push(instance);
    }
    return instances;
  }

  private async json<T>(url: string, what: string): Promise<T> {
    const response = await this.request(url, what);
    const text = await response.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ApiError('bad-answer', `The server's answer for ${what} is not valid JSON. Is ${this.base} a storage REST service?`, response.status, url);
    }
  }

  /**
   * Any request (a POST with a body, an abortable one) with the credentials the viewer holds;
   * rejects when the server cannot be reached or the request was aborted (the AbortError as is).
   */
  async send(url: string, init: RequestInit): Promise<Response> {
    const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) };
    if (this.token !== undefined) headers['authorization'] = `Bearer ${this.token}`;
    try {
      return await fetch(url, { ...init, headers, cache: 'no-store' });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') throw error;
      throw new ApiError('unreachable', `The server at ${this.serverLabel} does not answer. Is storage-inspector still running?`, undefined, url);
    }
  }

  /** A GET with the credentials the viewer holds; rejects only when the server cannot be reached. */
  async fetch(url: string): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.token !== undefined) headers['authorization'] = `Bearer ${this.token}`;
    try {
      return await fetch(url, { headers, cache: 'no-store' });
    } catch {
      throw new ApiError('unreachable', `The server at ${this.serverLabel} does not answer. Is storage-inspector still running?`, undefined, url);
    }
  }

  private async request(url: string, what: string): Promise<Response> {
    let response: Response;
    const headers: Record<string, string> = {};
    // Credentials go to the server they were given for, and nowhere else.
    if (this.tokenValue !== undefined && new URL(url).origin === this.origin) headers['authorization'] = `Bearer ${this.tokenValue}`;
    try {
      response = await fetch(url, { headers, cache: 'no-store' });
    } catch {
      throw new ApiError(
        'unreachable',
        `The server at ${this.serverLabel} does not answer. Is storage-inspector (or the Java service) still running?`,
        undefined,
        url,
      );
    }
    if (response.ok) return response;
    const body = (await response.text().catch(() => '')).trim();
    throw describeFailure(response.status, body, what, url, response.headers.get(ERROR_HEADER) ?? undefined);
  }
}

/** storage-inspector names the reason of a failure here: `<CODE>: <message>` with file and offset. */
const ERROR_HEADER = 'x-storage-inspector-error';

function describeFailure(status: number, body: string, what: string, url: string, reason: string | undefined): ApiError {
  if (status === 401 || status === 403) {
    return new ApiError('unauthorized', 'This server requires credentials. Enter an access token to continue.', status, url);
  }
  const missing = /^No entity found for objectId (-?\d+)/.exec(body);
  if (status === 404 && missing !== null) {
    const id = missing[1] ?? '';
    const isThis = what === `object ${id}`;
    return new ApiError(
      'not-found',
      isThis
        ? `There is no object with id ${id} in this storage. It may never have been stored, or it was replaced and is gone now.`
        : `${capitalize(what)} refers to object ${id}, which does not exist in this storage.`,
      status,
      url,
    );
  }
  if (status === 404 && /^invalid (url )?parameter/.test(body)) {
    return new ApiError('not-found', `The server refused the request for ${what}: ${body}.`, status, url);
  }
  if (status === 404) {
    return new ApiError('not-found', `The server does not know ${what} (404). Is the instance name "${url.split('/')[3] ?? ''}" right?`, status, url);
  }
  if (status === 503) {
    const why = reason === undefined ? '' : ` The server says: ${reason}`;
    return new ApiError('server', `The server is busy or not ready for ${what} (503). Try again in a moment.${why}`, status, url);
  }
  if (status >= 500 && reason !== undefined) {
    return new ApiError('server', `The server could not read ${what} (error ${status}): ${reason}`, status, url);
  }
  if (status >= 500) {
    return new ApiError('server', `The server could not read ${what} (error ${status}). The stored data may be unreadable for the service.`, status, url);
  }
  return new ApiError('server', `The server answered ${status} for ${what}.${reason === undefined ? '' : ` ${reason}`}`, status, url);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return `Something went wrong in the viewer: ${error.message}`;
  return `Something went wrong in the viewer: ${String(error)}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
