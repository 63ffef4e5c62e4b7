import { fixedSizeOf, layoutEntity, type ContentLocation, type EntityLayout, type MemberSlot } from '../format/entity-layout.js';
import type { TypeEntry } from '../format/type-dictionary.js';
import { plainMemberValue, type JsonValue } from '../inspect/object-view.js';
import type { ValueChange } from './member-changes.js';

/**
 * The members of a changed object whose bytes differ between its two records, as positions of
 * the type's member slots: a changed object usually differs in one member or a few, and only
 * those need decoding (and their references summarizing). Equal bytes are an equal value: the
 * same number, text, elements, or reference to the same object id.
 */

export interface MemberComparison {
  /** Positions in the layouts' slots, ascending. */
  readonly differing: ReadonlySet<number>;
  readonly before: EntityLayout;
  readonly after: EntityLayout;
}

/**
 * Undefined when the two records are not laid out by the same members (another type, or a type id
 * whose members differ between the two dictionaries): then every member is decoded and compared.
 */
export function differingMembers(
  entryBefore: TypeEntry,
  contentBefore: Uint8Array,
  whereBefore: ContentLocation,
  entryAfter: TypeEntry,
  contentAfter: Uint8Array,
  whereAfter: ContentLocation,
): MemberComparison | undefined {
  if (!sameMembers(entryBefore, entryAfter)) return undefined;
  const before = layoutEntity(entryBefore, contentBefore, whereBefore);
  const after = layoutEntity(entryAfter, contentAfter, whereAfter);
  const differing = new Set<number>();
  for (let i = 0; i < before.slots.length; i++) {
    const [fromA, toA] = span(before.slots[i]!);
    const [fromB, toB] = span(after.slots[i]!);
    if (toA - fromA !== toB - fromB || !equalBytes(contentBefore, fromA, contentAfter, fromB, toA - fromA)) differing.add(i);
  }
  return { differing, before, after };
}

/**
 * The member changes read straight from the two layouts, as `memberChanges` finds them from two
 * views, when every differing member is a primitive or a text; undefined when one is a reference
 * or a list (those need the views: reference summaries, elements compared one by one).
 */
export function plainMemberChanges(comparison: MemberComparison): ValueChange[] | undefined {
  const out: ValueChange[] = [];
  const { before, after } = comparison;
  for (const i of comparison.differing) {
    const x = plainValue(before.view, before.slots[i]!);
    const y = plainValue(after.view, after.slots[i]!);
    if (x === undefined || y === undefined) return undefined;
    // Plain values are texts, numbers and booleans (a float JSON cannot carry is its Java text):
    // equal exactly when the same (different bytes of a NaN are one value).
    if (x !== y) out.push({ member: memberName(after.entry, after.slots[i]!), before: x, after: y });
  }
  return out;
}

/**
 * `plainMemberValue`, a text decoded by Node's UTF-16LE decoder (the same string: code units as
 * they are, lone surrogates too) instead of one `getUint16` per character: most changes a diff
 * describes are texts.
 */
function plainValue(view: DataView, slot: MemberSlot): JsonValue | undefined {
  if (!slot.variable || slot.field.kind !== 'chars') return plainMemberValue(view, slot);
  return Buffer.from(view.buffer, view.byteOffset + slot.elementsOffset, slot.count * 2).toString('utf16le');
}

/** The member's name as views key it: qualified by its declaring class where the type repeats the name. */
function memberName(entry: TypeEntry, slot: MemberSlot): string {
  const field = slot.field;
  const qualifier = repeatedNames(entry).has(field.name) ? field.qualifier : undefined;
  return qualifier === undefined ? field.name : `${qualifier}#${field.name}`;
}

const repeatedByEntry = new WeakMap<TypeEntry, ReadonlySet<string>>();

function repeatedNames(entry: TypeEntry): ReadonlySet<string> {
  let repeated = repeatedByEntry.get(entry);
  if (repeated === undefined) {
    const seen = new Set<string>();
    const twice = new Set<string>();
    for (const f of entry.fields) (seen.has(f.name) ? twice : seen).add(f.name);
    repeatedByEntry.set(entry, (repeated = twice));
  }
  return repeated;
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
