import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { ALLOW_ALL, type Admission } from '../guard/admission.js';
import type { Answer } from './java-service.js';

/**
 * The Java-compatible routes straight from node:http. The service answers a small object in
 * about 25 µs of CPU; carried by fastify's request and reply objects and hooks, the same answer
 * cost twice that (measured under load at 64 connections), most of it per-request bookkeeping
 * that these routes do not need. So a GET or HEAD without a body, to a path that no fastify
 * route could match, is answered here, with what the application's hooks do for it: the same
 * access checks (admission.ts), answer (timeout included), unsent-bytes accounting, metrics and
 * request log line, and the same response bytes. Everything else (our own API, the viewer, the
 * operators' routes, other methods, bodies) goes through fastify, whose catch-all gives the
 * same answers to the requests taken here (`app.inject` and the tests that use it go that way).
 */

export interface JavaLaneOptions {
  /**
   * First path segments of the routes fastify has (its routes win over the catch-all). A request
   * whose first segment is one of these, is empty (`/`), or is percent-encoded (the router
   * decodes it) goes to fastify.
   */
  readonly fastifySegments: ReadonlySet<string>;
  /** Host check, CORS, credentials (admission.ts). */
  admit(method: string, url: string, headers: IncomingHttpHeaders): Admission;
  /** The answer, as the catch-all route computes it (timeout included, failures logged); never rejects. */
  answer(request: IncomingMessage, response: ServerResponse): Promise<Answer>;
  /** Counts an answer's bytes until its client has taken them (unsent-answers.ts). */
  hold(bytes: number, response: ServerResponse): void;
  /** Whether the server is shutting down (answers then close their connection). */
  closing(): boolean;
  /**
   * Told when a response has been sent (metrics, request log line), with its route label and the
   * milliseconds since the request arrived; undefined when nobody listens.
   */
  readonly finished?: ((route: string, request: IncomingMessage, response: ServerResponse, ms: number, bytes: number, requestId: string | undefined) => void) | undefined;
  /** The request's id for the log (fastify's numbering, shared), taken when it arrives; undefined without a log. */
  readonly requestId?: (() => string) | undefined;
  /** The metrics label of a Java-compatible request (operations-routes.ts). */
  label(rawUrl: string): string;
}

/** What a response sent by the lane reports when it finishes. */
interface Sent {
  readonly lane: JavaLaneOptions;
  readonly request: IncomingMessage;
  readonly started: number;
  readonly bytes: number;
  readonly id: string | undefined;
}

/** Kept on the response itself, read by one shared listener: no closure per request. */
const SENT = Symbol('storage-inspector.javaLaneSent');
type LaneResponse = ServerResponse & { [SENT]?: Sent };

function responseFinished(this: LaneResponse): void {
  const sent = this[SENT];
  if (sent === undefined) return;
  sent.lane.finished?.(sent.lane.label(sent.request.url ?? '/'), sent.request, this, performance.now() - sent.started, sent.bytes, sent.id);
}

/**
 * Returns the server's request listener for the lane: true when it took the request (and will
 * answer it), false when fastify should.
 */
export function javaLane(lane: JavaLaneOptions): (request: IncomingMessage, response: ServerResponse) => boolean {
  return (request, response) => {
    const method = request.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const url = request.url ?? '';
    if (!takesPath(url, lane.fastifySegments)) return false;
    const headers = request.headers;
    if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    const started = performance.now();
    const id = lane.requestId?.();
    const admission = lane.admit(method, url, headers);
    const extra = admission === ALLOW_ALL ? undefined : admission.headers;
    if (admission.answer !== undefined) {
      const { status, contentType, body } = admission.answer;
      const bytes = Buffer.from(body);
      send(lane, request, response, started, id, status, extra, contentType, undefined, bytes);
      return true;
    }
    lane.answer(request, response).then((answer) => {
      send(lane, request, response, started, id, answer.status, extra, answer.contentType, answer.headers, answer.body);
    });
    return true;
  };
}

/** Whether no fastify route can match `url` (so the catch-all would answer it). */
function takesPath(url: string, fastifySegments: ReadonlySet<string>): boolean {
  if (url.charCodeAt(0) !== 0x2f /* / */) return false;
  let end = 1;
  for (; end < url.length; end++) {
    const c = url.charCodeAt(end);
    if (c === 0x2f || c === 0x3f /* ? */ || c === 0x23 /* # */ || c === 0x3b /* ; */) break;
    if (c === 0x25 /* % */) return false;
  }
  return end > 1 && !fastifySegments.has(url.slice(1, end));
}

/** The response as fastify's reply would write it: headers in the same order, one write. */
function send(
  lane: JavaLaneOptions,
  request: IncomingMessage,
  response: ServerResponse,
  started: number,
  id: string | undefined,
  status: number,
  extra: Readonly<Record<string, string | string[]>> | undefined,
  contentType: string | undefined,
  answerHeaders: Readonly<Record<string, string>> | undefined,
  body: Buffer,
): void {
  const headers: OutgoingHttpHeaders = extra === undefined ? {} : { ...extra };
  const bodyless = status < 200 || status === 204;
  if (contentType !== undefined && !bodyless) headers['content-type'] = contentType;
  if (answerHeaders !== undefined) Object.assign(headers, answerHeaders);
  if (lane.closing()) headers['connection'] = 'close';
  if (!bodyless) headers['content-length'] = String(body.length);
  lane.hold(body.length, response);
  if (lane.finished !== undefined) {
    (response as LaneResponse)[SENT] = { lane, request, started, bytes: body.length, id };
    response.on('finish', responseFinished);
  }
  response.writeHead(status, headers);
  response.end(bodyless ? undefined : body);
}
