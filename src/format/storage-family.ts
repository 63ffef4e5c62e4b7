import type { TypeDictionary } from './type-dictionary.js';

/**
 * The product line that wrote a storage. The binary format is the same from MicroStream 4 to
 * EclipseStore 4; what differs is the package of the built-in types (roots, `Lazy`, the
 * collections) and, around the storage, the REST adapter's defaults and texts. The family is read
 * from the type dictionary's names, never from type ids above 1000000: those are assigned when a
 * storage is created, in an order that changed from version to version.
 */

export type FamilyName = 'microstream' | 'eclipsestore';

export interface StorageFamily {
  readonly name: FamilyName;
  /** For messages: `MicroStream`, `EclipseStore`. */
  readonly label: string;
  /** The type of the entity that lists the roots. */
  readonly rootsTypeName: string;
  /** The first path segment of the REST routes when `--instance` is not given. */
  readonly defaultInstance: string;
  /** Package prefixes of the family's own types. */
  readonly packagePrefixes: readonly string[];
}

export const MICROSTREAM: StorageFamily = {
  name: 'microstream',
  label: 'MicroStream',
  rootsTypeName: 'one.microstream.persistence.types.PersistenceRoots$Default',
  defaultInstance: 'microstream',
  packagePrefixes: ['one.microstream.'],
};

export const ECLIPSESTORE: StorageFamily = {
  name: 'eclipsestore',
  label: 'EclipseStore',
  rootsTypeName: 'org.eclipse.serializer.persistence.types.PersistenceRoots$Default',
  defaultInstance: 'store-data',
  packagePrefixes: ['org.eclipse.serializer.', 'org.eclipse.store.'],
};

export const FAMILIES: readonly StorageFamily[] = [MICROSTREAM, ECLIPSESTORE];

export function familyByName(name: FamilyName): StorageFamily {
  return name === 'eclipsestore' ? ECLIPSESTORE : MICROSTREAM;
}

/**
 * The family whose runtime last registered its types in the dictionary. A storage migrated from
 * MicroStream to EclipseStore keeps the old entries and gains the new ones with higher type ids,
 * so the family of the newest roots type wins; without any roots type (an empty or foreign
 * dictionary) the newest entry of a family package decides; with none of those, MicroStream
 * (the generation this tool started with).
 */
export function detectFamily(dictionary: TypeDictionary): StorageFamily {
  let best: { family: StorageFamily; typeId: bigint } | undefined;
  for (const family of FAMILIES) {
    const roots = dictionary.currentByName.get(family.rootsTypeName);
    if (roots !== undefined && (best === undefined || roots.typeId > best.typeId)) best = { family, typeId: roots.typeId };
  }
  if (best !== undefined) return best.family;
  for (let i = dictionary.entries.length - 1; i >= 0; i--) {
    const name = dictionary.entries[i]!.typeName;
    const family = FAMILIES.find((f) => f.packagePrefixes.some((p) => name.startsWith(p)));
    if (family !== undefined) return family;
  }
  return MICROSTREAM;
}
