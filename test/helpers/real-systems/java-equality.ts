import { allMemberValues, layoutEntity } from '../../../src/format/entity-layout.js';
import { classifyId, resolveJdkConstant } from '../../../src/format/ids.js';
import type { Storage } from '../../../src/storage/storage.js';

/**
 * Java's `equals` for the objects a storage references, as one comparable text per object: two
 * references denote equal Java objects exactly when their keys are equal. Value types compare by
 * value (a cached constant id and a stored wrapper with the same value are equal, as `Integer.equals`
 * says); `BigDecimal` compares by its text (scale included, like `BigDecimal.equals`); every other
 * class by identity (`Object.equals`), which is what the classes a writer produces use.
 */

/** Collections whose elements (or map keys) Java keeps unique by `equals`/`hashCode`. */
export const HASHED_TYPE_NAMES: ReadonlySet<string> = new Set([
  'java.util.HashSet',
  'java.util.LinkedHashSet',
  'java.util.HashMap',
  'java.util.LinkedHashMap',
  'java.util.Hashtable',
  'java.util.Properties',
  'java.util.WeakHashMap',
  'java.util.concurrent.ConcurrentHashMap',
]);

const BY_VALUE = new Set([
  'java.lang.String',
  'java.lang.Byte',
  'java.lang.Boolean',
  'java.lang.Short',
  'java.lang.Character',
  'java.lang.Integer',
  'java.lang.Long',
  'java.lang.Float',
  'java.lang.Double',
  'java.math.BigInteger',
  'java.math.BigDecimal',
  'java.util.Date',
  'java.util.Locale',
]);

export async function javaEqualityKey(storage: Storage, objectId: bigint): Promise<string> {
  if (objectId === 0n) return 'null';
  if (classifyId(objectId) === 'constant') {
    const constant = resolveJdkConstant(objectId);
    if (constant === undefined) throw new Error(`unknown constant id ${objectId}`);
    return `${constant.typeName}:${constant.text}`;
  }
  const entity = await storage.readEntity(objectId);
  if (entity === undefined) return `missing:${objectId}`;
  const entry = storage.dictionary.byId.get(entity.typeId);
  if (entry === undefined || !BY_VALUE.has(entry.typeName)) return `identity:${objectId}`;
  const values = allMemberValues(layoutEntity(entry, entity.content));
  if (values.length === 1 && Array.isArray(values[0]) && values[0].every((v) => typeof v === 'string')) {
    return `${entry.typeName}:${values[0].join('')}`; // a [char] value: String, BigDecimal, Locale
  }
  return `${entry.typeName}:${JSON.stringify(values, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`;
}

/**
 * The keys (map keys, or set elements) of a hashed collection record that are equal by Java's
 * `equals` to an earlier key of the same record.
 */
export async function duplicateKeys(storage: Storage, typeName: string, content: Uint8Array): Promise<string[]> {
  const entry = storage.dictionary.currentByName.get(typeName);
  if (entry === undefined) throw new Error(`no type ${typeName}`);
  const [elements] = allMemberValues(layoutEntity(entry, content)) as [readonly (bigint | readonly bigint[])[]];
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (const element of elements) {
    const key = typeof element === 'bigint' ? element : element[0]!;
    const text = await javaEqualityKey(storage, key);
    if (seen.has(text)) duplicates.push(text);
    seen.add(text);
  }
  return duplicates;
}
