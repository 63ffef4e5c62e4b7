import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { admit, type AdmissionOptions } from '../guard/admission.js';
import { HEALTH_PATH, READY_PATH } from '../guard/operation-paths.js';

/**
 * The port's stand-in while the storages open. Opening indexes every record header, which takes
 * half a minute for a cold 100M-entity storage; a liveness probe that finds nothing listening for
 * that long restarts the process before it ever serves. So `serve` listens first: `/health`
 * answers 200 and `/ready` 503 saying what is being opened (both as the application answers them
 * later), anything else 503 with `Retry-After`, after the same host check, CORS and credentials.
 * Once the storages are open, `handOver` stops listening and the application listens on the
 * same port (every answer here closes its connection, so no client stays on the stand-in).
 */

export interface OpeningServerOptions extends AdmissionOptions {
  readonly host: string;
  /** 0 picks a free port; the application then listens on the one picked. */
  readonly port: number;
  /** What is being opened, for `/ready` (e.g. `opening /data/storage`). */
  readonly status: () => string;
  /** Whether the storages will be followed (as `/ready` reports later). */
  readonly following: boolean;
}

const RETRY_AFTER_SECONDS = '5';

export class OpeningServer {
  private constructor(
    private readonly server: Server,
    /** The port listened on (the one picked when asked for 0). */
    readonly port: number,
  ) {}

  static async listen(options: OpeningServerOptions): Promise<OpeningServer> {
    const handler = (request: IncomingMessage, response: ServerResponse): void => answer(options, request, response);
    const server = options.tls === undefined ? createHttpServer(handler) : createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, handler);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: options.host, port: options.port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new OpeningServer(server, (server.address() as AddressInfo).port);
  }

  /**
   * Lets the process end although the stand-in still listens (once the storages are open, for
   * whatever fails before `handOver`).
   */
  unref(): void {
    this.server.unref();
  }

  /** Stops listening and ends every connection, so that the application can listen on the port. */
  async handOver(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }
}

function answer(options: OpeningServerOptions, request: IncomingMessage, response: ServerResponse): void {
  const method = request.method ?? 'GET';
  const url = request.url ?? '/';
  const admission = admit(options, method, url, request.headers);
  response.shouldKeepAlive = false;
  for (const [name, value] of Object.entries(admission.headers)) response.setHeader(name, value);
  response.setHeader('cache-control', 'no-store');
  if (admission.answer !== undefined) {
    const { status, contentType, body } = admission.answer;
    if (contentType !== undefined) response.setHeader('content-type', contentType);
    response.writeHead(status).end(body);
    return;
  }
  const path = url.split('?', 1)[0];
  const head = method === 'HEAD';
  if ((method === 'GET' || head) && path === HEALTH_PATH) {
    send(response, 200, { status: 'ok' }, head);
    return;
  }
  if ((method === 'GET' || head) && path === READY_PATH) {
    const facts = { entities: 0, generation: 0, following: options.following, followLagSeconds: 0, problems: [] };
    send(response, 503, { status: 'not ready', reason: options.status(), ...facts }, head);
    return;
  }
  response.setHeader('retry-after', RETRY_AFTER_SECONDS);
  response.setHeader('content-type', 'text/plain;charset=utf-8');
  response.writeHead(503).end(head ? undefined : `Service Unavailable: ${options.status()}; try again shortly.\n`);
}

function send(response: ServerResponse, status: number, body: object, head: boolean): void {
  const text = JSON.stringify(body);
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.setHeader('content-length', Buffer.byteLength(text));
  response.writeHead(status).end(head ? undefined : text);
}
