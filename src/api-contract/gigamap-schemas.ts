import { Type, type Static } from 'typebox';
import { ObjectId, ObjectView, Paging } from './schemas.js';

/** The schemas of the GigaMap routes (gigamap-routes.ts) and of the GigaMap part of an object view. */

const Count = Type.Integer({ minimum: 0 });
const Long = Type.String({ pattern: '^-?[0-9]{1,19}$', description: 'a Java long, decimal' });
const EntityIdNumber = Type.Integer({ minimum: 0, description: "entity id: the entity's position in the GigaMap (not an object id)" });

export const GigaMapParams = Type.Object({ oid: ObjectId });
export const GigaMapEntityParams = Type.Object({ oid: ObjectId, entityId: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'entity id' }) });
export const GigaMapIndexParams = Type.Object({ oid: ObjectId, index: Type.String({ minLength: 1, maxLength: 1000, description: 'index name' }) });

export const GigaMapPaging = Type.Object(Paging);
export const GigaMapKeysQuery = Type.Object({
  ...Paging,
  order: Type.Optional(Type.Union([Type.Literal('key'), Type.Literal('count')], { default: 'key', description: 'key: natural order of the keys; count: most entities first' })),
});
export const GigaMapKeyQuery = Type.Object({
  ...Paging,
  key: Type.String({ maxLength: 100_000, description: 'the key as listed by .../keys (Java text of the value)' }),
});

export const GigaMapEntity = Type.Object({
  entityId: EntityIdNumber,
  objectId: ObjectId,
  typeName: Type.Union([Type.String(), Type.Null()], { description: 'null when the object is not stored' }),
  summary: Type.String({ description: 'one line: the simple type name and its members, shortened' }),
});

const IndexKind = Type.Union([Type.Literal('hashing'), Type.Literal('binary'), Type.Literal('boolean'), Type.Literal('composite')], {
  description: 'hashing: a bitmap per value; binary: bit-sliced (a bitmap per bit of a long); boolean: the entities whose value is true; composite: one hashing part per key part',
});

export const GigaMapIndexSummary = Type.Object({
  name: Type.String(),
  objectId: ObjectId,
  kind: IndexKind,
  unique: Type.Boolean({ description: 'a unique constraint' }),
});

export const GigaMapIndexInfo = Type.Object({
  name: Type.String(),
  objectId: ObjectId,
  kind: IndexKind,
  unique: Type.Boolean({ description: 'a unique constraint' }),
  keys: Count,
  entities: Type.Integer({ minimum: 0, description: 'entities indexed under some key' }),
  bitmapBytes: Type.Integer({ minimum: 0, description: 'bytes of the bitmap records' }),
  strayEntityIds: Type.Array(EntityIdNumber, { description: 'entity ids a bitmap names whose slot is empty (a damaged index; at most 1000)' }),
  parts: Type.Array(Type.Object({ name: Type.String(), objectId: ObjectId, keys: Count }), { description: 'composite: its key parts in order' }),
  problem: Type.Optional(Type.String({ description: 'the index cannot be read: why (keys, entities and bytes are then 0: nothing was read from it)' })),
});

const GigaMapHead = {
  objectId: ObjectId,
  size: Long,
  listed: Type.Integer({ minimum: 0, description: 'entities in the slots; differs from size in a damaged GigaMap' }),
  damaged: Type.Boolean(),
  problems: Type.Array(Type.String()),
};

export const GigaMapInfo = Type.Object({
  ...GigaMapHead,
  currentId: Long,
  level1Exponent: Count,
  level2Exponent: Count,
  level1Segments: Count,
  level2Segments: Count,
  segmentBytes: Type.Integer({ minimum: 0, description: 'bytes of the level and Lazy records' }),
  indices: Type.Array(GigaMapIndexInfo),
});

export const GigaMapEntityPage = Type.Object({
  ...GigaMapHead,
  offset: Count,
  limit: Count,
  entities: Type.Array(GigaMapEntity),
});

export const GigaMapKeyPage = Type.Object({
  objectId: ObjectId,
  index: GigaMapIndexSummary,
  order: Type.Union([Type.Literal('key'), Type.Literal('count')]),
  total: Count,
  offset: Count,
  limit: Count,
  keys: Type.Array(Type.Object({ key: Type.String({ description: 'Java text of the key value; composite: [part, part, ...]' }), count: Count })),
});

export const GigaMapKeyEntities = Type.Object({
  objectId: ObjectId,
  index: GigaMapIndexSummary,
  key: Type.String(),
  total: Count,
  offset: Count,
  limit: Count,
  entities: Type.Array(GigaMapEntity),
});

/** An object view; a GigaMap's has its entities (the page asked for) and its indices. */
export const ObjectViewWithGigaMap = Type.Object({
  ...ObjectView.properties,
  gigamap: Type.Optional(
    Type.Object(
      {
        ...GigaMapHead,
        size: Type.Union([Long, Type.Null()], { description: 'null when the GigaMap cannot be read (problems say why; the raw members still show)' }),
        offset: Count,
        limit: Count,
        entities: Type.Array(GigaMapEntity),
        indices: Type.Array(GigaMapIndexSummary),
      },
      { description: 'an EclipseStore GigaMap as a collection: its entities in entity-id order (paged by offset/limit); the raw records stay in members' },
    ),
  ),
});

export type GigaMapEntityJson = Static<typeof GigaMapEntity>;
export type GigaMapIndexInfoJson = Static<typeof GigaMapIndexInfo>;
export type ObjectViewWithGigaMapJson = Static<typeof ObjectViewWithGigaMap>;
