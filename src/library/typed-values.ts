import type { JsonValue, ObjectView } from '../inspect/object-view.js';

/**
 * The object view (the /api/v1 JSON, where 64-bit numbers are decimal strings) as values a
 * TypeScript program can use directly: object ids, type ids and `long` members as bigint,
 * references as `Reference`s (their id, type name and, for JDK values such as a String, its
 * text), everything else as it is.
 */

/** An object another one refers to. */
export interface Reference {
  readonly id: bigint;
  /** Null when the id is neither stored nor a JDK constant (a missing object). */
  readonly typeName: string | null;
  /** The Java text of a JDK value (String, BigDecimal, Date…): `"Dune"`, `"9.50"`. */
  readonly text?: string;
}

export type Value = null | boolean | number | bigint | string | Reference | readonly Value[] | { readonly [key: string]: Value };

/** One member of a stored object. */
export interface Member {
  readonly name: string;
  /** Where several members of the type share the name: the class declaring this one. */
  readonly declaringClass?: string;
  /** The dictionary's type of the member: `int`, `long`, `java.lang.String`, `[list]`, `[char]`... */
  readonly type: string;
  /**
   * The value: a primitive as number, boolean or (`long`) bigint, a `[char]` as string, a
   * reference as Reference (or null), a `[list]` or `[byte]` member as an array of its elements
   * (inside them 64-bit numbers stay decimal strings): the window of `elementLimit` elements
   * from `elementOffset` asked for.
   */
  readonly value: Value;
  /** For `[list]` and `[byte]` members: how many elements there are in all. */
  readonly count?: number;
}

/** An object as stored (its latest version). */
export interface StoredObject {
  readonly id: bigint;
  readonly typeId: bigint;
  readonly typeName: string;
  /** Java `toString()` of a JDK value type (String, Integer, BigDecimal, Date…). */
  readonly text?: string;
  readonly members: readonly Member[];
  /** The members by name (the first of a name several classes of the type declare). */
  readonly values: { readonly [name: string]: Value };
}

function isReference(value: JsonValue): value is { readonly objectId: string; readonly typeName: string | null; readonly text?: string } {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && typeof (value as { objectId?: unknown }).objectId === 'string';
}

function typed(value: JsonValue): Value {
  if (value === null || typeof value !== 'object') return value;
  if (isReference(value)) return { id: BigInt(value.objectId), typeName: value.typeName ?? null, ...(typeof value.text === 'string' ? { text: value.text } : {}) };
  if (Array.isArray(value)) return value.map(typed);
  const out = Object.create(null) as Record<string, Value>;
  for (const [key, inner] of Object.entries(value)) out[key] = typed(inner);
  return out;
}

export function storedObject(view: ObjectView): StoredObject {
  const members = view.members.map((m): Member => {
    const raw = m.elements ?? m.value ?? null;
    const value = m.type === 'long' && typeof raw === 'string' ? BigInt(raw) : typed(raw);
    return { name: m.name, ...(m.declaringClass === undefined ? {} : { declaringClass: m.declaringClass }), type: m.type, value, ...(m.count === undefined ? {} : { count: m.count }) };
  });
  // No prototype: a Java member may be named __proto__ or constructor.
  const values = Object.create(null) as Record<string, Value>;
  for (const m of members) if (!(m.name in values)) values[m.name] = m.value;
  return {
    id: BigInt(view.objectId),
    typeId: BigInt(view.typeId),
    typeName: view.typeName,
    ...(view.text === undefined ? {} : { text: view.text }),
    members,
    values,
  };
}
