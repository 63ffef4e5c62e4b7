import { isAppError, NotFoundError } from '../../errors.js';
import { javaUtf8 } from '../../inspect/gson-json.js';
import { rootJson } from '../../inspect/root.js';
import { filesStatisticsJson } from '../../inspect/statistics.js';
import { documentationFor, routeListingJson } from './documentation.js';
import { RequestWarnings } from './integrity.js';
import { checkFormat, objectRequest, ParameterError } from './java-params.js';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  RequestBudget,
  RequestLimitError,
} from '../guard/limits.js';
import { objectDescriptionBytes } from '../../inspect/description-bytes.js';
import { NEEDS_ADMISSION, type NeedsAdmission } from '../guard/big-answers.js';
import { parseServletQuery, QueryDecodeError, type QueryParameters } from './servlet-query.js';
import { adapterObject, checkRoot } from './rest-adapter.js';
import {
  headerText,
  HTML,
  limitAnswer,
  notFoundPage,
  serverErrorPage,
  WARNING_HEADER,
  type Answer,
  type JavaServiceOptions,
  type RawRequest,
  type RequestContext,
  type ServiceState,
} from './java-answers.js';
import { acceptAllowsRoutes, matchRoute, type RouteMatch } from './spark-routing.js';

/** What the services take and give (java-answers.ts), for those who import it from the service. */
export * from './java-answers.js';

/**
 * The Java 4.1 Storage REST service as a function from a raw request to status, content type and
 * body bytes. Everything Java-specific about routing, parameters and errors lives here; the HTTP
 * server around it only moves bytes.
 */

const JSON_TYPE = 'application/json';
const EMPTY = Buffer.alloc(0);

/** With a context that admits big answers: NEEDS_ADMISSION when one must wait (big-answers.ts). */
export function answerRequest(state: ServiceState, options: JavaServiceOptions, request: RawRequest, context: RequestContext): Promise<Answer | NeedsAdmission>;
export function answerRequest(state: ServiceState, options: JavaServiceOptions, request: RawRequest): Promise<Answer>;
export async function answerRequest(state: ServiceState, options: JavaServiceOptions, request: RawRequest, context: RequestContext = {}): Promise<Answer | NeedsAdmission> {
  const warnings = new RequestWarnings();
  const answer = await answerJava(state, options, request, warnings, context);
  if (answer === NEEDS_ADMISSION) return answer;
  const warning = warnings.header();
  return warning === undefined ? answer : { ...answer, headers: { ...answer.headers, [WARNING_HEADER]: headerText(warning) } };
}

async function answerJava(
  state: ServiceState,
  options: JavaServiceOptions,
  request: RawRequest,
  warnings: RequestWarnings,
  context: RequestContext,
): Promise<Answer | NeedsAdmission> {
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
): Promise<Answer | NeedsAdmission> {
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
): Promise<Answer | NeedsAdmission> {
  const description = await adapterObject(state, options, objectRequest(query, oidText), budget, warnings);
  if (description === NEEDS_ADMISSION) return description;
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
