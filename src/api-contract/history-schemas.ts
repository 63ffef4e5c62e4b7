import { Type } from 'typebox';
import { ObjectId, Paging, TypeId } from './schemas.js';

/** Schemas of the history routes (`/commits`, `/commits/{timestamp}`, `/diff`). */

const Timestamp = Type.String({ pattern: '^[0-9]{1,19}$', description: 'the commit\'s log timestamp: epoch nanoseconds (milliseconds × 1,000,000 plus a counter)' });

export const CommitQuery = Type.Object(Paging);
export const CommitParams = Type.Object({ timestamp: Timestamp });
export const CommitDetailQuery = Type.Object({
  offset: Paging.offset,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 20, description: 'objects per page (each with its member changes)' })),
});

const ChannelBytes = Type.Object({
  channel: Type.Integer(),
  fileNumber: Type.String({ description: 'the data file the commit appended to' }),
  from: Type.Integer({ description: 'its first byte in that file' }),
  bytes: Type.Integer(),
});

const TypeCount = Type.Object({ typeId: TypeId, typeName: Type.String(), objects: Type.Integer() });

export const CommitJson = Type.Object({
  number: Type.Integer({ description: 'position in the storage\'s history, from 1 (as check --commits lists them)' }),
  timestamp: Timestamp,
  time: Type.String({ format: 'date-time' }),
  bytes: Type.Integer({ description: 'bytes written, all channels' }),
  channels: Type.Array(ChannelBytes),
  objects: Type.Integer({ description: 'objects stored (where still on disk)' }),
  newObjects: Type.Integer({ description: 'objects no earlier commit had stored' }),
  updatedObjects: Type.Integer(),
  types: Type.Array(TypeCount, { description: 'the types touched, most objects first (at most 20 here; every one in the commit\'s own answer)' }),
  complete: Type.Boolean({ description: 'its records are all still on disk (housekeeping deleted none of its bytes)' }),
});

export const CommitList = Type.Object({
  total: Type.Integer(),
  offset: Type.Integer(),
  limit: Type.Integer(),
  commits: Type.Array(CommitJson, { description: 'newest first' }),
});

const Change = Type.Unknown({ description: 'a member change: { member, before, after } or, for collections, { member, countBefore, countAfter, added, removed, moved, changedValues, unlisted }' });

export const CommitObject = Type.Object({
  objectId: ObjectId,
  typeName: Type.String(),
  change: Type.Union([Type.Literal('new'), Type.Literal('updated')]),
  comparedWith: Type.Union([Type.Null(), Type.Object({ timestamp: Type.Union([Type.String(), Type.Null()]), fileNumber: Type.String(), offset: Type.Integer() })], {
    description: 'the version before, when still on disk (and the graph index is ready); null otherwise',
  }),
  members: Type.Union([Type.Null(), Type.Array(Change)], { description: 'what changed against the version before; null when there is none to compare with' }),
});

export const CommitDetail = Type.Object({
  commit: CommitJson,
  offset: Type.Integer(),
  limit: Type.Integer(),
  objects: Type.Array(CommitObject),
});

export const DiffQuery = Type.Object({
  from: Type.Optional(Type.String({ maxLength: 40, description: 'the earlier point of the served storage: a commit number, a commit timestamp or a date-time' })),
  to: Type.Optional(Type.String({ maxLength: 40, description: 'the later point (default: now)' })),
  a: Type.Optional(Type.String({ maxLength: 64, description: 'the storage before, by name (with b: two served storages)' })),
  b: Type.Optional(Type.String({ maxLength: 64, description: 'the storage after, by name' })),
  type: Type.Optional(Type.String({ maxLength: 512, description: 'only objects of this type (exact class name)' })),
  offset: Paging.offset,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'differing objects per page' })),
});

const TypeCounts = Type.Object({ typeName: Type.String(), added: Type.Integer(), removed: Type.Integer(), changed: Type.Integer(), unchanged: Type.Integer() });
const Side = Type.Object({ storage: Type.String(), commit: Type.Union([Type.Null(), Type.Object({ number: Type.Integer(), timestamp: Timestamp, time: Type.String({ format: 'date-time' }) })]) });

export const DiffAnswer = Type.Object({
  a: Side,
  b: Side,
  equal: Type.Boolean(),
  summary: Type.Object({ added: Type.Integer(), removed: Type.Integer(), changed: Type.Integer(), unchanged: Type.Integer(), types: Type.Array(TypeCounts) }),
  typeChanges: Type.Array(Type.Unknown({ description: '{ typeName, typeIdBefore, typeIdAfter, membersAdded, membersRemoved, membersRetyped }' })),
  offset: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer({ description: 'differing objects' }),
  objects: Type.Array(Type.Unknown({ description: '{ change: added | removed | changed, objectId, typeName, members? }' })),
});
