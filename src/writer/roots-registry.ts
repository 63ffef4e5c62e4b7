import type { FieldValue } from './entity-encoder.js';

/**
 * The roots entity (storage-format.md §9): identifiers and the objects they name, in the order
 * Java keeps them. `ROOT` names the root reference entity; `enum <tid>` entries name an
 * `Object[]` with the constants of a stored enum type.
 */

/** MicroStream's names; `WriterFamily.typeName` gives EclipseStore's. */
export const ROOTS_TYPE_NAME = 'one.microstream.persistence.types.PersistenceRoots$Default';
export const ROOT_REFERENCE_TYPE_NAME = 'one.microstream.persistence.types.PersistenceRootReference$Default';
export const OBJECT_ARRAY_TYPE_NAME = '[Ljava.lang.Object;';
export const ROOT_IDENTIFIER = 'ROOT';

export interface RootEntry {
  readonly identifier: string;
  readonly objectId: bigint;
}

export function enumRootIdentifier(typeId: bigint): string {
  return `enum ${typeId}`;
}

export class RootsRegistry {
  private readonly list: RootEntry[];

  constructor(
    readonly rootsObjectId: bigint,
    entries: readonly RootEntry[],
  ) {
    this.list = [...entries];
  }

  get entries(): readonly RootEntry[] {
    return this.list;
  }

  get(identifier: string): bigint | undefined {
    return this.list.find((e) => e.identifier === identifier)?.objectId;
  }

  /** Appends an entry; identifiers and object ids must be unique. */
  add(identifier: string, objectId: bigint): void {
    if (this.get(identifier) !== undefined) throw new RangeError(`root identifier ${identifier} exists already`);
    if (this.list.some((e) => e.objectId === objectId)) throw new RangeError(`object ${objectId} is a root already`);
    this.list.push({ identifier, objectId });
  }

  /** The field values of the roots entity: instances, then identifiers. */
  values(): FieldValue[] {
    return [BigInt64Array.from(this.list.map((e) => e.objectId)), this.list.map((e) => e.identifier)];
  }
}
