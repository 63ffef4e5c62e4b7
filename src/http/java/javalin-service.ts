import { NotFoundError } from '../../errors.js';
import { identityHash } from '../../inspect/simplified-value.js';
import { javaUtf8 } from '../../inspect/gson-json.js';
import { jacksonString } from '../../inspect/jackson-json.js';
import { filesStatisticsJson } from '../../inspect/statistics.js';
import { RequestWarnings } from './integrity.js';
import { objectRequest, ParameterError } from './java-params.js';
import { ERROR_HEADER, errorHeaderValue, limitAnswer, type Answer, type JavaServiceOptions, type RawRequest, type RequestContext, type ServiceState } from './java-service.js';
import { NEEDS_ADMISSION, type NeedsAdmission } from '../guard/big-answers.js';
import { objectDescriptionBytes } from '../../inspect/description-bytes.js';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS, RequestBudget, RequestLimitError } from '../guard/limits.js';
import { matchTemplate } from './path-templates.js';
import { adapterObject, checkRoot } from './rest-adapter.js';
import { parseServletQuery, type QueryParameters } from './servlet-query.js';

/**
 * EclipseStore's current REST service (`storage/rest/service-javalin`, Javalin 7 with Jackson),
 * as its source defines it: the same adapter behind other routes and answers. Routes under
 * `/{instance}/` only (a trailing slash is ignored), the route list at `/{instance}/` as
 * `[{"url","httpMethod"}]`, `/root` through Jackson (numeric `objectId`; `format=text` gives the
 * object's `toString()`), the dictionary as `text/plain`, objects and statistics from the same Gson
 * converter as SparkJava's. Parameter errors and the adapter's own are 404 with the message as
 * `text/plain`; no OPTIONS documentation; other paths get Javalin's "Endpoint ... not found".
 * (Javalin also allows every origin by CORS; CORS here stays what `--cors` allows.)
 */

const JSON_TYPE = 'application/json';
const PLAIN = 'text/plain';
const EMPTY = Buffer.alloc(0);

type JavalinRoute = 'routes' | 'root' | 'dictionary' | 'object' | 'statistics';

function templates(instance: string): readonly (readonly [JavalinRoute, string])[] {
  const base = `/${instance}`;
  return [
    ['routes', `${base}/`],
    ['root', `${base}/root`],
    ['dictionary', `${base}/dictionary`],
    ['object', `${base}/object/{oid}`],
    ['statistics', `${base}/maintenance/filesStatistics`],
  ];
}

/** `GET /{instance}/`: the list `AllRoutesHandler` builds, as Jackson writes it. */
export function javalinRouteListJson(instance: string): string {
  return `[${templates(instance)
    .map(([, path]) => `{"url":${jacksonString(path)},"httpMethod":"get"}`)
    .join(',')}]`;
}

/** With a context that admits big answers: NEEDS_ADMISSION when one must wait (big-answers.ts). */
export function answerJavalin(state: ServiceState, options: JavaServiceOptions, request: RawRequest, context: RequestContext): Promise<Answer | NeedsAdmission>;
export function answerJavalin(state: ServiceState, options: JavaServiceOptions, request: RawRequest): Promise<Answer>;
export async function answerJavalin(state: ServiceState, options: JavaServiceOptions, request: RawRequest, context: RequestContext = {}): Promise<Answer | NeedsAdmission> {
  const warnings = new RequestWarnings();
  const queryStart = request.url.indexOf('?');
  const rawPath = queryStart < 0 ? request.url : request.url.slice(0, queryStart);
  const rawQuery = queryStart < 0 ? '' : request.url.slice(queryStart + 1);
  const method = request.method.toUpperCase();
  let matched: { route: JavalinRoute; oid: string } | undefined;
  for (const [route, template] of templates(options.instance)) {
    const params = matchTemplate(template, rawPath, true);
    if (params !== undefined) {
      matched = { route, oid: params['oid'] ?? '' };
      break;
    }
  }
  if (method === 'HEAD' && matched !== undefined) return { status: 200, contentType: PLAIN, body: EMPTY };
  if (method !== 'GET' || matched === undefined) return javalinError(404, `Endpoint ${method} ${rawPath} not found`, request);

  const query = javalinQuery(rawQuery);
  const budget = new RequestBudget(options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, context.admission);
  try {
    const answer = await handle(state, options, matched.route, matched.oid, query, budget, warnings);
    if (answer === NEEDS_ADMISSION) return answer;
    const warning = warnings.header();
    return warning === undefined ? answer : { ...answer, headers: { ...answer.headers, 'x-storage-inspector-warning': warning } };
  } catch (error) {
    if (error instanceof ParameterError || error instanceof NotFoundError) {
      return { status: 404, contentType: PLAIN, body: javaUtf8(error.message) };
    }
    if (error instanceof RequestLimitError) return limitAnswer(error);
    const answer = javalinError(500, 'Internal Server Error', request);
    return { ...answer, headers: { ...answer.headers, [ERROR_HEADER]: errorHeaderValue(error) }, error };
  } finally {
    budget.finish();
  }
}

async function handle(
  state: ServiceState,
  options: JavaServiceOptions,
  route: JavalinRoute,
  oid: string,
  query: QueryParameters,
  budget: RequestBudget,
  warnings: RequestWarnings,
): Promise<Answer | NeedsAdmission> {
  switch (route) {
    case 'routes':
      return { status: 200, contentType: JSON_TYPE, body: javaUtf8(javalinRouteListJson(options.instance)) };
    case 'dictionary':
      return { status: 200, contentType: PLAIN, body: state.dictionaryBytes };
    case 'root': {
      await checkRoot(state, warnings);
      const format = query.get('format');
      if (format === undefined || format === '' || format.toLowerCase() === 'json') {
        return { status: 200, contentType: JSON_TYPE, body: Buffer.from(`{"name":"ROOT","objectId":${state.rootObjectId}}`) };
      }
      if (format.toLowerCase() === 'text' || format.toLowerCase() === 'plain') {
        const type = `${state.family.name === 'eclipsestore' ? 'org.eclipse.store' : 'one.microstream'}.storage.restadapter.types.ViewerRootDescription`;
        return { status: 200, contentType: PLAIN, body: Buffer.from(`${type}@${identityHash(state.rootObjectId)}`) };
      }
      return { status: 400, contentType: PLAIN, body: javaUtf8(`Unsupported format: ${format}`) };
    }
    case 'statistics':
      return { status: 200, contentType: JSON_TYPE, body: convertedBody(javaUtf8(filesStatisticsJson(state)), query) };
    case 'object': {
      const description = await adapterObject(state, options, objectRequest(query, oid), budget, warnings);
      if (description === NEEDS_ADMISSION) return description;
      return { status: 200, contentType: JSON_TYPE, body: convertedBody(objectDescriptionBytes(description, budget), query) };
    }
  }
}

/** `toRequestedFormat`: the only converter is the JSON one, registered as `application/json` and `json`. */
function convertedBody(body: Buffer, query: QueryParameters): Buffer {
  const format = query.get('format');
  if (format !== undefined && format !== 'json' && format !== 'application/json') throw new ParameterError('invalid url parameter format');
  return body;
}

/** Javalin's query parameters: a pair whose escapes do not decode is dropped (its values read as absent). */
function javalinQuery(rawQuery: string): QueryParameters {
  const parameters = new Map<string, string>();
  for (const part of rawQuery.split('&')) {
    let parsed: QueryParameters;
    try {
      parsed = parseServletQuery(part);
    } catch {
      continue;
    }
    for (const [name, value] of parsed) if (!parameters.has(name)) parameters.set(name, value);
  }
  return parameters;
}

/**
 * Javalin's answer to an `HttpResponseException` (`HttpResponseExceptionMapper`): negotiated by the
 * `Accept` header, HTML first, then JSON (a small problem document), else plain text.
 */
function javalinError(status: number, message: string, request: RawRequest): Answer {
  const acceptHeader = request.headers['accept'];
  const accept = (Array.isArray(acceptHeader) ? acceptHeader[0] : acceptHeader) ?? '';
  if (accept.includes('text/html')) return { status, contentType: 'text/html', body: javaUtf8(message) };
  if (accept.includes('application/json')) {
    const type = `https://javalin.io/documentation#${status === 404 ? 'notfoundresponse' : 'internalservererrorresponse'}`;
    const body = `{\n    "title": ${jacksonString(message)},\n    "status": ${status},\n    "type": "${type}",\n    "details": {}\n}`;
    return { status, contentType: JSON_TYPE, body: javaUtf8(body) };
  }
  return { status, contentType: PLAIN, body: javaUtf8(message) };
}
