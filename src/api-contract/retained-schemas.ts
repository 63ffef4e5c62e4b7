import { Type, type Static } from 'typebox';
import { ObjectId, ObjectRef, RetainedFigures } from './schemas.js';

/**
 * The answers of what keeps the bytes alive (http/api-v1/analysis/retained-routes.ts): the dominator tree,
 * the biggest retainers, one object's retained set. Pages of at most 1,000, chains of at most
 * 1,000 steps, at most 50 types per breakdown.
 */

export const RETAINED_MAX_PAGE = 1000;
export const RETAINED_MAX_TYPES = 50;

const Count = Type.Integer({ minimum: 0 });

export const RetainerEntry = Type.Object({
  objectId: ObjectId,
  typeName: Type.String(),
  ownBytes: Type.Integer({ minimum: 0, description: "bytes of the object's own latest record" }),
  retainedObjects: Count,
  retainedBytes: Type.Integer({ minimum: 0 }),
  share: Type.Number({ minimum: 0, maximum: 1, description: 'retained bytes as a share of every reachable object' }),
  summary: Type.Optional(Type.String()),
  byType: Type.Optional(Type.Array(Type.Object({ typeName: Type.String(), objects: Count, bytes: Count }), { description: 'with `types`: the retained set by type, largest first' })),
});

export const DominatorsQuery = Type.Object({
  parent: Type.Optional(ObjectId),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'first child of the page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: RETAINED_MAX_PAGE, default: 100, description: 'children per page' })),
  summaries: Type.Optional(Type.Boolean({ default: false, description: 'add a one-line summary of each object' })),
});

export const DominatorsAnswer = Type.Object({
  parent: RetainerEntry,
  total: Type.Integer({ minimum: 0, description: 'objects the parent immediately dominates' }),
  offset: Count,
  limit: Count,
  reachableObjects: Count,
  reachableBytes: Count,
  children: Type.Array(RetainerEntry, { description: 'by retained bytes, largest first' }),
});

export const RetainersQuery = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: RETAINED_MAX_PAGE - 1, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: RETAINED_MAX_PAGE, default: 20, description: 'retainers per page (offset + limit at most 1000)' })),
  types: Type.Optional(Type.Integer({ minimum: 0, maximum: RETAINED_MAX_TYPES, default: 0, description: 'types to list per retainer (its retained set by type)' })),
  summaries: Type.Optional(Type.Boolean({ default: false, description: 'add a one-line summary of each object' })),
});

export const RetainersAnswer = Type.Object({
  offset: Count,
  limit: Count,
  reachableObjects: Count,
  reachableBytes: Count,
  retainers: Type.Array(RetainerEntry, { description: 'every reachable object but the roots object, by retained bytes, largest first' }),
});

export const RetainedQuery = Type.Object({
  chain: Type.Optional(Type.Integer({ minimum: 0, maximum: RETAINED_MAX_PAGE, default: 100, description: 'dominators to list, from the immediate one up' })),
  types: Type.Optional(Type.Integer({ minimum: 0, maximum: RETAINED_MAX_TYPES, default: 20, description: 'types to list of the retained set' })),
});

export const RetainedAnswer = Type.Object({
  objectId: ObjectId,
  typeName: Type.String(),
  reachable: Type.Boolean(),
  ownBytes: Count,
  retained: Type.Union([RetainedFigures, Type.Null()]),
  immediateDominator: Type.Union([ObjectRef, Type.Null()]),
  chainLength: Type.Integer({ minimum: 0, description: 'dominators between this object and the roots object, the roots object included' }),
  chain: Type.Array(RetainerEntry, { description: 'what keeps this alive: its dominators from the immediate one up to the roots object (the first `chain`)' }),
  byType: Type.Array(Type.Object({ typeName: Type.String(), objects: Count, bytes: Count }), { description: 'what deleting this would free: the retained set by type, largest first' }),
});

export type RetainersJson = Static<typeof RetainersAnswer>;
