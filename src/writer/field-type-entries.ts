import type { MemberDescriptor } from '../format/type-dictionary.js';
import { objectArrayMembers } from './type-definitions.js';

/**
 * What Java registers for the declared type of a field. When MicroStream creates the handler of a
 * reflectively stored class, it ensures a handler for the type of every field as well (field types
 * of handler-defined layouts such as `TreeMap#comparator` are not visited). A class gets its full
 * entry; an interface or abstract class gets an entry without members (`java.util.List{}`); an
 * object array type gets its element list. A storage written without these entries makes Java add
 * them (and rewrite the dictionary) the first time it opens it.
 *
 * The writer knows no Java classes, so interfaces and abstract classes are recognised from this list
 * of the JDK and MicroStream types that serve as field types; application interfaces are declared
 * with `WriterDictionary.defineAbstract`.
 */

/** Abstract JDK classes with a fixed ("native") type id in MicroStream 4.1. */
const NATIVE_ABSTRACT_TYPE_IDS: ReadonlyMap<string, bigint> = new Map([
  ['java.lang.AbstractStringBuilder', 31n],
  ['java.lang.Number', 36n],
  ['java.util.AbstractCollection', 40n],
  ['java.util.AbstractList', 41n],
  ['java.util.AbstractSet', 42n],
  ['java.util.AbstractMap', 45n],
  ['java.util.Dictionary', 47n],
  ['java.util.AbstractSequentialList', 53n],
  ['java.util.AbstractQueue', 55n],
]);

/** Interfaces and abstract classes (without a native id) commonly declared as field types. */
const ABSTRACT_TYPE_NAMES: ReadonlySet<string> = new Set([
  'java.lang.CharSequence',
  'java.lang.Comparable',
  'java.lang.Iterable',
  'java.lang.Runnable',
  'java.lang.Cloneable',
  'java.io.Serializable',
  'java.util.Collection',
  'java.util.List',
  'java.util.Set',
  'java.util.SortedSet',
  'java.util.NavigableSet',
  'java.util.Queue',
  'java.util.Deque',
  'java.util.Map',
  'java.util.SortedMap',
  'java.util.NavigableMap',
  'java.util.Comparator',
  'java.util.Calendar',
  'java.util.TimeZone',
  'java.util.concurrent.ConcurrentMap',
  'java.util.concurrent.ConcurrentNavigableMap',
  'java.util.concurrent.BlockingQueue',
  'java.util.concurrent.BlockingDeque',
  'java.time.temporal.Temporal',
  'java.time.temporal.TemporalAccessor',
  'java.time.temporal.TemporalAmount',
  'java.time.chrono.ChronoLocalDate',
  'java.time.chrono.ChronoLocalDateTime',
  'java.time.ZoneId',
  'one.microstream.reference.Lazy',
  'one.microstream.reference.Reference',
  'one.microstream.reference.Referencing',
  'one.microstream.collections.types.XCollection',
  'one.microstream.collections.types.XList',
  'one.microstream.collections.types.XSet',
  'one.microstream.collections.types.XMap',
  'one.microstream.collections.types.XTable',
  'one.microstream.collections.types.XEnum',
  'one.microstream.collections.types.XSequence',
]);

/** Object array types with a native type id (storage-format.md §7.6). */
const NATIVE_OBJECT_ARRAY_TYPE_IDS: ReadonlyMap<string, bigint> = new Map([
  ['[Ljava.lang.Object;', 110n],
  ['[Ljava.lang.Byte;', 111n],
  ['[Ljava.lang.Boolean;', 112n],
  ['[Ljava.lang.Short;', 113n],
  ['[Ljava.lang.Character;', 114n],
  ['[Ljava.lang.Integer;', 115n],
  ['[Ljava.lang.Float;', 116n],
  ['[Ljava.lang.Long;', 117n],
  ['[Ljava.lang.Double;', 118n],
  ['[Ljava.lang.Void;', 119n],
  ['[Ljava.lang.Class;', 120n],
  ['[Ljava.lang.Enum;', 121n],
  ['[Ljava.lang.String;', 130n],
  ['[Ljava.lang.StringBuffer;', 132n],
  ['[Ljava.lang.StringBuilder;', 133n],
]);

/** The entry Java would register for a field type name, if the writer can tell it. */
export interface FieldTypeEntry {
  /** A fixed type id Java uses for it, else a new dynamic one is assigned. */
  readonly nativeTypeId: bigint | undefined;
  readonly members: readonly MemberDescriptor[];
}

/** EclipseStore moved MicroStream's `one.microstream.*` types to `org.eclipse.serializer.*` unchanged. */
const SERIALIZER_PREFIX = 'org.eclipse.serializer.';

export function isKnownAbstractType(typeName: string): boolean {
  const name = typeName.startsWith(SERIALIZER_PREFIX) ? `one.microstream.${typeName.slice(SERIALIZER_PREFIX.length)}` : typeName;
  return NATIVE_ABSTRACT_TYPE_IDS.has(name) || ABSTRACT_TYPE_NAMES.has(name);
}

/**
 * The entry for a field type that is an interface or abstract class the writer knows, or an object
 * array type (`[Lx;`, `[[I`); undefined for a class, whose layout only its definer knows.
 */
export function fieldTypeEntry(typeName: string): FieldTypeEntry | undefined {
  if (isKnownAbstractType(typeName)) return { nativeTypeId: NATIVE_ABSTRACT_TYPE_IDS.get(typeName), members: [] };
  const component = objectArrayComponent(typeName);
  if (component !== undefined) return { nativeTypeId: NATIVE_OBJECT_ARRAY_TYPE_IDS.get(typeName), members: objectArrayMembers(component) };
  return undefined;
}

/** `[Ljava.lang.String;` → `java.lang.String`, `[[I` → `[I`; undefined for other names. */
function objectArrayComponent(typeName: string): string | undefined {
  if (typeName.startsWith('[L') && typeName.endsWith(';') && typeName.length > 3) return typeName.slice(2, -1);
  if (typeName.startsWith('[[') && typeName.length > 2) return typeName.slice(1);
  return undefined;
}
