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
  // An array by its name for reading: `int[]`, `java.lang.String[]`, `String[]` where unambiguous.
  if (name.endsWith('[]')) {
    const arrays = dictionary.entries.filter((e) => e.typeName.startsWith('['));
    const full = new Set(arrays.filter((e) => readableTypeName(e.typeName) === name).map((e) => e.typeName));
    const named = full.size > 0 ? full : new Set(arrays.filter((e) => shortReadableTypeName(e.typeName) === name).map((e) => e.typeName));
    if (named.size === 1) {
      const [typeName] = named as unknown as [string];
      return { entries: dictionary.entries.filter((e) => e.typeName === typeName), typeName };
    }
    if (named.size > 1) return { error: `the type name ${name} is ambiguous: ${[...named].map(readableTypeName).sort().join(', ')}; give the full name` };
  }
  const names = new Set(dictionary.entries.filter((e) => simpleTypeName(e.typeName) === name).map((e) => e.typeName));
  if (names.size === 1) {
    const [full] = names as unknown as [string];
    return { entries: dictionary.entries.filter((e) => e.typeName === full), typeName: full };
  }
  if (names.size > 1) return { error: `the type name ${name} is ambiguous: ${[...names].sort().join(', ')}; give the full name` };
  return { error: `no type named ${name} in the type dictionary` };
}

const ARRAY_CODES: Readonly<Record<string, string>> = { B: 'byte', Z: 'boolean', S: 'short', C: 'char', I: 'int', F: 'float', J: 'long', D: 'double' };

/**
 * A type's name for reading, as the viewer shows it: arrays in Java's source form (`[I` →
 * `int[]`, `[[B` → `byte[][]`, `[Ljava.lang.String;` → `java.lang.String[]`), any other name as
 * the dictionary has it. Names that identify (table names, the dictionary's) stay as they are;
 * lookUpType takes both.
 */
export function readableTypeName(typeName: string): string {
  let dims = 0;
  while (typeName.charAt(dims) === '[') dims++;
  if (dims === 0 || typeName.length === dims) return typeName;
  const rest = typeName.slice(dims);
  const component = rest.startsWith('L') && rest.endsWith(';') ? rest.slice(1, -1) : (ARRAY_CODES[rest] ?? rest);
  return component + '[]'.repeat(dims);
}

/** The short name for reading: `Person`, `HashMap$Entry`, `String[]`, `int[][]` (the viewer's short form). */
export function shortReadableTypeName(typeName: string): string {
  const readable = readableTypeName(typeName);
  const brackets = readable.indexOf('[]');
  const component = brackets < 0 ? readable : readable.slice(0, brackets);
  const generic = component.indexOf('<');
  const base = generic < 0 ? component : component.slice(0, generic);
  const dot = base.lastIndexOf('.');
  return (dot < 0 ? component : component.slice(dot + 1)) + (brackets < 0 ? '' : readable.slice(brackets));
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
