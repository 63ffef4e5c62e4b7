import { fixedSizeOf, JAVA_MAX_ELEMENTS, layoutEntity, listElementSize, type ContentLocation, type EntityLayout, type MemberSlot } from '../format/entity-layout.js';
import type { FieldDescriptor, TypeEntry } from '../format/type-dictionary.js';
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
    if (x !== y) out.push({ member: memberName(after.entry, after.slots[i]!.field), before: x, after: y });
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

/**
 * `plainMemberChanges(differingMembers(…))` for two whole records (content from byte 24 on) of
 * the same members, found without laying either record out: the members' places are read into
 * reused numbers, the differing ones compared in place, texts decoded straight from the records.
 * Undefined whenever that answer is not certain to be the one the layouts give: other members, a
 * list of elements of different sizes, a record the layout would refuse (its error comes from
 * the layout then), or a differing member that is no primitive or text. Most changes a diff
 * describes are one text or number; the layouts cost two objects per member and record.
 */
export function plainRecordChanges(entryBefore: TypeEntry, before: Buffer, entryAfter: TypeEntry, after: Buffer): ValueChange[] | undefined {
  if (!sameMembers(entryBefore, entryAfter)) return undefined;
  const plan = planOf(entryAfter);
  if (plan === undefined) return undefined;
  const n = plan.fields.length;
  if (spans.length < 4 * n) spans = new Int32Array(4 * n);
  if (!spansOf(plan, before, RECORD_HEADER, 0) || !spansOf(plan, after, RECORD_HEADER, 1)) return undefined;
  let out: ValueChange[] | undefined;
  for (let i = 0; i < n; i++) {
    const fromA = spans[i * 4]!;
    const toA = spans[i * 4 + 1]!;
    const fromB = spans[i * 4 + 2]!;
    const toB = spans[i * 4 + 3]!;
    if (toA - fromA === toB - fromB && sameBytes(before, fromA, after, fromB, toA - fromA)) continue;
    const field = plan.fields[i]!;
    const x = plainAt(field, before, fromA, toA);
    const y = plainAt(field, after, fromB, toB);
    if (x === undefined || y === undefined) return undefined;
    // As plainMemberChanges: equal values (a NaN in other bits) are no change.
    if (x !== y) (out ??= []).push({ member: plan.names[i]!, before: x, after: y });
  }
  return out ?? [];
}

const RECORD_HEADER = 24;
const LIST_HEADER = 16;

/** Per member of a type: its fixed size or its list's element size. */
interface Plan {
  readonly fields: readonly FieldDescriptor[];
  /** The members' names as views key them (looked up per change: 5 % of a profile's samples at 10M). */
  readonly names: readonly string[];
  /** Fixed size; 0 for a list (every fixed member takes at least one byte). */
  readonly sizes: Int32Array;
  /** A list's element size. */
  readonly elementSizes: Int32Array;
}

const plans = new WeakMap<TypeEntry, Plan | null>();

/** Null (cached) where a member is a list whose elements differ in size: only the layout walks those. */
function planOf(entry: TypeEntry): Plan | undefined {
  let plan = plans.get(entry);
  if (plan === undefined) {
    const fields = entry.fields;
    const sizes = new Int32Array(fields.length);
    const elementSizes = new Int32Array(fields.length);
    let walkable = true;
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]!;
      const size = fixedSizeOf(field);
      const elementSize = field.kind === 'chars' ? 2 : field.kind === 'bytes' ? 1 : field.kind === 'list' ? listElementSize(field) : 0;
      if (size === undefined && elementSize === undefined) walkable = false;
      sizes[i] = size ?? 0;
      elementSizes[i] = elementSize ?? 0;
    }
    plan = walkable ? { fields, names: fields.map((field) => memberName(entry, field)), sizes, elementSizes } : null;
    plans.set(entry, plan);
  }
  return plan ?? undefined;
}

/** Members' places of the latest records asked: [from, to) of each member, before's and after's side by side. */
let spans = new Int32Array(64);

/**
 * Each member's place in `record` (its content at `start`) into `spans` (`side` 0 or 1), with the
 * checks `layoutEntity` makes; false where it would refuse the record (or a length needs more
 * than 32 bits: left to it too).
 */
function spansOf(plan: Plan, record: Buffer, start: number, side: number): boolean {
  const end = record.length;
  let pos = start;
  for (let i = 0; i < plan.sizes.length; i++) {
    const size = plan.sizes[i]!;
    let next: number;
    if (size > 0) {
      next = pos + size;
    } else {
      if (pos + LIST_HEADER > end || record.readInt32LE(pos + 4) !== 0 || record.readInt32LE(pos + 12) !== 0) return false;
      const total = record.readUInt32LE(pos);
      const count = record.readUInt32LE(pos + 8);
      if (total < LIST_HEADER || count > JAVA_MAX_ELEMENTS || total !== LIST_HEADER + count * plan.elementSizes[i]!) return false;
      next = pos + total;
    }
    if (next > end) return false;
    spans[i * 4 + side * 2] = pos;
    spans[i * 4 + side * 2 + 1] = next;
    pos = next;
  }
  return pos === end;
}

/** A member's value as `plainValue` reads it from a layout: undefined unless a primitive or a text. */
function plainAt(field: FieldDescriptor, record: Buffer, from: number, to: number): JsonValue | undefined {
  if (field.kind === 'chars') return record.toString('utf16le', from + LIST_HEADER, to);
  const view = new DataView(record.buffer, record.byteOffset, record.length);
  return plainMemberValue(view, { field, variable: false, offset: from });
}

function sameBytes(x: Buffer, at: number, y: Buffer, bt: number, length: number): boolean {
  if (length <= 16) {
    for (let i = 0; i < length; i++) if (x[at + i] !== y[bt + i]) return false;
    return true;
  }
  return x.compare(y, bt, bt + length, at, at + length) === 0;
}

/** The member's name as views key it: qualified by its declaring class where the type repeats the name. */
function memberName(entry: TypeEntry, field: FieldDescriptor): string {
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
