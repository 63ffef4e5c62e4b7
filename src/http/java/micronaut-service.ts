import { NotFoundError } from '../../errors.js';
import { parseJavaLong } from '../../format/type-dictionary.js';
import { javaUtf8 } from '../../inspect/gson-json.js';
import { jacksonString } from '../../inspect/jackson-json.js';
import { micronautFilesStatisticsJson } from '../../inspect/statistics.js';
import { RequestWarnings } from './integrity.js';
import { ParameterError } from './java-params.js';
import { ERROR_HEADER, errorHeaderValue, limitAnswer, type Answer, type JavaServiceOptions, type RawRequest, type RequestContext, type ServiceState } from './java-service.js';
import { NEEDS_ADMISSION, type NeedsAdmission } from '../guard/big-answers.js';
import { objectDescriptionBytes } from '../../inspect/description-bytes.js';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS, RequestBudget, RequestLimitError } from '../guard/limits.js';
import { matchTemplate } from './path-templates.js';
import { adapterObject, checkRoot, LONG_MAX } from './rest-adapter.js';
import { parseServletQuery, QueryDecodeError, type QueryParameters } from './servlet-query.js';

/**
 * The REST controller of the Micronaut integrations (`MicroStreamRestController` of
 * micronaut-microstream, path `microstream`; `EclipseStoreRestController` of
 * micronaut-eclipsestore, path `eclipsestore`), as their sources define it: the adapter's answers
 * serialized by Micronaut (Jackson escaping, numbers in statistics as numbers, `creationTime`
 * without milliseconds), `/root` with the object id as a string, the dictionary as the raw text
 * (`application/json`, Micronaut's default), no route list and no documentation. Named storages
 * (`/{path}/{name}/...`) are added by the storage registry around this single-storage service.
 *
 * Errors are Micronaut's: a parameter that does not convert is 400, the adapter's exceptions
 * (unknown object, negative paging values) and an unparsable object id are unhandled and 500,
 * unknown paths 404, other methods on a route 405; their JSON bodies follow Micronaut 4's default
 * error document (not recorded from a running Micronaut).
 */

const JSON_TYPE = 'application/json';
const EMPTY = Buffer.alloc(0);

type MicronautRoute = 'root' | 'dictionary' | 'object' | 'statistics';

function templates(path: string): readonly (readonly [MicronautRoute, string])[] {
  const base = `/${path}`;
  return [
    ['root', `${base}/root`],
    ['dictionary', `${base}/dictionary`],
    ['object', `${base}/object/{oid}`],
    ['statistics', `${base}/maintenance/filesStatistics`],
  ];
}

/** A failed conversion of a query value (Micronaut answers 400). */
class ConversionError extends Error {
  constructor(
    readonly argument: string,
    readonly value: string,
  ) {
    super(`Failed to convert argument [${argument}] for value [${value}] due to: For input string: "${value}"`);
  }
}

/** With a context that admits big answers: NEEDS_ADMISSION when one must wait (big-answers.ts). */
export function answerMicronaut(state: ServiceState, options: JavaServiceOptions, request: RawRequest, context: RequestContext): Promise<Answer | NeedsAdmission>;
export function answerMicronaut(state: ServiceState, options: JavaServiceOptions, request: RawRequest): Promise<Answer>;
export async function answerMicronaut(state: ServiceState, options: JavaServiceOptions, request: RawRequest, context: RequestContext = {}): Promise<Answer | NeedsAdmission> {
  const warnings = new RequestWarnings();
  const queryStart = request.url.indexOf('?');
  const rawPath = queryStart < 0 ? request.url : request.url.slice(0, queryStart);
  const rawQuery = queryStart < 0 ? '' : request.url.slice(queryStart + 1);
  const method = request.method.toUpperCase();
  let matched: { route: MicronautRoute; oid: string } | undefined;
  for (const [route, template] of templates(options.instance)) {
    const params = matchTemplate(template, rawPath, false);
    if (params !== undefined) {
      matched = { route, oid: params['oid'] ?? '' };
      break;
    }
  }
  if (matched === undefined) return micronautError(404, 'Not Found', 'Page Not Found', request.url);
  if (method === 'HEAD') return { status: 200, contentType: JSON_TYPE, body: EMPTY };
  if (method !== 'GET') {
    const answer = micronautError(405, 'Method Not Allowed', `Method [${method}] not allowed for URI [${rawPath}]. Allowed methods: [HEAD, GET]`, request.url);
    return { ...answer, headers: { allow: 'HEAD,GET' } };
  }
  const budget = new RequestBudget(options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, context.admission);
  try {
    const answer = await handle(state, options, matched.route, matched.oid, rawQuery, budget, warnings);
    if (answer === NEEDS_ADMISSION) return answer;
    const warning = warnings.header();
    return warning === undefined ? answer : { ...answer, headers: { ...answer.headers, 'x-storage-inspector-warning': warning } };
  } catch (error) {
    if (error instanceof ConversionError) return micronautError(400, 'Bad Request', error.message, request.url, `/${error.argument}`);
    if (error instanceof RequestLimitError) return limitAnswer(error);
    const detail = error instanceof ParameterError || error instanceof NotFoundError || error instanceof Error ? error.message : String(error);
    const answer = micronautError(500, 'Internal Server Error', `Internal Server Error: ${detail}`, request.url);
    return { ...answer, headers: { [ERROR_HEADER]: errorHeaderValue(error) }, error };
  } finally {
    budget.finish();
  }
}

async function handle(
  state: ServiceState,
  options: JavaServiceOptions,
  route: MicronautRoute,
  oid: string,
  rawQuery: string,
  budget: RequestBudget,
  warnings: RequestWarnings,
): Promise<Answer | NeedsAdmission> {
  switch (route) {
    case 'root':
      await checkRoot(state, warnings);
      return { status: 200, contentType: JSON_TYPE, body: Buffer.from(`{"name":"ROOT","objectId":"${state.rootObjectId}"}`) };
    case 'dictionary':
      return { status: 200, contentType: JSON_TYPE, body: state.dictionaryBytes };
    case 'statistics':
      return { status: 200, contentType: JSON_TYPE, body: javaUtf8(micronautFilesStatisticsJson(state)) };
    case 'object': {
      let query: QueryParameters;
      try {
        query = parseServletQuery(rawQuery);
      } catch (error) {
        if (error instanceof QueryDecodeError) query = new Map();
        else throw error;
      }
      // Arguments convert in the controller method's order; the object id is parsed afterwards.
      const valueLength = longValue(query, 'valueLength');
      const fixedOffset = longValue(query, 'fixedOffset');
      const fixedLength = longValue(query, 'fixedLength');
      const variableOffset = longValue(query, 'variableOffset');
      const variableLength = longValue(query, 'variableLength');
      const references = booleanValue(query, 'references');
      const objectId = parseJavaLong(oid);
      if (objectId === undefined) throw new NumberFormatError(`For input string: "${oid}"`);
      const description = await adapterObject(
        state,
        options,
        {
          objectId,
          fixedOffset: fixedOffset ?? 0n,
          fixedLength: fixedLength ?? LONG_MAX,
          variableOffset: variableOffset ?? 0n,
          variableLength: variableLength ?? LONG_MAX,
          valueLength: valueLength ?? LONG_MAX,
          references: references ?? false,
        },
        budget,
        warnings,
      );
      if (description === NEEDS_ADMISSION) return description;
      return { status: 200, contentType: JSON_TYPE, body: objectDescriptionBytes(description, budget, jacksonString) };
    }
  }
}

/** `Long.parseLong` failing on the object id: unhandled, so 500. */
class NumberFormatError extends Error {}

/** A nullable `Long` query value; an empty one counts as absent. */
function longValue(query: QueryParameters, name: string): bigint | undefined {
  const text = query.get(name);
  if (text === undefined || text === '') return undefined;
  const value = parseJavaLong(text);
  if (value === undefined) throw new ConversionError(name, text);
  return value;
}

/** A nullable `Boolean` query value with Micronaut's conversion: `true`, `yes`, `y`, `on` (any case) are true. */
function booleanValue(query: QueryParameters, name: string): boolean | undefined {
  const text = query.get(name);
  if (text === undefined || text === '') return undefined;
  return ['true', 'yes', 'y', 'on'].includes(text.toLowerCase());
}

/** Micronaut's default JSON error document. */
function micronautError(status: number, message: string, detail: string, href: string, path?: string): Answer {
  const error = `{"message":${jacksonString(detail)}${path === undefined ? '' : `,"path":${jacksonString(path)}`}}`;
  const body = `{"message":${jacksonString(message)},"_links":{"self":[{"href":${jacksonString(href)},"templated":false}]},"_embedded":{"errors":[${error}]}}`;
  return { status, contentType: JSON_TYPE, body: javaUtf8(body) };
}
