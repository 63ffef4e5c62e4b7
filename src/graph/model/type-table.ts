import { StorageError } from '../../errors.js';
import type { TypeDictionary, TypeEntry } from '../../format/type-dictionary.js';
import { compileReferencePlan, type ReferencePlan } from './reference-plan.js';

/**
 * Small numbers for the type ids of a storage (what the graph keeps per entity: 2 bytes, or 4 for
 * a storage of more than NARROW_TYPES types), with each type's dictionary entry and reference
 * plan. Every type id of the dictionary has a number, legacy versions included; a record whose
 * type id the dictionary lacks gets one too, without an entry. Numbers never change once given
 * (a followed dictionary only grows).
 */

/**
 * The type number of a node that is not a stored entity (a missing id, a lost object), in both
 * widths: the number itself is never given to a type (a placeholder takes it), so that wide
 * arrays need no other marker.
 */
export const NOT_STORED = 0xffff;
/**
 * Types up to which the graph keeps 2 bytes per entity: the dictionary's types with room for
 * type ids the dictionary lacks (found while building or following). Beyond, 4 bytes.
 */
export const NARROW_TYPES = NOT_STORED - 4096;
/** Type numbers of every node: 2 bytes each, or 4 for storages of very many types. */
export type TypeNumbers = Uint16Array | Uint32Array;
const MAX_TYPES = 2 ** 31;
const PLACEHOLDER: GraphType = { typeId: -1n, entry: undefined, plan: undefined };

export interface GraphType {
  readonly typeId: bigint;
  /** Undefined for a type id the dictionary lacks. */
  readonly entry: TypeEntry | undefined;
  readonly plan: ReferencePlan | undefined;
}

/**
 * A dictionary type whose reference plan is compiled when a record of it is first walked: memory
 * follows the types in use, not the dictionary (a 63 MiB dictionary of 32,849 types, none in use,
 * held 159 MB of plans).
 */
class DictionaryType implements GraphType {
  private compiled: ReferencePlan | undefined;

  constructor(readonly entry: TypeEntry) {}

  get typeId(): bigint {
    return this.entry.typeId;
  }

  get plan(): ReferencePlan {
    this.compiled ??= compileReferencePlan(this.entry);
    return this.compiled;
  }
}

export class TypeTable {
  private readonly types: GraphType[] = [];
  private readonly byId = new Map<bigint, number>();
  /** Type ids below 2^32 by their low half: the fast path of a record walk. */
  private readonly bySmallId = new Map<number, number>();
  /** Numbers are kept in 2 bytes (see `narrow`): none may reach NOT_STORED. */
  private narrowed = false;

  constructor(dictionary: TypeDictionary) {
    this.update(dictionary);
  }

  get size(): number {
    return this.types.length;
  }

  /** Adds the dictionary's type ids that have no number yet; fills in entries of unknown ones. */
  update(dictionary: TypeDictionary): void {
    for (const entry of dictionary.entries) {
      const existing = this.byId.get(entry.typeId);
      if (existing !== undefined) {
        if (this.types[existing]!.entry === undefined) this.types[existing] = new DictionaryType(entry);
        continue;
      }
      this.add(new DictionaryType(entry));
    }
  }

  /** Whether type numbers need 4 bytes per node (more types than NARROW_TYPES). */
  get wide(): boolean {
    return this.types.length > NARROW_TYPES;
  }

  /** Numbers go into 2-byte arrays from now on: a number that does not fit is an error, not a wrong type. */
  narrow(): void {
    this.narrowed = true;
  }

  private add(type: GraphType): number {
    if (this.types.length === NOT_STORED) this.types.push(PLACEHOLDER);
    const limit = this.narrowed ? NOT_STORED : MAX_TYPES;
    if (this.types.length >= limit) {
      throw new StorageError(
        'STORAGE_INCONSISTENT',
        `more than ${limit - 1} type ids ${this.narrowed ? 'since the graph index was built (restart to index them all)' : 'are not supported'}`,
      );
    }
    const index = this.types.length;
    this.types.push(type);
    this.byId.set(type.typeId, index);
    if (type.typeId >= 0n && type.typeId < 1n << 32n) this.bySmallId.set(Number(type.typeId), index);
    return index;
  }

  /** The number of a type id given as two 32-bit halves (one is made for an unknown id). */
  indexOf(low: number, high: number): number {
    if (high === 0) {
      const found = this.bySmallId.get(low >>> 0);
      if (found !== undefined) return found;
    }
    return this.indexOfId((BigInt(high) << 32n) | BigInt(low >>> 0));
  }

  indexOfId(typeId: bigint): number {
    return this.byId.get(typeId) ?? this.add({ typeId, entry: undefined, plan: undefined });
  }

  /** The number of a type id, if it has one. */
  find(typeId: bigint): number | undefined {
    return this.byId.get(typeId);
  }

  at(index: number): GraphType {
    const type = this.types[index];
    if (type === undefined) throw new RangeError(`no type number ${index}`);
    return type;
  }

  /** Type name for messages and answers (`unknown type id N` for one the dictionary lacks). */
  nameOf(index: number): string {
    const type = this.types[index];
    if (type === undefined || type === PLACEHOLDER) return 'not stored';
    return type.entry?.typeName ?? `unknown type id ${type.typeId}`;
  }

  all(): readonly GraphType[] {
    return this.types;
  }
}
