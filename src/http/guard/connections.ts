import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { descriptorLimit, storageDescriptorBudget } from '../../storage/source/file-reader.js';
import type { ServerErrorCode } from '../../errors.js';

/**
 * The server's connections: a cap on how many are open (so that idle sockets cannot exhaust the
 * process's file descriptors, which the storage needs too), responses in flight per connection,
 * and a shutdown that lets every response already started finish.
 *
 * At the cap, a new connection first takes the place of the connection that has been idle the
 * longest (no request in flight: keep-alive connections between requests, or sockets that never
 * sent one); closing an idle keep-alive connection is ordinary HTTP, clients open a new one. Only
 * when every connection has a request in flight is the new one answered `503` and closed.
 *
 * Node's own `closeIdleConnections` (called by `server.close()`) destroys a connection as soon as
 * its last response has been ended, even when most of its bytes still wait in the socket to be
 * sent: that cut answers in the middle on SIGTERM. It is replaced here by one that closes only
 * connections with nothing in flight and nothing left to send.
 */

/**
 * Descriptors kept out of the connection cap besides those the storage may keep open
 * (`storageDescriptorBudget`): logs and the dictionary being read, viewer files, watchers, stdio.
 */
export const DESCRIPTOR_RESERVE = 256;
/** The default cap never exceeds this, whatever the descriptor limit. */
const MAX_DEFAULT_CONNECTIONS = 4096;
const MIN_CONNECTIONS = 16;
/** A refused connection that the client does not close is destroyed after this long. */
const REFUSED_LINGER_MS = 2000;

const REFUSED_CODE: ServerErrorCode = 'TOO_MANY_CONNECTIONS';
const REFUSED_BODY = 'Service Unavailable: this storage-inspector has as many connections as it accepts (--max-connections), all of them busy. Try again in a moment.\n';
const REFUSED_RESPONSE =
  'HTTP/1.1 503 Service Unavailable\r\n' +
  'Content-Type: text/plain;charset=utf-8\r\n' +
  'Retry-After: 1\r\n' +
  `X-Storage-Inspector-Error: ${REFUSED_CODE}: all connections are busy (--max-connections)\r\n` +
  'Connection: close\r\n' +
  `Content-Length: ${Buffer.byteLength(REFUSED_BODY)}\r\n\r\n${REFUSED_BODY}`;

/**
 * The default `--max-connections`: the descriptor limit less what the storage may keep open and
 * the reserve, at most 4096 (1024 assumed as the limit where it cannot be told).
 */
export function defaultMaxConnections(limit: number = descriptorLimit() ?? 1024): number {
  return Math.max(MIN_CONNECTIONS, Math.min(MAX_DEFAULT_CONNECTIONS, limit - storageDescriptorBudget(limit) - DESCRIPTOR_RESERVE));
}

interface Connection {
  /** The socket HTTP is spoken on (the TLS socket over `raw` for HTTPS; undefined during the handshake). */
  http: Socket | undefined;
  readonly raw: Socket;
  /** Responses started and not yet completely sent (or aborted), oldest first. */
  readonly inFlight: InFlight[];
  /** When the last response completed (or the connection opened). */
  idleSince: number;
}

interface InFlight {
  readonly response: ServerResponse;
  readonly connection: Connection;
  readonly guard: ConnectionGuard;
  /** Waiting for the responses before this one to complete (pipelining). */
  readonly waiters: (() => void)[];
}

/**
 * Where a request's and a response's in-flight entry is kept: on the objects themselves, not in
 * a WeakMap (a WeakMap entry per request costs the young-generation collector ephemeron work on
 * every request, measurable on small answers).
 */
const IN_FLIGHT = Symbol('storage-inspector.inFlight');
type Tracked<T> = T & { [IN_FLIGHT]?: InFlight };

export interface ConnectionStats {
  readonly open: number;
  readonly inFlight: number;
  /** Connections refused with 503 because all were busy. */
  readonly refused: number;
  /** Idle connections closed to make room for new ones. */
  readonly evicted: number;
}

export interface DrainResult {
  /** Requests that were in flight when the shutdown began. */
  readonly inFlightAtStart: number;
  /** Responses whose sending had begun and was cut because the shutdown limit passed. */
  readonly cut: number;
  /** Requests not answered at all when the shutdown limit passed (their connections were closed). */
  readonly unanswered: number;
}

export class ConnectionGuard {
  private readonly connections = new Map<Socket, Connection>();
  private readonly byHttpSocket = new WeakMap<Socket, Connection>();
  private refusedCount = 0;
  private evictedCount = 0;
  private closing = false;
  private onIdleWhileClosing: (() => void) | undefined;

  constructor(
    server: Server,
    readonly maxConnections: number,
    private readonly tls: boolean,
  ) {
    // Every connection passes through `admit` before Node (or TLS) sees it.
    const originals = server.listeners('connection') as ((socket: Socket) => void)[];
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => {
      if (!this.admit(socket)) return;
      for (const listener of originals) listener.call(server, socket);
    });
    if (tls) {
      server.on('secureConnection', (socket: Socket) => {
        const raw = (socket as Socket & { _parent?: Socket })._parent;
        const connection = raw === undefined ? undefined : this.connections.get(raw);
        if (connection === undefined) return;
        connection.http = socket;
        this.byHttpSocket.set(socket, connection);
      });
    }
    // Before the application's handler: a route that asks earlierResponsesSent at once (before
    // any await) must find its request tracked already, or it would not wait its turn.
    server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => this.track(request, response));
    server.closeIdleConnections = () => this.closeIdle();
  }

  get stats(): ConnectionStats {
    let inFlight = 0;
    for (const c of this.connections.values()) inFlight += c.inFlight.length;
    return { open: this.connections.size, inFlight, refused: this.refusedCount, evicted: this.evictedCount };
  }

  /**
   * Requests whose big answer waits for the earlier responses of their connection to be sent
   * (pipelining; see earlierResponsesSent).
   */
  get waitingForEarlierResponses(): number {
    let waiting = 0;
    for (const c of this.connections.values()) for (const entry of c.inFlight) waiting += entry.waiters.length;
    return waiting;
  }

  /**
   * Resolves when the responses that the connection of `request` started before this request's
   * have been sent completely (HTTP/1.1 answers pipelined requests in order, so building a later
   * answer earlier would only hold its bytes).
   */
  earlierResponsesSent(request: IncomingMessage, signal?: AbortSignal): Promise<void> {
    const connection = this.byHttpSocket.get(request.socket);
    const entry = (request as Tracked<IncomingMessage>)[IN_FLIGHT];
    if (connection === undefined || entry === undefined || connection.inFlight[0] === entry || !connection.inFlight.includes(entry)) {
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const aborted = (): void => reject(signal?.reason);
      entry.waiters.push(() => {
        signal?.removeEventListener('abort', aborted);
        resolve();
      });
      signal?.addEventListener('abort', aborted, { once: true });
    });
  }

  /**
   * Shutdown: from now on connections close after their responses; idle ones close at once.
   * Resolves when every connection is closed, or after `timeoutMs` with the remaining ones cut.
   */
  async drain(timeoutMs: number): Promise<DrainResult> {
    this.closing = true;
    const inFlightAtStart = this.stats.inFlight;
    this.closeIdle();
    if (this.connections.size === 0) return { inFlightAtStart, cut: 0, unanswered: 0 };
    const done = new Promise<void>((resolve) => {
      this.onIdleWhileClosing = () => {
        if (this.connections.size === 0) resolve();
      };
    });
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), timeoutMs);
    });
    const outcome = await Promise.race([done, expired]);
    clearTimeout(timer);
    if (outcome !== 'expired') return { inFlightAtStart, cut: 0, unanswered: 0 };
    let cut = 0;
    let unanswered = 0;
    for (const connection of [...this.connections.values()]) {
      for (const entry of connection.inFlight) {
        if (entry.response.headersSent) cut++;
        else unanswered++;
      }
      // A reset, so that bytes still in the kernel's buffers are not sent after all (a plain
      // close would keep delivering them to a slow client long after the process is gone).
      connection.raw.resetAndDestroy();
    }
    return { inFlightAtStart, cut, unanswered };
  }

  private admit(raw: Socket): boolean {
    if (this.connections.size >= this.maxConnections && !this.evictIdle()) {
      this.refuse(raw);
      return false;
    }
    const connection: Connection = { http: this.tls ? undefined : raw, raw, inFlight: [], idleSince: Date.now() };
    this.connections.set(raw, connection);
    if (!this.tls) this.byHttpSocket.set(raw, connection);
    raw.once('close', () => {
      this.connections.delete(raw);
      for (const entry of connection.inFlight) for (const wake of entry.waiters.splice(0)) wake();
      this.onIdleWhileClosing?.();
    });
    return true;
  }

  /**
   * Closes the connection idle the longest; false when every connection has a request in flight.
   * A TLS connection still in its handshake counts as idle (it has sent no request): were it kept,
   * as many silent TCP connections as the cap would lock every client out until their handshake
   * timed out.
   */
  private evictIdle(): boolean {
    let oldest: Connection | undefined;
    for (const c of this.connections.values()) {
      if (c.inFlight.length === 0 && (oldest === undefined || c.idleSince < oldest.idleSince)) oldest = c;
    }
    if (oldest === undefined) return false;
    this.connections.delete(oldest.raw);
    oldest.raw.destroy();
    this.evictedCount++;
    return true;
  }

  private refuse(raw: Socket): void {
    this.refusedCount++;
    raw.on('error', () => undefined);
    if (this.tls) {
      raw.destroy();
      return;
    }
    raw.end(REFUSED_RESPONSE);
    setTimeout(() => raw.destroy(), REFUSED_LINGER_MS).unref();
  }

  private track(request: Tracked<IncomingMessage>, response: Tracked<ServerResponse>): void {
    const connection = this.byHttpSocket.get(request.socket);
    if (connection === undefined) return;
    const entry: InFlight = { response, connection, guard: this, waiters: [] };
    connection.inFlight.push(entry);
    request[IN_FLIGHT] = entry;
    response[IN_FLIGHT] = entry;
    response.on('close', ConnectionGuard.responseClosed);
  }

  /** The one close listener of every tracked response (`this` is the response): no closure per request. */
  private static responseClosed(this: Tracked<ServerResponse>): void {
    const entry = this[IN_FLIGHT];
    if (entry !== undefined) entry.guard.completed(entry);
  }

  /** A response completed (sent, or its connection closed): the next one of its connection may go. */
  private completed(entry: InFlight): void {
    const connection = entry.connection;
    const at = connection.inFlight.indexOf(entry);
    if (at < 0) return;
    connection.inFlight.splice(at, 1);
    connection.idleSince = Date.now();
    const head = connection.inFlight[0];
    if (head !== undefined) for (const wake of head.waiters.splice(0)) wake();
    if (this.closing && connection.inFlight.length === 0) this.closeWhenSent(connection);
  }

  /** Node's closeIdleConnections, minus the connections whose answers are still being sent. */
  private closeIdle(): void {
    for (const connection of this.connections.values()) {
      if (connection.inFlight.length === 0) this.closeWhenSent(connection);
    }
  }

  private closeWhenSent(connection: Connection): void {
    const socket = connection.http ?? connection.raw;
    if (socket.writableLength === 0) socket.destroy();
    else socket.end();
  }
}
