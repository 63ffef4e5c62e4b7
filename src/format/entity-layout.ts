import { FormatError } from '../errors.js';
import { javaDoubleBitsToString, javaFloatBitsToString } from '../javatext/java-float-text.js';
import {
  PRIMITIVE_SIZES,
  type FieldDescriptor,
  type ListField,
  type PrimitiveName,
  type TypeEntry,
} from './type-dictionary.js';

/**
 * Locating and decoding the members of one entity's content (storage-format.md §8), lazily:
 * variable-length members are located by their list headers, and their elements are decoded only
 * for the window a request asks for, so a 10-million element list costs what its page costs.
 */

/** A decoded value: Java text of a primitive (string), a reference (bigint id), or an array. */
export type MemberValue = string | bigint | readonly MemberValue[];

/** Where one top-level member sits in the entity content. */
export type MemberSlot = FixedSlot | VariableSlot;

export interface FixedSlot {
  readonly field: FieldDescriptor;
  readonly variable: false;
  readonly offset: number;
}

export interface VariableSlot {
  readonly field: FieldDescriptor;
  readonly variable: true;
  /** Offset of the binary list header. */
  readonly offset: number;
  /** Element count from the list header. */
  readonly count: number;
  /** Offset of the first element. */
  readonly elementsOffset: number;
  /** Offset just past the list. */
  readonly end: number;
  /**
   * Size of one element when all elements have the same size, else undefined. 0 for elements
   * without members: then nothing bounds `count` but JAVA_MAX_ELEMENTS, and a walk over the
   * elements has nothing to visit.
   */
  readonly elementSize: number | undefined;
}

/** The content bytes of one entity together with the locations of its members. */
export interface EntityLayout {
  readonly entry: TypeEntry;
  readonly view: DataView;
  readonly slots: readonly MemberSlot[];
}

export interface ContentLocation {
  /** For messages: file name and the absolute offset of the content's first byte. */
  readonly file?: string;
  readonly offset?: number;
}

const LIST_HEADER = 16;

/** Fixed byte size of a member, or undefined when it is variable-length. */
export function fixedSizeOf(field: FieldDescriptor): number | undefined {
  switch (field.kind) {
    case 'primitive':
      return PRIMITIVE_SIZES[field.typeName];
    case 'reference':
      return 8;
    default:
      return undefined;
  }
}

/** Size of one element of a list whose nested members are all fixed-size, else undefined. */
export function listElementSize(field: ListField): number | undefined {
  let size = 0;
  for (const nested of field.elements) {
    const s = fixedSizeOf(nested);
    if (s === undefined) return undefined;
    size += s;
  }
  return size;
}

/**
 * Walks the content of an entity with the member list of its type and checks that every member,
 * and the content as a whole, has exactly the length the dictionary implies.
 */
export function layoutEntity(entry: TypeEntry, content: Uint8Array, where: ContentLocation = {}): EntityLayout {
  const view = new DataView(content.buffer, content.byteOffset, content.byteLength);
  const slots: MemberSlot[] = [];
  let pos = 0;
  const fail = (message: string, at: number): never => {
    throw new FormatError('FORMAT_BAD_RECORD', `${entry.typeName} (type id ${entry.typeId}): ${message}`, {
      file: where.file,
      offset: where.offset === undefined ? undefined : where.offset + at,
    });
  };
  for (const field of entry.fields) {
    const size = fixedSizeOf(field);
    if (size !== undefined) {
      if (pos + size > content.length) fail(`content ends inside member ${field.name}`, pos);
      slots.push({ field, variable: false, offset: pos });
      pos += size;
      continue;
    }
    const slot = locateList(field, view, pos, fail);
    slots.push(slot);
    pos = slot.end;
  }
  if (pos !== content.length) {
    fail(`content is ${content.length} bytes but the members take ${pos}`, pos);
  }
  return { entry, view, slots };
}

function locateList(
  field: FieldDescriptor,
  view: DataView,
  pos: number,
  fail: (message: string, at: number) => never,
): VariableSlot {
  if (pos + LIST_HEADER > view.byteLength) fail(`content ends inside the list header of ${field.name}`, pos);
  const total = readLength(view, pos, fail, `list length of ${field.name}`);
  const count = readLength(view, pos + 8, fail, `element count of ${field.name}`);
  if (total < LIST_HEADER || pos + total > view.byteLength) {
    fail(`list ${field.name} claims ${total} bytes, ${view.byteLength - pos} available`, pos);
  }
  // Java indexes arrays and lists with an int: more elements than that cannot have been stored.
  // It is the only bound on a list of elements without members, which take no bytes each.
  if (count > JAVA_MAX_ELEMENTS) fail(`list ${field.name} claims ${count} elements, more than a Java collection holds (${JAVA_MAX_ELEMENTS})`, pos);
  let elementSize: number | undefined;
  if (field.kind === 'chars') elementSize = 2;
  else if (field.kind === 'bytes') elementSize = 1;
  else if (field.kind === 'list') elementSize = listElementSize(field);
  if (elementSize !== undefined && total !== LIST_HEADER + count * elementSize) {
    fail(`list ${field.name} has ${count} elements of ${elementSize} bytes but ${total - LIST_HEADER} bytes`, pos);
  }
  if (elementSize === undefined && field.kind === 'list') {
    // Elements of different sizes: every nested list header must fit, and together exactly fill the list.
    try {
      const end = walkElements(field, view, pos + LIST_HEADER, count, pos + total);
      if (end !== pos + total) fail(`the ${count} elements of list ${field.name} take ${end - pos - LIST_HEADER} of its ${total - LIST_HEADER} bytes`, pos);
    } catch (error) {
      if (error instanceof ListError) fail(error.message, error.offset);
      throw error;
    }
  }
  return {
    field,
    variable: true,
    offset: pos,
    count,
    elementsOffset: pos + LIST_HEADER,
    end: pos + total,
    elementSize,
  };
}

/** The most elements a Java array or list holds (int-indexed). */
export const JAVA_MAX_ELEMENTS = 2 ** 31 - 1;

/** Made once: converting it on every list header read cost a bigint each time. */
const MAX_SAFE_LENGTH = BigInt(Number.MAX_SAFE_INTEGER);

function readLength(view: DataView, pos: number, fail: (m: string, at: number) => never, what: string): number {
  const value = view.getBigInt64(pos, true);
  if (value < 0n || value > MAX_SAFE_LENGTH) fail(`invalid ${what}: ${value}`, pos);
  return Number(value);
}

/** Java `toString` of a primitive stored at `pos`. */
export function primitiveText(type: PrimitiveName, view: DataView, pos: number): string {
  switch (type) {
    case 'byte':
      return String(view.getInt8(pos));
    case 'boolean':
      return view.getUint8(pos) !== 0 ? 'true' : 'false';
    case 'short':
      return String(view.getInt16(pos, true));
    case 'char':
      return String.fromCharCode(view.getUint16(pos, true));
    case 'int':
      return String(view.getInt32(pos, true));
    case 'float':
      return javaFloatBitsToString(view.getUint32(pos, true));
    case 'long':
      return view.getBigInt64(pos, true).toString();
    case 'double':
      return javaDoubleBitsToString(view.getBigUint64(pos, true));
  }
}

/** The value of a fixed-size member: primitive text or reference id. */
export function fixedValue(field: FieldDescriptor, view: DataView, pos: number): string | bigint {
  if (field.kind === 'primitive') return primitiveText(field.typeName, view, pos);
  return view.getBigInt64(pos, true);
}

/** Decodes the UTF-16 code units of a char list (unpaired surrogates kept as they are). */
export function charsText(view: DataView, start: number, count: number): string {
  const parts: string[] = [];
  const CHUNK = 8192;
  for (let i = 0; i < count; i += CHUNK) {
    const n = Math.min(CHUNK, count - i);
    const units = new Array<number>(n);
    for (let k = 0; k < n; k++) units[k] = view.getUint16(start + 2 * (i + k), true);
    parts.push(String.fromCharCode(...units));
  }
  return parts.join('');
}

/**
 * Elements `[from, to)` of a top-level variable-length member, as the REST adapter sees them:
 * `[char]` → one-character strings, `[byte]` → byte texts, `[list]` → per element either the
 * single nested value (reference, primitive, or the string of a nested `[char]`) or an array of
 * the nested values.
 */
export function variableElements(view: DataView, slot: VariableSlot, from: number, to: number): MemberValue[] {
  const field = slot.field;
  const out: MemberValue[] = [];
  if (from >= to) return out;
  if (field.kind === 'chars') {
    for (let i = from; i < to; i++) out.push(String.fromCharCode(view.getUint16(slot.elementsOffset + 2 * i, true)));
    return out;
  }
  if (field.kind === 'bytes') {
    for (let i = from; i < to; i++) out.push(String(view.getInt8(slot.elementsOffset + i)));
    return out;
  }
  if (field.kind !== 'list') return out;
  const single = field.elements.length === 1 ? field.elements[0] : undefined;
  if (single !== undefined && single.kind === 'bytes') {
    // 4.1 quirk (rest-rendering.md §10.6): a list of byte lists is read as if its elements were bytes.
    for (let i = from; i < to; i++) out.push(String(view.getInt8(slot.elementsOffset + i)));
    return out;
  }
  let pos: number;
  if (slot.elementSize !== undefined) {
    pos = slot.elementsOffset + from * slot.elementSize;
  } else {
    pos = slot.elementsOffset;
    for (let i = 0; i < from; i++) pos = skipElement(field, view, pos);
  }
  for (let i = from; i < to; i++) {
    if (single !== undefined) {
      const [value, next] = nestedValue(single, view, pos, true);
      out.push(value);
      pos = next;
    } else {
      const entry: MemberValue[] = [];
      for (const nested of field.elements) {
        const [value, next] = nestedValue(nested, view, pos, false);
        entry.push(value);
        pos = next;
      }
      out.push(entry);
    }
  }
  return out;
}

/** Decodes one nested member at `pos`; returns the value and the position after it. */
function nestedValue(field: FieldDescriptor, view: DataView, pos: number, alone: boolean): [MemberValue, number] {
  const size = fixedSizeOf(field);
  if (size !== undefined) return [fixedValue(field, view, pos), pos + size];
  const end = checked(() => checkNestedList(field, view, pos, view.byteLength));
  const count = Number(view.getBigInt64(pos + 8, true));
  if (field.kind === 'chars') {
    if (alone) return [charsText(view, pos + LIST_HEADER, count), end];
    const chars: string[] = [];
    for (let i = 0; i < count; i++) chars.push(String.fromCharCode(view.getUint16(pos + LIST_HEADER + 2 * i, true)));
    return [chars, end];
  }
  if (field.kind === 'bytes') {
    const bytes: string[] = [];
    for (let i = 0; i < count; i++) bytes.push(String(view.getInt8(pos + LIST_HEADER + i)));
    return [bytes, end];
  }
  if (field.kind !== 'list') return ['', end];
  const elementSize = listElementSize(field);
  const slot: VariableSlot = { field, variable: true, offset: pos, count, elementsOffset: pos + LIST_HEADER, end, elementSize };
  return [variableElements(view, slot, 0, count), end];
}

/** Position after one element of a list with variable-size elements. */
function skipElement(field: ListField, view: DataView, pos: number): number {
  for (const nested of field.elements) {
    const size = fixedSizeOf(nested);
    const at = pos;
    pos = size !== undefined ? pos + size : checked(() => checkNestedList(nested, view, at, view.byteLength));
  }
  return pos;
}

/** A damaged nested list found while walking; callers turn it into a FormatError with their location. */
class ListError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

function checked<T>(walk: () => T): T {
  try {
    return walk();
  } catch (error) {
    if (error instanceof ListError) throw new FormatError('FORMAT_BAD_LIST', error.message, { offset: error.offset });
    throw error;
  }
}

/** Position after `count` elements starting at `pos`, each checked to lie before `limit`. */
function walkElements(field: ListField, view: DataView, pos: number, count: number, limit: number): number {
  for (let i = 0; i < count; i++) {
    for (const nested of field.elements) {
      const size = fixedSizeOf(nested);
      pos = size !== undefined ? pos + size : checkNestedList(nested, view, pos, limit);
      if (pos > limit) throw new ListError(`element ${i} of list ${field.name} runs past its end`, pos);
    }
  }
  return pos;
}

/**
 * Checks the binary list header of a nested `[char]`, `[byte]` or `[list]` at `pos` (and,
 * recursively, its elements) against the bytes up to `limit`; returns the position after it.
 */
function checkNestedList(field: FieldDescriptor, view: DataView, pos: number, limit: number): number {
  const bad = (message: string): never => {
    throw new ListError(`nested list ${field.name} ${message}`, pos);
  };
  if (pos + LIST_HEADER > limit) bad('header runs past the end of its container');
  const total = view.getBigInt64(pos, true);
  const count = view.getBigInt64(pos + 8, true);
  if (total < BigInt(LIST_HEADER) || total > BigInt(limit - pos)) bad(`claims ${total} bytes, ${limit - pos} available`);
  if (count < 0n || count > total) bad(`claims ${count} elements in ${total} bytes`);
  const end = pos + Number(total);
  const n = Number(count);
  const elementSize = field.kind === 'chars' ? 2 : field.kind === 'bytes' ? 1 : field.kind === 'list' ? listElementSize(field) : undefined;
  if (elementSize !== undefined) {
    if (end - pos !== LIST_HEADER + n * elementSize) bad(`has ${n} elements of ${elementSize} bytes but ${end - pos - LIST_HEADER} bytes`);
  } else if (field.kind === 'list' && walkElements(field, view, pos + LIST_HEADER, n, end) !== end) {
    bad(`elements do not fill its ${end - pos - LIST_HEADER} bytes`);
  }
  return end;
}

/** Every value of the entity, one per member, with variable members fully decoded. */
export function allMemberValues(layout: EntityLayout): MemberValue[] {
  return layout.slots.map((slot) =>
    slot.variable ? variableElements(layout.view, slot, 0, slot.count) : fixedValue(slot.field, layout.view, slot.offset),
  );
}

