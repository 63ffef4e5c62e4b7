import { Type, type Static } from 'typebox';
import { STORAGE_NAME_PATTERN } from '../registry/storage-names.js';

/**
 * The JSON Schemas of `/api/v1`: they validate requests, serialize answers (fastify) and are the
 * OpenAPI document (@fastify/swagger), so the documentation cannot drift from what is served.
 * Ids are decimal strings (64-bit ids do not fit a JSON number); counts and byte sizes are numbers.
 */

/** Where the API's routes begin. */
export { API_PREFIX } from './api-prefix.js';

export const ObjectId = Type.String({ pattern: '^[0-9]{1,19}$', description: 'object id, decimal', examples: ['1000000000000000028'] });
export const TypeId = Type.String({ pattern: '^[0-9]{1,19}$', description: 'type id, decimal', examples: ['1000064'] });
const Count = Type.Integer({ minimum: 0 });
const Bytes = Type.Integer({ minimum: 0, description: 'bytes' });

export const MAX_LIMIT = 10_000;
/** The most hits /api/v1/search skips: every page scans again from the start. */
export const SEARCH_MAX_OFFSET = 100_000;

const Summary = Type.String({ description: 'one line of Java-like text: a value, an enum constant, a collection size or the first members' });

export const Paging = {
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'first item of the page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: 100, description: 'items per page' })),
};

export const StorageParams = Type.Object({ storage: Type.String({ pattern: STORAGE_NAME_PATTERN, description: 'name of a served storage' }) });
export const ObjectParams = Type.Object({ oid: ObjectId });
export const TypeParams = Type.Object({ typeId: TypeId });

export const Problem = Type.Object(
  {
    type: Type.String({ description: 'a URI naming the kind of problem' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.Optional(Type.String()),
    instance: Type.Optional(Type.String()),
    progress: Type.Optional(Type.Unknown({ description: 'for 503 while the graph index is built: how far it is' })),
    position: Type.Optional(Type.Integer({ minimum: 0, description: 'for SQL statements: the 0-based character offset where DuckDB located the error' })),
  },
  { description: 'RFC 9457 problem details (application/problem+json)' },
);

export const Reference = Type.Object(
  {
    objectId: ObjectId,
    typeName: Type.Union([Type.String(), Type.Null()], { description: 'null when the id is not stored' }),
    text: Type.Optional(Type.String({ description: "Java text of a JDK value (String, Integer, BigDecimal, Date, ...), shortened" })),
    missing: Type.Optional(Type.Boolean({ description: 'the id is neither stored nor a JDK constant' })),
  },
  { description: 'a reference to another object' },
);

export const Via = Type.Object(
  {
    text: Type.String({ description: 'readable form, e.g. `author`, `elements[3]`, `elements[7].value`' }),
    member: Type.String(),
    declaringClass: Type.Optional(Type.String({ description: 'when the type has several members of this name' })),
    indices: Type.Optional(Type.Array(Count, { description: 'element index in the list member (of enclosing lists first)' })),
    element: Type.Optional(Type.String({ description: 'member of the list element, e.g. `key` or `value` of a map entry' })),
    key: Type.Optional(Reference),
    others: Type.Optional(
      Type.Array(Type.String(), { maxItems: 100, description: 'further places in the same object that hold the reference (readable form), after this first one; at most 100' }),
    ),
  },
  { description: 'through which member, element or map entry the reference is held' },
);

const GraphProgress = Type.Object({
  phase: Type.String(),
  percent: Type.Integer({ minimum: 0, maximum: 100 }),
  bytesDone: Bytes,
  bytesTotal: Bytes,
  filesDone: Count,
  filesTotal: Count,
  elapsedMs: Count,
});

export const StorageInfo = Type.Object({
  name: Type.String(),
  directory: Type.String({ description: "the storage directory's own name (answers never say where the server keeps files; they name files relative to the storage), or the database and table of a storage kept in PostgreSQL" }),
  generation: Count,
  channels: Count,
  entities: Count,
  rootObjectId: ObjectId,
  rootsObjectId: ObjectId,
  files: Count,
  bytes: Bytes,
  liveBytes: Bytes,
  lastCommitTime: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  lastCommitTimestamp: Type.Union([Type.String({ pattern: '^[0-9]+$', description: 'epoch nanoseconds' }), Type.Null()]),
  damage: Type.Optional(
    Type.Array(
      Type.Object({
        code: Type.String({ description: "as check names it (DATA_FILE_MISSING, LOG_INVALID, …)" }),
        severity: Type.Union([Type.Literal('refuses-start'), Type.Literal('data-lost'), Type.Literal('harmless')]),
        file: Type.Optional(Type.String()),
        offset: Type.Optional(Count),
        message: Type.String(),
      }),
      { description: 'present when MicroStream would refuse the storage and what can be read of it is served (serve without --strict): objects stored in the lost parts answer 404' },
    ),
  ),
  graph: Type.Object({
    state: Type.Union([Type.Literal('building'), Type.Literal('ready'), Type.Literal('failed')]),
    progress: Type.Optional(GraphProgress),
    buildMs: Type.Optional(Count),
    references: Type.Optional(Count),
    problems: Type.Optional(Type.Array(Type.Object({ file: Type.String(), offset: Count, message: Type.String() }))),
    problemCount: Type.Optional(Count),
    error: Type.Optional(Type.String()),
    dominators: Type.Optional(
      Type.Object(
        {
          state: Type.Union([Type.Literal('waiting'), Type.Literal('computing'), Type.Literal('ready'), Type.Literal('failed')]),
          phase: Type.Optional(Type.String({ description: 'while computing: numbering, semidominators, dominators, retained sizes' })),
          percent: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'while computing: of the phase' })),
          elapsedMs: Type.Optional(Count),
          computeMs: Type.Optional(Count),
          reachableObjects: Type.Optional(Count),
          reachableBytes: Type.Optional(Bytes),
          error: Type.Optional(Type.String()),
        },
        { description: 'the dominator tree (retained sizes): computed in the background once the graph index is ready, and again after every change taken over' },
      ),
    ),
  }),
});

export const TypeInfo = Type.Object({
  typeId: TypeId,
  typeName: Type.String(),
  current: Type.Boolean({ description: 'the current (latest) version of its name' }),
  version: Type.Integer({ minimum: 1 }),
  instances: Count,
  liveBytes: Bytes,
  reachable: Count,
  reachableBytes: Bytes,
  gigaMapMachinery: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        "instances that are a GigaMap's machinery, not the user's entities: all of the GigaMap module's own types (levels, indices, bitmaps), of Lazy$Default the GigaMaps' segment references; absent where none",
    }),
  ),
});

export const TypeList = Type.Object({ total: Count, types: Type.Array(TypeInfo) });

export const InstanceList = Type.Object({
  typeId: TypeId,
  typeName: Type.String(),
  total: Count,
  offset: Count,
  limit: Count,
  reachable: Type.Optional(Type.Boolean({ description: 'only reachable (true) or only unreachable, garbage (false) instances were asked for' })),
  objectIds: Type.Array(ObjectId),
  summaries: Type.Optional(Type.Array(Type.Union([Summary, Type.Null()]), { description: 'with `summaries=true`: the summary of each object, in the order of objectIds' })),
});

const Member = Type.Object({
  name: Type.String(),
  declaringClass: Type.Optional(Type.String()),
  type: Type.String({ description: 'a primitive, a class name, `[char]`, `[byte]` or `[list]`' }),
  value: Type.Optional(Type.Unknown({ description: 'natural JSON: numbers, booleans, texts, `long` as a decimal string, references as Reference objects, null' })),
  count: Type.Optional(Count),
  offset: Type.Optional(Count),
  elements: Type.Optional(Type.Array(Type.Unknown(), { description: 'the window of a list member: values, or objects of the element members (map entries: key, value)' })),
});

/** What an object retains (dominator-tree.ts): null for an unreachable object. */
export const RetainedFigures = Type.Object(
  {
    objects: Type.Integer({ minimum: 1, description: 'objects that would become garbage were this one unreachable (itself included)' }),
    bytes: Type.Integer({ minimum: 0, description: 'bytes of the latest records of those objects' }),
    share: Type.Number({ minimum: 0, maximum: 1, description: 'bytes as a share of the bytes of every reachable object' }),
  },
  { description: 'the retained set: this object and every object it dominates (every path from the roots object to them passes through it)' },
);

export const ObjectRef = Type.Object({ objectId: ObjectId, typeName: Type.String() });

export const ObjectView = Type.Object({
  objectId: ObjectId,
  typeId: TypeId,
  typeName: Type.String(),
  typeVersion: Type.Integer({ minimum: 0 }),
  typeVersions: Count,
  currentType: Type.Boolean(),
  text: Type.Optional(Type.String({ description: 'Java toString() of a JDK value type' })),
  constant: Type.Optional(Type.Boolean({ description: 'a JDK constant (never stored)' })),
  reachable: Type.Boolean(),
  referrers: Count,
  members: Type.Array(Member),
  retained: Type.Optional(Type.Union([RetainedFigures, Type.Null()], { description: 'once the dominator tree is computed (see /storage graph.dominators): what this object retains; null when unreachable' })),
  immediateDominator: Type.Optional(Type.Union([ObjectRef, Type.Null()], { description: 'once the dominator tree is computed: the closest object every path from the roots object to this one passes through; null for the roots object and unreachable objects' })),
  damage: Type.Optional(
    Type.Object(
      { code: Type.String(), file: Type.Optional(Type.String()), offset: Type.Optional(Count), message: Type.String() },
      { description: "present when the object's newest record lies in a chunk that fails EclipseStore 4.2's checksums: its values are the damaged bytes as they are" },
    ),
  ),
});

const Referrer = Type.Object({ objectId: ObjectId, typeName: Type.String(), via: Type.Union([Via, Type.Null()]), summary: Type.Optional(Summary) });

export const ReferrerList = Type.Object({ objectId: ObjectId, total: Count, offset: Count, limit: Count, referrers: Type.Array(Referrer) });

export const PathList = Type.Object({
  objectId: ObjectId,
  reachable: Type.Boolean(),
  length: Type.Integer({ minimum: 0, description: 'steps of every shortest path (0 for the roots entity or when unreachable)' }),
  truncated: Type.Boolean({
    description: 'more shortest paths exist than are listed: the limit, or the budget of 5,000 steps over all paths, stopped the listing (a path longer than the budget is not listed at all)',
  }),
  paths: Type.Array(Type.Array(
      Type.Object({
        objectId: ObjectId,
        typeName: Type.String(),
        via: Type.Union([Via, Type.Null()]),
        lazyObjectId: Type.Optional(Type.String({ pattern: '^[0-9]{1,19}$', description: 'the Lazy reference passed through to reach this step (left out as a step of its own)' })),
        summary: Type.Optional(Summary),
      }),
    ),
    {
    description: 'shortest paths from the roots entity (first step) to the object (last step); `via` says how the previous step refers to this one. A `Lazy` reference is no step of its own: the object it holds is reached through the member holding the Lazy (`lazyObjectId` names it)',
  }),
});

const Commit = Type.Object({
  kind: Type.Union([Type.Literal('store'), Type.Literal('transfer'), Type.Literal('creation')], {
    description: 'store: a commit; transfer: copied by housekeeping; creation: a file as a whole (derived log)',
  }),
  timestamp: Type.String({ pattern: '^-?[0-9]+$', description: 'epoch nanoseconds, as logged' }),
  time: Type.String({ format: 'date-time' }),
});

export const Version = Type.Object({
  n: Count,
  current: Type.Boolean(),
  channel: Count,
  file: Type.String(),
  fileNumber: Type.String({ pattern: '^[0-9]+$' }),
  offset: Count,
  length: Count,
  typeId: TypeId,
  typeName: Type.String(),
  commit: Type.Union([Commit, Type.Null()]),
});

export const VersionList = Type.Object({ objectId: ObjectId, total: Count, offset: Count, limit: Count, versions: Type.Array(Version) });

export const VersionDetail = Type.Object({
  objectId: ObjectId,
  version: Version,
  view: ObjectView,
  comparedWith: Type.Union([Count, Type.Null()], { description: 'the next newer version the changes lead to' }),
  changes: Type.Array(
    Type.Object({
      member: Type.String(),
      index: Type.Optional(Count),
      before: Type.Optional(Type.Unknown()),
      after: Type.Optional(Type.Unknown()),
    }),
    { description: 'what changed from this version to the next newer one (list members within the window)' },
  ),
});

const TypeBytes = Type.Object({ typeId: TypeId, typeName: Type.String(), count: Count, bytes: Bytes });
const Part = Type.Object({ count: Count, bytes: Bytes, byType: Type.Array(TypeBytes, { description: 'largest first' }) });

export const Analysis = Type.Object({
  reachable: Part,
  unreachable: Part,
  missingReferences: Type.Object({
    count: Type.Integer({ minimum: 0, description: 'distinct ids referenced but not stored' }),
    examples: Type.Array(Type.Object({ objectId: ObjectId, referrerCount: Count, referrers: Type.Array(Referrer) })),
  }),
  files: Type.Array(
    Type.Object({
      channel: Count,
      fileNumber: Type.String({ pattern: '^[0-9]+$' }),
      file: Type.String(),
      totalBytes: Bytes,
      liveBytes: Bytes,
      supersededBytes: Type.Integer({ minimum: 0, description: 'older versions of objects' }),
      unreachableBytes: Type.Integer({ minimum: 0, description: 'latest versions of unreachable objects' }),
      unreachableCount: Count,
    }),
  ),
});

export const SearchResult = Type.Object({
  query: Type.String(),
  typeIds: Type.Optional(Type.Array(TypeId)),
  typeName: Type.Optional(Type.String({ description: 'the full name of the type asked for' })),
  offset: Count,
  limit: Count,
  complete: Type.Boolean({ description: 'the whole storage was searched' }),
  stoppedBy: Type.Union([Type.Literal('limit'), Type.Literal('time'), Type.Null()]),
  scannedBytes: Bytes,
  totalBytes: Bytes,
  elapsedMs: Count,
  results: Type.Array(
    Type.Object({
      objectId: ObjectId,
      typeName: Type.String(),
      member: Type.String({ description: 'the member (element, map entry) of the object that holds the value' }),
      text: Type.String({ description: 'the matching value, shortened around the match' }),
      value: Type.Union([Type.String(), Type.Number(), Type.Boolean()], {
        description: 'the matching value typed: numbers as numbers (`long`, Long, BigInteger, BigDecimal as decimal strings), booleans, dates as ISO-8601, texts in full up to 1,000 characters',
      }),
      valueObjectId: Type.Optional(ObjectId),
      valueTypeName: Type.Optional(Type.String({ description: 'the type of the value object (a String, Integer, Date...) when the match is inside one: objectId is then its owner' })),
      summary: Type.Optional(Summary),
    }),
  ),
});

export type ObjectViewJson = Static<typeof ObjectView>;
export type ViaJson = Static<typeof Via>;
export type ReferenceJson = Static<typeof Reference>;
