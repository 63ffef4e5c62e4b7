import type { TypeEntry } from '../format/type-dictionary.js';
import type { StorageContext } from '../registry/storage-registry.js';
import { readableTypeName, shortReadableTypeName } from '../inspect/type-names.js';
import { ApiAnswerError } from './api-client.js';

/**
 * A type as a model names it: a type id, a full name (`com.acme.Customer`) or a simple one
 * (`Customer`, when only one type is called so). Every version (type id) of the name is found.
 */

export interface NamedType {
  readonly typeName: string;
  /** Every dictionary entry of the name, oldest (lowest type id) first; only the one asked for when given by id. */
  readonly entries: readonly TypeEntry[];
}

export function resolveType(context: StorageContext, text: string): NamedType {
  const dictionary = context.storage.dictionary;
  if (/^[0-9]{1,19}$/.test(text)) {
    const entry = dictionary.byId.get(BigInt(text));
    if (entry === undefined) throw new ApiAnswerError(404, 'Not Found', `type id ${text} is not in the type dictionary`);
    return { typeName: entry.typeName, entries: [entry] };
  }
  let names = new Set(dictionary.entries.filter((e) => e.typeName === text).map((e) => e.typeName));
  if (names.size === 0) names = new Set(dictionary.entries.filter((e) => simpleOf(e.typeName) === text).map((e) => e.typeName));
  // Arrays by their names for reading as well: `int[]`, `java.lang.String[]`, `String[]`.
  if (names.size === 0) names = new Set(dictionary.entries.filter((e) => readableTypeName(e.typeName) === text).map((e) => e.typeName));
  if (names.size === 0) names = new Set(dictionary.entries.filter((e) => e.typeName.startsWith('[') && shortReadableTypeName(e.typeName) === text).map((e) => e.typeName));
  if (names.size === 0) {
    const lower = text.toLowerCase();
    const near = [...new Set(dictionary.entries.filter((e) => e.typeName.toLowerCase().includes(lower)).map((e) => e.typeName))].slice(0, 10);
    throw new ApiAnswerError(404, 'Not Found', `no type named ${JSON.stringify(text.slice(0, 200))} in the type dictionary${near.length > 0 ? `; similar: ${near.join(', ')}` : ''}`);
  }
  if (names.size > 1) throw new ApiAnswerError(400, 'Ambiguous Type', `${JSON.stringify(text)} names several types: ${[...names].slice(0, 10).join(', ')}; give the full name`);
  const typeName = [...names][0]!;
  const entries = dictionary.entries.filter((e) => e.typeName === typeName).sort((a, b) => (a.typeId < b.typeId ? -1 : 1));
  return { typeName, entries };
}

function simpleOf(typeName: string): string {
  const dot = typeName.lastIndexOf('.');
  return dot < 0 ? typeName : typeName.slice(dot + 1);
}
