import { layoutEntity, variableElements, type VariableSlot } from '../format/entity-layout.js';
import type { StorageFamily } from '../format/storage-family.js';
import type { StoredEntity } from './storage-types.js';
import type { TypeDictionary, TypeEntry } from '../format/type-dictionary.js';

/**
 * Finding the application root (storage-format.md §9.2): the roots entity lists identifiers and
 * references; `ROOT` points at a root reference entity whose single field is the root. Storages
 * from before the `ROOT` concept use `root` (the root itself) or `defaultRoot` (a holder).
 */

interface EntitySource {
  readonly dictionary: TypeDictionary;
  /** Whose roots type to look for. */
  readonly family: StorageFamily;
  readEntity(objectId: bigint): Promise<StoredEntity | undefined>;
}

/** The roots entity and the application root it names (0 when absent). */
export interface FoundRoots {
  /** Object id of the roots entity (`PersistenceRoots$Default`), where reachability starts. */
  readonly rootsObjectId: bigint;
  readonly rootObjectId: bigint;
}

/** The roots entity and the root object id, 0 each when absent. */
export async function findRoots(source: EntitySource, candidates: readonly bigint[], warnings: string[]): Promise<FoundRoots> {
  const rootsType = source.dictionary.currentByName.get(source.family.rootsTypeName);
  if (rootsType === undefined) return { rootsObjectId: 0n, rootObjectId: 0n };
  const live: StoredEntity[] = [];
  for (const id of new Set(candidates)) {
    const entity = await source.readEntity(id);
    if (entity !== undefined && entity.typeId === rootsType.typeId) live.push(entity);
  }
  if (live.length === 0) return { rootsObjectId: 0n, rootObjectId: 0n };
  live.sort((a, b) => (a.objectId < b.objectId ? 1 : -1));
  if (live.length > 1) {
    warnings.push(`${live.length} roots entities found; using the one with the highest object id ${live[0]!.objectId}`);
  }
  return { rootsObjectId: live[0]!.objectId, rootObjectId: await rootOf(source, live[0]!, rootsType, warnings) };
}

/** Whether the list's elements are one member of this kind each (what the roots lists hold). */
function holdsOne(slot: VariableSlot, kind: 'reference' | 'chars'): boolean {
  return slot.field.kind === 'list' && slot.field.elements.length === 1 && slot.field.elements[0]!.kind === kind;
}

async function rootOf(source: EntitySource, roots: StoredEntity, rootsType: TypeEntry, warnings: string[]): Promise<bigint> {
  const layout = layoutEntity(rootsType, roots.content, { file: roots.file, offset: roots.offset + 24 });
  const lists = layout.slots.filter((s): s is VariableSlot => s.variable);
  const [instancesSlot, identifiersSlot] = lists;
  if (instancesSlot === undefined || identifiersSlot === undefined) return 0n;
  // Both lists are decoded whole: elements of another shape (of no members: 0 bytes each, up to
  // 2^31 - 1 of them in 16 bytes) would cost what their count says, and name no root anyway.
  if (!holdsOne(instancesSlot, 'reference') || !holdsOne(identifiersSlot, 'chars')) {
    warnings.push(`the roots entity ${roots.objectId} does not list references and identifiers (its type ${rootsType.typeId} declares other elements); no root found`);
    return 0n;
  }
  const instances = variableElements(layout.view, instancesSlot, 0, instancesSlot.count);
  const identifiers = variableElements(layout.view, identifiersSlot, 0, identifiersSlot.count);
  const referenceOf = (identifier: string): bigint | undefined => {
    const index = identifiers.indexOf(identifier);
    const value = index < 0 ? undefined : instances[index];
    return typeof value === 'bigint' ? value : undefined;
  };

  const rootReference = referenceOf('ROOT');
  if (rootReference !== undefined) return firstReferenceOf(source, rootReference);
  const legacyRoot = referenceOf('root');
  if (legacyRoot !== undefined) return legacyRoot;
  const holder = referenceOf('defaultRoot');
  if (holder !== undefined) return firstReferenceOf(source, holder);
  return 0n;
}

/** The first reference field of an entity (the `root` of a root reference, a holder's referent). */
async function firstReferenceOf(source: EntitySource, objectId: bigint): Promise<bigint> {
  if (objectId === 0n) return 0n;
  const entity = await source.readEntity(objectId);
  if (entity === undefined) return 0n;
  const type = source.dictionary.byId.get(entity.typeId);
  if (type === undefined) return 0n;
  const layout = layoutEntity(type, entity.content, { file: entity.file, offset: entity.offset + 24 });
  for (const slot of layout.slots) {
    if (slot.field.kind === 'reference') return layout.view.getBigInt64(slot.offset, true);
  }
  return 0n;
}
