import type { TypeEntry } from '../format/type-dictionary.js';
import type { FieldValue } from './entity-encoder.js';
import { enumRootIdentifier, OBJECT_ARRAY_TYPE_NAME, ROOT_IDENTIFIER, ROOT_REFERENCE_TYPE_NAME, ROOTS_TYPE_NAME, RootsRegistry } from './roots-registry.js';
import type { WriterDictionary } from './writer-dictionary.js';
import { MICROSTREAM_WRITER, type WriterFamily } from './writer-family.js';

/**
 * The 27 objects Java 4.1 stores on the first start of a storage (storage-format.md §9.3), with the
 * object ids, order and contents it gives them (EclipseStore stores the same, its own types renamed
 * to `org.eclipse.serializer.*`): the roots entity, MicroStream and JDK singletons,
 * the BigDecimal/BigInteger constants, the empty optionals, the root reference (no root yet) and
 * the `Object[]` of the one enum constant `Comparators$NaturalOrderComparator.INSTANCE`.
 */

export interface PlannedEntity {
  readonly entry: TypeEntry;
  readonly objectId: bigint;
  readonly values: readonly FieldValue[];
}

export interface BuiltinObjects {
  readonly entities: readonly PlannedEntity[];
  readonly roots: RootsRegistry;
  readonly rootReferenceId: bigint;
  readonly enumConstants: ReadonlyMap<bigint, readonly bigint[]>;
  /** The first object id not used by them. */
  readonly nextObjectId: bigint;
}

export const FIRST_OBJECT_ID = 1_000_000_000_000_000_001n;

const chars = (text: string): FieldValue => text;
const bytes = (...values: number[]): FieldValue => Uint8Array.from(values);

export function builtinObjects(dictionary: WriterDictionary, family: WriterFamily = MICROSTREAM_WRITER, firstObjectId = FIRST_OBJECT_ID): BuiltinObjects {
  const id = (n: number): bigint => firstObjectId + BigInt(n - 1);
  const type = (name: string): TypeEntry => dictionary.require(family.typeName(name));
  const naturalOrder = type('java.util.Comparators$NaturalOrderComparator');
  const plan: [number, string, FieldValue[]][] = [
    [2, 'one.microstream.hashing.XHashing$SingletonValueHashEqualator', []],
    [3, 'one.microstream.hashing.XHashing$SingletonIdentityHashEqualator', []],
    [4, 'one.microstream.hashing.XHashing$SingletonKeyValueIdentityHashEqualator', []],
    [5, 'one.microstream.collections.Empty', []],
    [6, 'one.microstream.collections.EmptyTable', [id(26), id(27)]],
    [7, 'java.util.Collections$EmptyList', []],
    [8, 'java.util.Collections$EmptySet', []],
    [9, 'java.util.Collections$EmptyMap', []],
    [10, 'java.util.Collections$UnmodifiableNavigableSet$EmptyNavigableSet', []],
    [11, 'java.util.Collections$UnmodifiableNavigableMap$EmptyNavigableMap', []],
    [12, 'java.util.Collections$ReverseComparator', []],
    [13, naturalOrder.typeName, []],
    [14, 'java.math.BigDecimal', [chars('0')]],
    [15, 'java.math.BigDecimal', [chars('1')]],
    [16, 'java.math.BigDecimal', [chars('10')]],
    [17, 'java.math.BigInteger', [bytes(0)]],
    [18, 'java.math.BigInteger', [bytes(1)]],
    [19, 'java.math.BigInteger', [bytes(10)]],
    [20, 'java.util.Optional', [null]],
    [21, 'java.util.OptionalInt', [false, 0]],
    [22, 'java.util.OptionalLong', [false, 0]],
    [23, 'java.util.OptionalDouble', [false, 0]],
    [24, ROOT_REFERENCE_TYPE_NAME, [null]],
    [25, OBJECT_ARRAY_TYPE_NAME, [BigInt64Array.of(id(13))]],
    [26, 'one.microstream.collections.EmptyTable$Keys', [id(6)]],
    [27, 'one.microstream.collections.EmptyTable$Values', [id(6)]],
  ];
  const identifiers: [string, number][] = [
    ['XHashEqualator:hashEqualityValue', 2],
    ['XHashEqualator:hashEqualityIdentity', 3],
    ['XHashEqualator:keyValueHashEqualityKeyIdentity', 4],
    ['XEmpty:Collection', 5],
    ['XEmpty:Table', 6],
    ['JDK.Collections:emptyList', 7],
    ['JDK.Collections:emptySet', 8],
    ['JDK.Collections:emptyMap', 9],
    ['JDK.Collections:emptyNavigableSet', 10],
    ['JDK.Collections:emptyNavigableMap', 11],
    ['JDK.Collections:reverseOrder', 12],
    ['JDK.Comparator:naturalOrder', 13],
    ['JDK.BigDecimal:ZERO', 14],
    ['JDK.BigDecimal:ONE', 15],
    ['JDK.BigDecimal:TEN', 16],
    ['JDK.BigInteger:ZERO', 17],
    ['JDK.BigInteger:ONE', 18],
    ['JDK.BigInteger:TEN', 19],
    ['JDK.Optional:empty', 20],
    ['JDK.OptionalInt:empty', 21],
    ['JDK.OptionalLong:empty', 22],
    ['JDK.OptionalDouble:empty', 23],
    [ROOT_IDENTIFIER, 24],
    [enumRootIdentifier(naturalOrder.typeId), 25],
  ];
  const roots = new RootsRegistry(
    id(1),
    identifiers.map(([identifier, n]) => ({ identifier, objectId: id(n) })),
  );
  const entities: PlannedEntity[] = [{ entry: type(ROOTS_TYPE_NAME), objectId: id(1), values: roots.values() }];
  for (const [n, name, values] of plan) entities.push({ entry: type(name), objectId: id(n), values });
  return {
    entities,
    roots,
    rootReferenceId: id(24),
    enumConstants: new Map([[naturalOrder.typeId, [id(13)]]]),
    nextObjectId: id(28),
  };
}
