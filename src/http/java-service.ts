import { isAppError, NotFoundError } from '../errors.js';
import type { Dialect } from './dialects.js';
import { JavaValueError } from '../format/java-value-error.js';
import type { JavaTimeZone } from '../format/java-time-zones.js';
import type { StorageFamily } from '../format/storage-family.js';
import type { EntitySource } from '../inspect/describe-object.js';
import { javaUtf8 } from '../inspect/gson-json.js';
import { rootJson } from '../inspect/root.js';
import { filesStatisticsJson, type StatisticsSource } from '../inspect/statistics.js';
import { documentationFor, routeListingJson } from './documentation.js';
import { RequestWarnings } from './integrity.js';
import { checkFormat, objectRequest, ParameterError } from './java-params.js';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  objectDescriptionBytes,
  RequestBudget,
  RequestLimitError,
} from './limits.js';
import { BigAnswerPending, type BigAnswerAdmission } from './big-answers.js';
import { parseServletQuery, QueryDecodeError, type QueryParameters } from './servlet-query.js';
import { adapterObject, checkRoot } from './rest-adapter.js';
import { acceptAllowsRoutes, matchRoute, type RouteMatch } from './spark-routing.js';

/**
 * The Java 4.1 Storage REST service as a function from a raw request to status, content type and
 * body bytes. Everything Java-specific about routing, parameters and errors lives here; the HTTP
 * server around it only moves bytes.
 */

export interface RawRequest {
  readonly method: string;
  /** Request target as sent: raw path plus optional query. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
  /** Extra response headers (`X-Storage-Inspector-Error` on failures). */
  readonly headers?: Readonly<Record<string, string>>;
  /** For the log: why a 500 was answered. */
  readonly error?: unknown;
}

/** What the service reads from: one consistent state of the storage. */
export interface ServiceState extends EntitySource, StatisticsSource {
  readonly dictionaryBytes: Buffer;
  /** MicroStream or EclipseStore: whose roots type and texts apply. */
  readonly family: StorageFamily;
  readonly rootObjectId: bigint;
  /** Changes whenever the visible state changes (a following storage); cached checks depend on it. */
  readonly generation?: number;
  /** Runs one request against one consistent state (a following storage applies updates between requests). */
  consistent?<T>(fn: () => Promise<T>): Promise<T>;
}

export interface JavaServiceOptions {
  readonly instance: string;
  /** Which Java service to answer like (dialects.ts); `spark` when absent. */
  readonly dialect?: Dialect;
  readonly timeZone?: JavaTimeZone;
  /** Object answers above this many bytes are refused with 413 (default 256 MiB). */
  readonly maxResponseBytes?: number;
  /** Requests still running after this many milliseconds are answered 503 (default 30 s; 0 = none). */
  readonly requestTimeoutMs?: number;
  /** The body of SparkJava's route list (`GET /`) instead of this instance's (several storages, named-routes.ts). */
  readonly routeListing?: (host: string | undefined) => string;
}

/** Per request, from the HTTP layer. */
export interface RequestContext {
  /** Admission of a big answer (big-answers.ts); without it a big answer waits for a slot inline. */
  readonly admission?: BigAnswerAdmission;
}

/** Header naming why an answer failed: `<code>: <message>` (see docs/errors.md). */
export const ERROR_HEADER = 'x-storage-inspector-error';
/** Header saying that a damaged part of the storage may contradict an answer (see integrity.ts). */
export const WARNING_HEADER = 'x-storage-inspector-warning';
const MAX_ERROR_HEADER_LENGTH = 500;

const HTML = 'text/html;charset=utf-8';
const JSON_TYPE = 'application/json';
const NOT_FOUND_PAGE = Buffer.from('<html><body><h2>404 Not found</h2></body></html>');
const SERVER_ERROR_PAGE = Buffer.from('<html><body><h2>500 Internal Server Error</h2></body></html>');
const EMPTY = Buffer.alloc(0);

export function notFoundPage(): Answer {
  return { status: 404, contentType: HTML, body: NOT_FOUND_PAGE };
}

/** Java's 500 page; the cause goes into the X-Storage-Inspector-Error header and the log. */
export function serverErrorPage(error: unknown): Answer {
  return { status: 500, contentType: HTML, body: SERVER_ERROR_PAGE, headers: { [ERROR_HEADER]: errorHeaderValue(error) }, error };
}

/** A failure of our own (a limit), not one of Java's answers: plain text saying what to do. */
export function limitAnswer(error: RequestLimitError): Answer {
  return {
    status: error.status,
    contentType: 'text/plain;charset=utf-8',
    body: Buffer.from(`${error.message}\n`),
    headers: { [ERROR_HEADER]: errorHeaderValue(error) },
    error,
  };
}

/** Stable code of an error: the AppError code, or a name for the few others. */
export function errorCode(error: unknown): string {
  if (isAppError(error)) return error.code;
  if (error instanceof JavaValueError) return error.code;
  if (error instanceof RequestLimitError) return error.code;
  if (error instanceof QueryDecodeError) return 'QUERY_DECODE';
  const errno = (error as { code?: unknown } | null)?.code;
  if (typeof errno === 'string' && /^E[A-Z]+$/.test(errno)) return 'STORAGE_IO';
  return 'INTERNAL';
}

/** `<code>: <message>` as one line of printable ASCII of at most 500 characters. */
export function errorHeaderValue(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return headerText(`${errorCode(error)}: ${message}`);
}

/** One line of printable ASCII of at most 500 characters. */
function headerText(text: string): string {
  const clean = text.replace(/[\r\n\t]+/g, ' ').replace(/[^\x20-\x7e]/g, '?');
  return clean.length <= MAX_ERROR_HEADER_LENGTH ? clean : `${clean.slice(0, MAX_ERROR_HEADER_LENGTH - 3)}...`;
}

export async function answerRequest(state: ServiceState, options: JavaServiceOptions, request: RawRequest, context: RequestContext = {}): Promise<Answer> {
  const warnings = new RequestWarnings();
  const answer = await answerJava(state, options, request, warnings, context);
  const warning = warnings.header();
  return warning === undefined ? answer : { ...answer, headers: { ...answer.headers, [WARNING_HEADER]: headerText(warning) } };
}

async function answerJava(
  state: ServiceState,
  options: JavaServiceOptions,
  request: RawRequest,
  warnings: RequestWarnings,
  context: RequestContext,
): Promise<Answer> {
  const override = header(request, 'x-http-method-override');
  const method = (override ?? request.method).toUpperCase();
  const queryStart = request.url.indexOf('?');
  const rawPath = queryStart < 0 ? request.url : request.url.slice(0, queryStart);
  const rawQuery = queryStart < 0 ? '' : request.url.slice(queryStart + 1);
  const route = acceptAllowsRoutes(header(request, 'accept')) ? matchRoute(options.instance, rawPath) : undefined;

  if (method === 'HEAD') {
    // Spark answers HEAD from the GET route's existence alone; no route code runs.
    return { status: route === undefined ? 404 : 200, contentType: HTML, body: EMPTY };
  }
  if (route === undefined || (method !== 'GET' && method !== 'OPTIONS')) return notFoundPage();

  // Jetty parses the query on the first parameter lookup; routes that read none are unaffected.
  const query = (): QueryParameters => parseServletQuery(rawQuery);
  const budget = new RequestBudget(
    options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    context.admission,
  );
  try {
    if (method === 'OPTIONS') {
      const doc = documentationFor(state.family.name, options.instance, rawPath, query().get('method'));
      if (doc === undefined) return { status: 404, contentType: JSON_TYPE, body: Buffer.from('No documentation found') };
      return { status: 200, contentType: JSON_TYPE, body: Buffer.from(doc) };
    }
    return await answerGet(state, options, route, query, request, budget, warnings);
  } catch (error) {
    if (error instanceof BigAnswerPending) throw error; // the HTTP layer admits it and asks again
    if (error instanceof ParameterError || error instanceof NotFoundError) {
      return { status: 404, contentType: HTML, body: javaUtf8(error.message) };
    }
    if (error instanceof RequestLimitError) return limitAnswer(error);
    if (error instanceof QueryDecodeError || isAppError(error) || error instanceof Error) return serverErrorPage(error);
    return serverErrorPage(new Error(String(error)));
  } finally {
    budget.finish();
  }
}

async function answerGet(
  state: ServiceState,
  options: JavaServiceOptions,
  route: RouteMatch,
  query: () => QueryParameters,
  request: RawRequest,
  budget: RequestBudget,
  warnings: RequestWarnings,
): Promise<Answer> {
  switch (route.name) {
    case 'routes':
      return json((options.routeListing ?? ((host) => routeListingJson(options.instance, host)))(header(request, 'host')));
    case 'dictionary':
      return { status: 200, contentType: 'application/text', body: state.dictionaryBytes };
    case 'root': {
      await checkRoot(state, warnings);
      const body = rootJson(state.rootObjectId);
      checkFormat(query());
      return json(body);
    }
    case 'statistics': {
      const body = filesStatisticsJson(state);
      checkFormat(query());
      return json(body);
    }
    case 'object':
      return answerObject(state, options, route.oid ?? '', query(), budget, warnings);
  }
}

async function answerObject(
  state: ServiceState,
  options: JavaServiceOptions,
  oidText: string,
  query: QueryParameters,
  budget: RequestBudget,
  warnings: RequestWarnings,
): Promise<Answer> {
  const description = await adapterObject(state, options, objectRequest(query, oidText), budget, warnings);
  const body = objectDescriptionBytes(description, budget);
  checkFormat(query);
  return { status: 200, contentType: JSON_TYPE, body };
}

function json(body: string): Answer {
  return { status: 200, contentType: JSON_TYPE, body: javaUtf8(body) };
}

function header(request: RawRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
