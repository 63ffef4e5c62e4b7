import { fixedSizeOf, layoutEntity, type ContentLocation, type MemberSlot } from '../format/entity-layout.js';
import type { TypeEntry } from '../format/type-dictionary.js';

/**
 * The members of a changed object whose bytes differ between its two records, as positions of
 * the type's member slots: a changed object usually differs in one member or a few, and only
 * those need decoding (and their references summarizing). Equal bytes are an equal value: the
 * same number, text, elements, or reference to the same object id. Undefined when the two records
 * are not laid out by the same members (another type, or a type id whose members differ between
 * the two dictionaries): then every member is decoded and compared.
 */
export function differingMembers(
  entryBefore: TypeEntry,
  contentBefore: Uint8Array,
  whereBefore: ContentLocation,
  entryAfter: TypeEntry,
  contentAfter: Uint8Array,
  whereAfter: ContentLocation,
): ReadonlySet<number> | undefined {
  if (!sameMembers(entryBefore, entryAfter)) return undefined;
  const before = layoutEntity(entryBefore, contentBefore, whereBefore).slots;
  const after = layoutEntity(entryAfter, contentAfter, whereAfter).slots;
  const differing = new Set<number>();
  for (let i = 0; i < before.length; i++) {
    const [fromA, toA] = span(before[i]!);
    const [fromB, toB] = span(after[i]!);
    if (toA - fromA !== toB - fromB || !equalBytes(contentBefore, fromA, contentAfter, fromB, toA - fromA)) differing.add(i);
  }
  return differing;
}

/** Whether two entries lay records out by the same members (checked once per pair of entries). */
const sameByPair = new WeakMap<TypeEntry, WeakMap<TypeEntry, boolean>>();

function sameMembers(a: TypeEntry, b: TypeEntry): boolean {
  if (a === b) return true;
  let byB = sameByPair.get(a);
  if (byB === undefined) sameByPair.set(a, (byB = new WeakMap()));
  let same = byB.get(b);
  if (same === undefined) {
    same = a.typeId === b.typeId && a.typeName === b.typeName && JSON.stringify(a.fields) === JSON.stringify(b.fields);
    byB.set(b, same);
  }
  return same;
}

function span(slot: MemberSlot): [number, number] {
  return slot.variable ? [slot.offset, slot.end] : [slot.offset, slot.offset + fixedSizeOf(slot.field)!];
}

function equalBytes(x: Uint8Array, at: number, y: Uint8Array, bt: number, length: number): boolean {
  if (length <= 16) {
    for (let i = 0; i < length; i++) if (x[at + i] !== y[bt + i]) return false;
    return true;
  }
  return Buffer.compare(x.subarray(at, at + length), y.subarray(bt, bt + length)) === 0;
}
