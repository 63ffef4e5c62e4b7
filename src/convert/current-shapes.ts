import { layoutEntity } from '../format/entity-layout.js';
import { RECORD_HEADER_SIZE } from '../format/entity-record.js';
import type { FieldDescriptor, PrimitiveName, TypeDictionary, TypeEntry } from '../format/type-dictionary.js';

/**
 * `convert --current-types`: objects whose newest record is in an older definition of their type
 * (the dictionary holds several entries under one type name) rewritten into the newest definition
 * (the one the library binds the class to), as the library's legacy type mapping does at every
 * load, but only where that mapping is plain:
 *
 * - members are paired by name and declaring class; a pair keeps its value when the declared type
 *   is the same, or widens a primitive without loss (int → long, float → double, …: the value by
 *   name stays equal);
 * - a member only the newest definition has gets its default value (0, false, null, an empty list);
 *   a member only the older one has is dropped, as the library drops it;
 * - the library does not stop at names: it pairs the remaining members by similarity of name and
 *   type (MicroStream's and EclipseStore's `PersistenceMemberSimilator`: the mean of the names'
 *   Levenshtein similarity and the types' similarity, accepted from 0.5, so two members of the same
 *   declared type pair whatever their names). Where an older member left alone could be paired that
 *   way with a newer member that got no value of the same name (or one widened), the mapping is
 *   ambiguous: those objects keep their stored shape and are listed, as are types with a handler
 *   of their own (members without a declaring class) and enums, whose layout is not a plain list
 *   of fields.
 */

/** Widening conversions that keep every value (Java's widening primitive conversions minus the lossy int/long → float/double ones). */
const LOSSLESS: Readonly<Partial<Record<PrimitiveName, readonly PrimitiveName[]>>> = {
  byte: ['short', 'int', 'long', 'float', 'double'],
  short: ['int', 'long', 'float', 'double'],
  char: ['int', 'long', 'float', 'double'],
  int: ['long', 'double'],
  float: ['double'],
};

/** How each member of the newest definition gets its bytes. */
type Step =
  | { readonly kind: 'copy'; readonly from: number }
  | { readonly kind: 'widen'; readonly from: number; readonly source: PrimitiveName; readonly target: PrimitiveName }
  | { readonly kind: 'default'; readonly field: FieldDescriptor };

export interface ShapeMapping {
  readonly from: TypeEntry;
  readonly to: TypeEntry;
  readonly steps: readonly Step[];
}

export interface AmbiguousShape {
  readonly from: TypeEntry;
  readonly to: TypeEntry;
  /** Why the mapping is not plain (names the members). */
  readonly reason: string;
}

export interface ShapePlan {
  /** Older type id → its mapping into the newest definition of its name. */
  readonly mappings: ReadonlyMap<bigint, ShapeMapping>;
  /** Older type id → why its objects keep their stored shape. */
  readonly ambiguous: ReadonlyMap<bigint, AmbiguousShape>;
}

/** The mapping (or the reason there is none) for every entry that is not the newest of its name. */
export function planCurrentShapes(dictionary: TypeDictionary): ShapePlan {
  const mappings = new Map<bigint, ShapeMapping>();
  const ambiguous = new Map<bigint, AmbiguousShape>();
  for (const entry of dictionary.entries) {
    const current = dictionary.currentByName.get(entry.typeName);
    if (current === undefined || current.typeId === entry.typeId) continue;
    const result = mapShape(entry, current);
    if (typeof result === 'string') ambiguous.set(entry.typeId, { from: entry, to: current, reason: result });
    else mappings.set(entry.typeId, result);
  }
  return { mappings, ambiguous };
}

const keyOf = (f: FieldDescriptor): string => `${f.qualifier ?? ''}#${f.name}`;
const nameOf = (f: FieldDescriptor): string => (f.qualifier === undefined ? f.name : `${f.qualifier}#${f.name}`);

/** The steps from `from` to `to`, or the reason the mapping is ambiguous. */
export function mapShape(from: TypeEntry, to: TypeEntry): ShapeMapping | string {
  if (from.enumConstants.length > 0 || to.enumConstants.length > 0) return 'an enum: its constants and layout are the library\'s to map';
  const handled = [...from.fields, ...to.fields].find((f) => f.qualifier === undefined);
  if (handled !== undefined) return `member ${handled.name} has no declaring class: a type handler of its own lays this type out`;
  const older = new Map(from.fields.map((f, i) => [keyOf(f), i] as const));
  const steps: Step[] = [];
  const paired = new Set<number>();
  const newOnly: FieldDescriptor[] = [];
  const widened: { older: FieldDescriptor; newer: FieldDescriptor }[] = [];
  for (const field of to.fields) {
    const at = older.get(keyOf(field));
    if (at === undefined) {
      steps.push({ kind: 'default', field });
      newOnly.push(field);
      continue;
    }
    const old = from.fields[at]!;
    paired.add(at);
    if (sameDeclaredType(old, field)) {
      steps.push({ kind: 'copy', from: at });
    } else if (old.kind === 'primitive' && field.kind === 'primitive' && LOSSLESS[old.typeName]?.includes(field.typeName) === true) {
      steps.push({ kind: 'widen', from: at, source: old.typeName, target: field.typeName });
      widened.push({ older: old, newer: field });
    } else {
      return `member ${nameOf(field)} changes its declared type from ${old.typeName} to ${field.typeName}`;
    }
  }
  const oldOnly = from.fields.filter((_, i) => !paired.has(i));
  // The library's similarity pairing could take an older member left alone for a newer member
  // without a value of its own name (no name to prefer; any type similarity may carry it).
  for (const old of oldOnly) {
    for (const candidate of newOnly) {
      if (typesRelated(old, candidate)) {
        return `the library could pair the dropped member ${nameOf(old)} (${old.typeName}) with the new member ${nameOf(candidate)} (${candidate.typeName}) by similarity, not by name`;
      }
    }
  }
  // A widened pair has the same name but not the same type: a member of exactly the other side's
  // type competes with it (its type similarity is 1, the widening's less).
  for (const { older, newer } of widened) {
    const rival = oldOnly.find((o) => o.kind === 'primitive' && o.typeName === newer.typeName) ?? newOnly.find((n) => n.kind === 'primitive' && n.typeName === older.typeName);
    if (rival !== undefined) {
      return `${nameOf(newer)} widens from ${older.typeName} to ${newer.typeName}, and the library could pair ${nameOf(rival)} (${rival.typeName}) with it by similarity instead`;
    }
  }
  return { from, to, steps };
}

function sameDeclaredType(a: FieldDescriptor, b: FieldDescriptor): boolean {
  if (a.kind !== b.kind || a.typeName !== b.typeName) return false;
  if (a.kind === 'list' && b.kind === 'list') {
    return a.elements.length === b.elements.length && a.elements.every((e, i) => sameDeclaredType(e, b.elements[i]!) && e.name === b.elements[i]!.name);
  }
  return true;
}

/** Types the library's type similarity does not rate 0: the same declared type, or two primitives (its table relates primitives with each other). */
function typesRelated(a: FieldDescriptor, b: FieldDescriptor): boolean {
  if (a.kind === 'primitive' && b.kind === 'primitive') return true;
  return a.kind === b.kind && a.typeName === b.typeName;
}

/**
 * Writes a record into its newest definition: reusable scratch memory (nothing kept per object);
 * the bytes returned are valid until the next call.
 */
export class ShapeRewriter {
  private scratch = Buffer.allocUnsafe(64 * 1024);

  /** `record`: one complete record (header and content) of `mapping.from`. */
  rewrite(mapping: ShapeMapping, record: Uint8Array, file?: string, offset?: number): Uint8Array {
    const content = record.subarray(RECORD_HEADER_SIZE);
    const layout = layoutEntity(mapping.from, content, { ...(file === undefined ? {} : { file }), ...(offset === undefined ? {} : { offset: offset + RECORD_HEADER_SIZE }) });
    let length = RECORD_HEADER_SIZE;
    for (const step of mapping.steps) length += stepSize(step, layout.slots);
    if (this.scratch.length < length) this.scratch = Buffer.allocUnsafe(Math.max(length, this.scratch.length * 2));
    const out = this.scratch;
    const view = new DataView(out.buffer, out.byteOffset, length);
    view.setBigInt64(0, BigInt(length), true);
    view.setBigInt64(8, mapping.to.typeId, true);
    out.set(record.subarray(16, 24), 16);
    let pos = RECORD_HEADER_SIZE;
    for (const step of mapping.steps) {
      if (step.kind === 'copy') {
        const slot = layout.slots[step.from]!;
        const end = slot.variable ? slot.end : slot.offset + stepSize(step, layout.slots);
        out.set(content.subarray(slot.offset, end), pos);
        pos += end - slot.offset;
      } else if (step.kind === 'widen') {
        writePrimitive(view, pos, step.target, readPrimitive(layout.view, layout.slots[step.from]!.offset, step.source));
        pos += primitiveSize(step.target);
      } else {
        const size = defaultSize(step.field);
        out.fill(0, pos, pos + size);
        // An empty list: its header says 16 bytes, no elements.
        if (size === 16 && !(step.field.kind === 'primitive' || step.field.kind === 'reference')) view.setBigInt64(pos, 16n, true);
        pos += size;
      }
    }
    return out.subarray(0, length);
  }
}

function primitiveSize(name: PrimitiveName): number {
  return name === 'byte' || name === 'boolean' ? 1 : name === 'short' || name === 'char' ? 2 : name === 'int' || name === 'float' ? 4 : 8;
}

function defaultSize(field: FieldDescriptor): number {
  if (field.kind === 'primitive') return primitiveSize(field.typeName);
  if (field.kind === 'reference') return 8;
  return 16;
}

function stepSize(step: Step, slots: ReturnType<typeof layoutEntity>['slots']): number {
  if (step.kind === 'default') return defaultSize(step.field);
  if (step.kind === 'widen') return primitiveSize(step.target);
  const slot = slots[step.from]!;
  if (slot.variable) return slot.end - slot.offset;
  return slot.field.kind === 'primitive' ? primitiveSize(slot.field.typeName) : 8;
}

function readPrimitive(view: DataView, pos: number, type: PrimitiveName): number {
  switch (type) {
    case 'byte':
      return view.getInt8(pos);
    case 'short':
      return view.getInt16(pos, true);
    case 'char':
      return view.getUint16(pos, true);
    case 'int':
      return view.getInt32(pos, true);
    case 'float':
      return view.getFloat32(pos, true);
    default:
      throw new Error(`no lossless widening from ${type}`);
  }
}

function writePrimitive(view: DataView, pos: number, type: PrimitiveName, value: number): void {
  switch (type) {
    case 'short':
      return view.setInt16(pos, value, true);
    case 'int':
      return view.setInt32(pos, value, true);
    case 'long':
      return view.setBigInt64(pos, BigInt(value), true);
    case 'float':
      return view.setFloat32(pos, value, true);
    case 'double':
      return view.setFloat64(pos, value, true);
    default:
      throw new Error(`no lossless widening to ${type}`);
  }
}
