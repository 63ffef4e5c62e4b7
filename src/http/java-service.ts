import { isAppError, NotFoundError } from '../errors.js';
import { UTC, type JavaTimeZone } from '../format/java-time-zones.js';
import { parseJavaLong } from '../format/type-dictionary.js';
import { describeObject, objectDescriptionJson, type EntitySource } from '../inspect/describe-object.js';
import { javaUtf8 } from '../inspect/gson-json.js';
import { rootJson } from '../inspect/root.js';
import { filesStatisticsJson, type StatisticsSource } from '../inspect/statistics.js';
import { documentationFor, routeListingJson } from './documentation.js';
import { booleanParameter, checkFormat, clampToInt, longParameter, ParameterError } from './java-params.js';
import { parseServletQuery, QueryDecodeError, type QueryParameters } from './servlet-query.js';
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
  /** For the log: why a 500 was answered. */
  readonly error?: unknown;
}

/** What the service reads from: one consistent state of the storage. */
export interface ServiceState extends EntitySource, StatisticsSource {
  readonly dictionaryBytes: Buffer;
  readonly rootObjectId: bigint;
  /** Runs one request against one consistent state (a following storage applies updates between requests). */
  consistent?<T>(fn: () => Promise<T>): Promise<T>;
}

export interface JavaServiceOptions {
  readonly instance: string;
  readonly timeZone?: JavaTimeZone;
}

const HTML = 'text/html;charset=utf-8';
const JSON_TYPE = 'application/json';
const NOT_FOUND_PAGE = Buffer.from('<html><body><h2>404 Not found</h2></body></html>');
const SERVER_ERROR_PAGE = Buffer.from('<html><body><h2>500 Internal Server Error</h2></body></html>');
const EMPTY = Buffer.alloc(0);
const LONG_MAX = 9223372036854775807n;

export function notFoundPage(): Answer {
  return { status: 404, contentType: HTML, body: NOT_FOUND_PAGE };
}

export function serverErrorPage(error: unknown): Answer {
  return { status: 500, contentType: HTML, body: SERVER_ERROR_PAGE, error };
}

export async function answerRequest(state: ServiceState, options: JavaServiceOptions, request: RawRequest): Promise<Answer> {
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
  try {
    if (method === 'OPTIONS') {
      const doc = documentationFor(options.instance, rawPath, query().get('method'));
      if (doc === undefined) return { status: 404, contentType: JSON_TYPE, body: Buffer.from('No documentation found') };
      return { status: 200, contentType: JSON_TYPE, body: Buffer.from(doc) };
    }
    return await answerGet(state, options, route, query, request);
  } catch (error) {
    if (error instanceof ParameterError || error instanceof NotFoundError) {
      return { status: 404, contentType: HTML, body: javaUtf8(error.message) };
    }
    if (error instanceof QueryDecodeError || isAppError(error) || error instanceof Error) return serverErrorPage(error);
    return serverErrorPage(new Error(String(error)));
  }
}

async function answerGet(
  state: ServiceState,
  options: JavaServiceOptions,
  route: RouteMatch,
  query: () => QueryParameters,
  request: RawRequest,
): Promise<Answer> {
  switch (route.name) {
    case 'routes':
      return json(routeListingJson(options.instance, header(request, 'host')));
    case 'dictionary':
      return { status: 200, contentType: 'application/text', body: state.dictionaryBytes };
    case 'root': {
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
      return answerObject(state, options, route.oid ?? '', query());
  }
}

async function answerObject(state: ServiceState, options: JavaServiceOptions, oidText: string, query: QueryParameters): Promise<Answer> {
  const fixedOffset = longParameter(query, 'fixedOffset', 0n);
  const fixedLength = longParameter(query, 'fixedLength', LONG_MAX);
  const variableOffset = longParameter(query, 'variableOffset', 0n);
  const variableLength = longParameter(query, 'variableLength', LONG_MAX);
  const valueLength = longParameter(query, 'valueLength', LONG_MAX);
  const references = booleanParameter(query, 'references', false);
  const objectId = parseJavaLong(oidText);
  if (objectId === undefined) throw new ParameterError('invalid url parameter ObjectId');
  const paging = { fixedOffset, fixedLength, variableOffset, variableLength, valueLength };
  for (const [name, value] of Object.entries(paging)) {
    if (value < 0n) throw new ParameterError(`invalid parameter ${name}`);
  }
  const description = await describeObject(state, objectId, {
    fixedOffset: clampToInt(fixedOffset),
    fixedLength: clampToInt(fixedLength),
    variableOffset: clampToInt(variableOffset),
    variableLength: clampToInt(variableLength),
    valueLength: clampToInt(valueLength),
    references,
    timeZone: options.timeZone ?? UTC,
  });
  const body = objectDescriptionJson(description);
  checkFormat(query);
  return json(body);
}

function json(body: string): Answer {
  return { status: 200, contentType: JSON_TYPE, body: javaUtf8(body) };
}

function header(request: RawRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
