import type { TypeDictionary, TypeEntry } from '../format/type-dictionary.js';

/**
 * How people name a type: a type id, the full Java name (every version of it), or the simple
 * name (`Person` for `gen.Person`, `Entry` for `java.util.HashMap$Entry`) where exactly one full
 * name has it. Shared by `/api/v1` and `export --type`, so both accept the same names.
 */

export type TypeLookup = { readonly entries: readonly TypeEntry[]; readonly typeName: string } | { readonly error: string };

export function lookUpType(dictionary: TypeDictionary, name: string): TypeLookup {
  if (/^[0-9]{1,19}$/.test(name)) {
    const entry = dictionary.byId.get(BigInt(name));
    return entry === undefined ? { error: `type id ${name} is not in the type dictionary` } : { entries: [entry], typeName: entry.typeName };
  }
  const exact = dictionary.entries.filter((e) => e.typeName === name);
  if (exact.length > 0) return { entries: exact, typeName: name };
  const names = new Set(dictionary.entries.filter((e) => simpleTypeName(e.typeName) === name).map((e) => e.typeName));
  if (names.size === 1) {
    const [full] = names as unknown as [string];
    return { entries: dictionary.entries.filter((e) => e.typeName === full), typeName: full };
  }
  if (names.size > 1) return { error: `the type name ${name} is ambiguous: ${[...names].sort().join(', ')}; give the full name` };
  return { error: `no type named ${name} in the type dictionary` };
}

/** The name after the package and enclosing classes: `Person`, `Entry`. */
export function simpleTypeName(typeName: string): string {
  return typeName.slice(Math.max(typeName.lastIndexOf('.'), typeName.lastIndexOf('$')) + 1);
}

/** MicroStream's and EclipseStore's `Lazy` reference: shown as the object it holds. */
export function isLazyType(typeName: string): boolean {
  return /\.reference\.Lazy\$Default$/.test(typeName);
}

/**
 * The JDK's and the collections libraries' shared empty collections (`Collections.emptyList()`,
 * MicroStream's and EclipseStore's `Empty`, `EmptyTable`): stored without members, shown as
 * `empty` like any collection without elements.
 */
export function isEmptyCollectionType(typeName: string): boolean {
  return EMPTY_COLLECTION.test(typeName);
}

const EMPTY_COLLECTION = /^java\.util\.Collections\$Empty(List|Set|Map)$|^(one\.microstream|org\.eclipse\.serializer)\.collections\.Empty(Table)?$/;
