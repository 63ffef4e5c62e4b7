
/**
 * The Java-compatible routes as OpenAPI 3.1 path items. They are served by one catch-all (Spark's
 * routing is not fastify's), so fastify cannot describe them: this is their description, with the
 * Java service's quirks — numbers as JSON strings, errors as `404` text/html with fixed texts,
 * `format` checked only after the answer is built, OPTIONS answering documentation. The test of
 * the OpenAPI document replays requests against these descriptions.
 */

/** Parts of an OpenAPI document, as plain JSON (checked by validating the whole document in tests). */
type Json = Record<string, unknown>;
type Operation = Json;
type Responses = Record<string, Json>;

export const JAVA_TAG = 'Java-compatible';

const HTML = 'text/html;charset=utf-8';
const JAVA_404_PAGE = '<html><body><h2>404 Not found</h2></body></html>';
const JAVA_500_PAGE = '<html><body><h2>500 Internal Server Error</h2></body></html>';

/** A decimal text of a Java `long`, as Gson writes numbers (a JSON string). */
const LONG_TEXT: Json = { type: 'string', pattern: '^-?[0-9]+$', description: 'a Java long as decimal text' };

function textAnswer(description: string, examples: readonly string[]): Json {
  return {
    description,
    content: {
      [HTML]: {
        schema: { type: 'string', enum: [...examples] },
      },
    },
  };
}

const SERVER_ERROR: Json = {
  description:
    "Java's error page, as the Java service answers it when it cannot rebuild a value (NaN Float/Double objects, unknown constant ids, `references=true` on a constant) or decode the query (a malformed `%` escape); also for damaged records. The `X-Storage-Inspector-Error` header says why: `<CODE>: <message>` naming file and offset (see docs/errors.md).",
  headers: {
    'X-Storage-Inspector-Error': { description: '`<CODE>: <message>`, one line of printable ASCII, at most 500 characters', schema: { type: 'string' } },
  },
  content: { [HTML]: { schema: { type: 'string', const: JAVA_500_PAGE } } },
};

const NOT_FOUND_PAGE: Json = {
  description: 'No route matches (Spark): the path, the method, or an `Accept` header that refuses `*/*`.',
  content: { [HTML]: { schema: { type: 'string', const: JAVA_404_PAGE } } },
};

/** Answers that only exist with options of ours (not Java's): access control and limits. */
const OWN_LIMITS: Responses = {
  '401': { description: 'Only with `--auth-token-file`/`--basic-auth-file`: credentials missing or wrong (`WWW-Authenticate` says which)' },
  '413': { description: 'Only above `--max-response-bytes`: the answer would be larger (plain text, `X-Storage-Inspector-Error: RESPONSE_TOO_LARGE: ...`)' },
  '503': { description: 'Only after `--request-timeout`: the request ran too long (plain text, `X-Storage-Inspector-Error: REQUEST_TIMEOUT: ...`)' },
};

const FORMAT_PARAMETER: Json = {
  name: 'format',
  in: 'query',
  required: false,
  description:
    'Output format: only `json` and `application/json` exist (exact, case-sensitive). Checked after the answer was built: an unknown object still answers `No entity found ...`, anything else answers `invalid url parameter format`.',
  schema: { type: 'string', enum: ['json', 'application/json'] },
};

function longQuery(name: string, description: string): Json {
  return {
    name,
    in: 'query',
    required: false,
    description: `${description} Parsed like Java's \`Long.parseLong\` (a leading \`+\` only as \`%2B\`); unparsable: \`invalid url parameter ${name}\`; negative: \`invalid parameter ${name}\`; values above 2147483647 count as 2147483647.`,
    schema: LONG_TEXT,
  };
}

const OBJECT_DESCRIPTION: Json = {
  type: 'object',
  description:
    'One object (the adapter\'s ViewerObjectDescription): fixed-size members first (primitives as Java\'s `toString`, references as ids, "0" for null), then one array per variable-length member (list elements, map entries as [key, value], characters). JDK value types are `simplified` with one string, Java\'s `toString()`.',
  required: ['objectId', 'typeId', 'length', 'variableLength', 'simplified', 'data', 'references'],
  properties: {
    objectId: LONG_TEXT,
    typeId: LONG_TEXT,
    length: { ...LONG_TEXT, description: 'number of fixed-size members' },
    variableLength: { type: ['array', 'null'], items: LONG_TEXT, description: 'element count of each variable-length member; null when there is none' },
    simplified: { type: 'boolean' },
    data: { type: 'array', items: {}, description: 'strings, and arrays of strings (nested as the members are)' },
    references: {
      type: ['array', 'null'],
      items: { anyOf: [{ $ref: '#/components/schemas/JavaObjectDescription' }, { type: 'null' }] },
      description: 'with `references=true`: the referenced objects of the window, one level deep (null for null references); otherwise null',
    },
  },
};

const JAVA_SCHEMAS: Record<string, Json> = {
  JavaObjectDescription: OBJECT_DESCRIPTION,
  JavaRootDescription: {
    type: 'object',
    required: ['name', 'objectId'],
    properties: { name: { type: 'string', const: 'ROOT' }, objectId: { ...LONG_TEXT, description: 'the root object id; "0" when the storage has no root' } },
  },
  JavaRouteList: {
    type: 'array',
    description: "One entry per path, in the iteration order of Java's Hashtable; `URL` starts with the request's `Host` header.",
    items: {
      type: 'object',
      required: ['URL', 'HttpMethod'],
      properties: { URL: { type: 'string' }, HttpMethod: { type: 'array', items: { type: 'string', enum: ['options', 'get'] } } },
    },
  },
  JavaFilesStatistics: {
    type: 'object',
    description: 'Committed bytes (`totalDataLength`) and bytes of the latest version of every object (`liveDataLength`) per file, channel and storage.',
    required: ['creationTime', 'channelStatistics', 'fileCount', 'liveDataLength', 'totalDataLength'],
    properties: {
      creationTime: { type: 'string', description: 'when the statistics were taken (ISO 8601, UTC)' },
      channelStatistics: {
        type: 'object',
        additionalProperties: {
          type: 'object',
          properties: {
            channelIndex: { type: 'integer' },
            files: {
              type: 'array',
              items: {
                type: 'object',
                properties: { fileNumber: LONG_TEXT, file: { type: 'string' }, fileCount: LONG_TEXT, liveDataLength: LONG_TEXT, totalDataLength: LONG_TEXT },
              },
            },
            fileCount: LONG_TEXT,
            liveDataLength: LONG_TEXT,
            totalDataLength: LONG_TEXT,
          },
        },
      },
      fileCount: LONG_TEXT,
      liveDataLength: LONG_TEXT,
      totalDataLength: LONG_TEXT,
    },
  },
};

function json(description: string, schema: string): Json {
  return { description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } };
}

/** `OPTIONS` on a route's literal path answers the Java adapter's documentation of it. */
function optionsOperation(path: string, pathParameters: Json[] = []): Operation {
  return {
    tags: [JAVA_TAG],
    summary: `Documentation of ${path} (Java's OPTIONS route)`,
    description:
      "The Java adapter's own documentation texts, verbatim. Only on the route's literal path (the object route's is `/{instance}/object/:oid`, with the colon); `method=get` or `method=options` narrows it, another value answers `No documentation found`. With `--cors`, a CORS preflight is answered 204 instead.",
    parameters: [...pathParameters, { name: 'method', in: 'query', required: false, schema: { type: 'string', enum: ['get', 'options'] } }],
    responses: {
      '200': { description: 'the documentation', content: { 'application/json': { schema: { type: 'object' } } } },
      '404': { description: 'another `method`', content: { 'application/json': { schema: { type: 'string', const: 'No documentation found' } } } },
      '500': SERVER_ERROR,
    },
  };
}

const DIALECT_SERVICES = {
  javalin: "EclipseStore's Javalin service (`--dialect javalin`): Jackson's JSON (numeric ids where Jackson writes numbers), `text/plain` dictionary, Javalin's 404 texts, a trailing slash ignored, no OPTIONS documentation",
  micronaut: "the Micronaut controller (`--dialect micronaut`): `application/json` throughout, Micronaut's JSON error bodies (400 for unconvertible parameters, 405 for other methods), no route list, no OPTIONS documentation",
} as const;

/** The routes of the other dialects: the same adapter behind other frameworks' routing and errors (see docs/rest-api.md, Dialects). */
function dialectRoutesOpenApi(instance: string, dialect: keyof typeof DIALECT_SERVICES): { paths: Json; schemas: Record<string, Json> } {
  const service = DIALECT_SERVICES[dialect];
  const operation = (summary: string, parameters: Json[] = []): Json => ({
    get: {
      tags: [JAVA_TAG],
      summary,
      description: `Answered as ${service}.`,
      parameters,
      responses: { '200': { description: 'the answer of that service' }, '404': { description: "that service's not-found answer" }, '500': SERVER_ERROR, ...OWN_LIMITS },
    },
  });
  const oid = { name: 'oid', in: 'path', required: true, description: 'object id', schema: LONG_TEXT };
  const paths: Json = {
    [`/${instance}/root`]: operation('Root object', [FORMAT_PARAMETER]),
    [`/${instance}/dictionary`]: operation('Type dictionary'),
    [`/${instance}/object/{oid}`]: operation('One object', [
      oid,
      ...['fixedOffset', 'fixedLength', 'variableOffset', 'variableLength', 'valueLength'].map((name) => ({ name, in: 'query', required: false, schema: LONG_TEXT })),
      { name: 'references', in: 'query', required: false, schema: { type: 'string' } },
      FORMAT_PARAMETER,
    ]),
    [`/${instance}/maintenance/filesStatistics`]: operation('File statistics', [FORMAT_PARAMETER]),
  };
  if (dialect === 'javalin') paths[`/${instance}/`] = operation('Route list');
  return { paths, schemas: {} };
}

/** Path items of the Java-compatible routes of `instance` in a dialect, and the schemas they refer to. */
export function javaRoutesOpenApi(instance: string, dialect: 'spark' | keyof typeof DIALECT_SERVICES = 'spark'): { paths: Json; schemas: Record<string, Json> } {
  if (dialect !== 'spark') return dialectRoutesOpenApi(instance, dialect);
  const common = (extra: Responses): Responses => ({ ...extra, '500': SERVER_ERROR, ...OWN_LIMITS });
  const get = (summary: string, description: string, parameters: Json[], responses: Responses): Operation => ({
    tags: [JAVA_TAG],
    summary,
    description: `${description} Answers are those of the Java Storage REST service byte for byte (status, content type, body). \`HEAD\` answers 200 or 404 with an empty body; \`X-HTTP-Method-Override\` is honoured like Spark does.`,
    parameters,
    responses: common(responses),
  });
  const objectPath = `/${instance}/object/{oid}`;
  const paths: Json = {
    '/': {
      get: get('Route list', 'The routes of the Java service.', [], { '200': json('the route list', 'JavaRouteList'), '404': NOT_FOUND_PAGE }),
      options: optionsOperation('/'),
    },
    [`/${instance}/root`]: {
      get: get('Root object', 'The stored root (Java reports the running application\'s root, which can be newer).', [FORMAT_PARAMETER], {
        '200': json('the root', 'JavaRootDescription'),
        '404': textAnswer('`format` other than json', ['invalid url parameter format']),
      }),
      options: optionsOperation(`/${instance}/root`),
    },
    [`/${instance}/dictionary`]: {
      get: get('Type dictionary', 'The type dictionary file as stored (content type `application/text`, as Java sends it); ignores `format`.', [], {
        '200': { description: 'the dictionary text', content: { 'application/text': { schema: { type: 'string' } } } },
        '404': NOT_FOUND_PAGE,
      }),
      options: optionsOperation(`/${instance}/dictionary`),
    },
    [objectPath]: {
      get: get(
        'One object',
        'An object by id, paged like the Java adapter: windows over the fixed-size members and over every variable-length member, texts cut to `valueLength` UTF-16 units, optionally the referenced objects one level deep. Constant ids (JDK constants such as `Boolean.TRUE`) are described too.',
        [
          {
            name: 'oid',
            in: 'path',
            required: true,
            description: 'Object id, parsed like `Long.parseLong` after `;params` are cut off and the segment is percent-decoded; unparsable: `invalid url parameter ObjectId`.',
            schema: LONG_TEXT,
          },
          longQuery('fixedOffset', 'Index of the first fixed-size member.'),
          longQuery('fixedLength', 'Number of fixed-size members.'),
          longQuery('variableOffset', 'Index of the first element of every variable-length member.'),
          longQuery('variableLength', 'Number of elements of every variable-length member.'),
          longQuery('valueLength', 'Texts are cut to this many UTF-16 units.'),
          {
            name: 'references',
            in: 'query',
            required: false,
            description: '`true`/`false` in any letter case; anything else: `invalid url parameter references`.',
            schema: { type: 'string', pattern: '^[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]$' },
          },
          FORMAT_PARAMETER,
        ],
        {
          '200': json('the object', 'JavaObjectDescription'),
          '404': textAnswer('Java\'s parameter and lookup errors, plain text in text/html (a `X-Storage-Inspector-Warning` header may say that damage can hide the object)', [
            'invalid url parameter ObjectId',
            'invalid url parameter fixedOffset',
            'invalid parameter fixedOffset',
            'invalid url parameter references',
            'invalid url parameter format',
            'No entity found for objectId 1000000000000099999',
          ]),
        },
      ),
      options: optionsOperation(`/${instance}/object/:oid`, [
        { name: 'oid', in: 'path', required: true, description: 'the literal text `:oid` (documentation is only found on the route\'s own path)', schema: { type: 'string', const: ':oid' } },
      ]),
    },
    [`/${instance}/maintenance/filesStatistics`]: {
      get: get('File statistics', 'Live and total bytes of every data file, channel and the storage (file paths below the storage directory as given).', [FORMAT_PARAMETER], {
        '200': json('the statistics', 'JavaFilesStatistics'),
        '404': textAnswer('`format` other than json', ['invalid url parameter format']),
      }),
      options: optionsOperation(`/${instance}/maintenance/filesStatistics`),
    },
  };
  return { paths, schemas: JAVA_SCHEMAS };
}
