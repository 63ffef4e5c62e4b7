import { StorageError } from '../errors.js';
import type { TypeDictionary, TypeEntry } from '../format/type-dictionary.js';
import { compileReferencePlan, type ReferencePlan } from './reference-plan.js';

/**
 * Small numbers for the type ids of a storage (what the graph keeps per entity, 2 bytes), with
 * each type's dictionary entry and reference plan. Every type id of the dictionary has a number,
 * legacy versions included; a record whose type id the dictionary lacks gets one too, without
 * an entry. Numbers never change once given (a followed dictionary only grows).
 */

/** The type number of a node that is not a stored entity (a missing id, a lost object). */
export const NOT_STORED = 0xffff;
const MAX_TYPES = NOT_STORED;

export interface GraphType {
  readonly typeId: bigint;
  /** Undefined for a type id the dictionary lacks. */
  readonly entry: TypeEntry | undefined;
  readonly plan: ReferencePlan | undefined;
}

export class TypeTable {
  private readonly types: GraphType[] = [];
  private readonly byId = new Map<bigint, number>();
  /** Type ids below 2^32 by their low half: the fast path of a record walk. */
  private readonly bySmallId = new Map<number, number>();

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
        if (this.types[existing]!.entry === undefined) this.types[existing] = { typeId: entry.typeId, entry, plan: compileReferencePlan(entry) };
        continue;
      }
      this.add({ typeId: entry.typeId, entry, plan: compileReferencePlan(entry) });
    }
  }

  private add(type: GraphType): number {
    if (this.types.length >= MAX_TYPES) throw new StorageError('STORAGE_INCONSISTENT', `more than ${MAX_TYPES - 1} type ids are not supported`);
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
    if (type === undefined) return 'not stored';
    return type.entry?.typeName ?? `unknown type id ${type.typeId}`;
  }

  all(): readonly GraphType[] {
    return this.types;
  }
}
