import { RECORD_HEADER_SIZE } from '../format/entity-record.js';
import { PRIMITIVE_SIZES, type FieldDescriptor, type ListField, type TypeEntry } from '../format/type-dictionary.js';
import { setInt64, type ByteSink } from './byte-sink.js';

/**
 * Encoding entity records (storage-format.md §5.1, §8): a 24-byte header, then one value per
 * instance member of the type entry, in dictionary order. The entry alone fixes the layout, so the
 * same values always give the same bytes.
 *
 * Values by member kind:
 * - primitive: `number` (`long` also `bigint`, `boolean` also `boolean`, `char` also a 1-character string)
 * - reference: object id as `bigint`, `null` or `0n` for the null reference
 * - `[char]`: `string` (UTF-16 code units, unpaired surrogates kept)
 * - `[byte]`: `Uint8Array`
 * - `[list]`: an array of elements; with one nested member each element is that member's value,
 *   with several it is an array of the nested values. A list with one fixed-size nested member
 *   also accepts a matching typed array (`Int32Array` for `int`, `BigInt64Array` for `long` or
 *   references, `Float64Array` for `double`, …), which is written in one go.
 */

export type TypedListValue =
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Float32Array
  | Float64Array
  | BigInt64Array;

export type FieldValue = number | bigint | boolean | string | null | Uint8Array | TypedListValue | readonly ElementValue[];

/** One element of a `[list]`: the value of its single nested member, or the values of all of them. */
export type ElementValue = FieldValue;

const LIST_HEADER = 16;

/** Appends one complete record to the sink and returns its total length. */
export function encodeRecord(sink: ByteSink, entry: TypeEntry, objectId: bigint, values: readonly FieldValue[]): number {
  const fields = entry.fields;
  if (values.length !== fields.length) {
    throw new TypeError(`${entry.typeName} (type id ${entry.typeId}) has ${fields.length} members, got ${values.length} values`);
  }
  let length = RECORD_HEADER_SIZE;
  for (let i = 0; i < fields.length; i++) length += valueSize(fields[i]!, values[i]!, entry);
  const start = sink.reserve(length);
  const view = sink.view;
  setInt64(view, start, length);
  view.setBigInt64(start + 8, entry.typeId, true);
  view.setBigInt64(start + 16, objectId, true);
  let pos = start + RECORD_HEADER_SIZE;
  try {
    for (let i = 0; i < fields.length; i++) pos = writeValue(sink.buffer, view, pos, fields[i]!, values[i]!);
  } catch (error) {
    sink.length = start; // no half-written record stays behind
    throw error;
  }
  if (pos !== start + length) {
    sink.length = start;
    throw new TypeError(`${entry.typeName}: values took ${pos - start} bytes, expected ${length}`);
  }
  return length;
}

/** The content length (without header) the values take for this entry. */
export function contentLength(entry: TypeEntry, values: readonly FieldValue[]): number {
  let length = 0;
  for (let i = 0; i < entry.fields.length; i++) length += valueSize(entry.fields[i]!, values[i] ?? null, entry);
  return length;
}

function valueSize(field: FieldDescriptor, value: FieldValue, entry: TypeEntry): number {
  switch (field.kind) {
    case 'primitive':
      return PRIMITIVE_SIZES[field.typeName];
    case 'reference':
      return 8;
    case 'chars':
      if (typeof value !== 'string') throw mismatch(entry, field, value, 'a string');
      return LIST_HEADER + 2 * value.length;
    case 'bytes':
      if (!(value instanceof Uint8Array)) throw mismatch(entry, field, value, 'a Uint8Array');
      return LIST_HEADER + value.length;
    case 'list':
      return listSize(field, value, entry);
  }
}

function listSize(field: ListField, value: FieldValue, entry: TypeEntry): number {
  const fixed = fixedElementSize(field);
  if (ArrayBuffer.isView(value)) {
    const only = field.elements.length === 1 ? field.elements[0] : undefined;
    if (fixed === undefined || only === undefined || !typedArrayFits(only, value as TypedListValue)) {
      throw mismatch(entry, field, value, 'an array of elements or a typed array matching its element type');
    }
    return LIST_HEADER + (value as TypedListValue).length * fixed;
  }
  if (!Array.isArray(value)) throw mismatch(entry, field, value, 'an array of elements');
  const elements = value as readonly ElementValue[];
  if (fixed !== undefined) return LIST_HEADER + elements.length * fixed;
  let size = LIST_HEADER;
  const nested = field.elements;
  if (nested.length === 1) {
    const only = nested[0]!;
    for (const element of elements) size += valueSize(only, element, entry);
  } else {
    for (const element of elements) {
      if (!Array.isArray(element) || element.length !== nested.length) throw mismatch(entry, field, element, `arrays of ${nested.length} values`);
      for (let k = 0; k < nested.length; k++) size += valueSize(nested[k]!, (element as readonly FieldValue[])[k]!, entry);
    }
  }
  return size;
}

const TYPED_ARRAYS: Readonly<Record<string, readonly string[]>> = {
  byte: ['Int8Array', 'Uint8Array', 'Buffer'],
  boolean: ['Uint8Array', 'Int8Array', 'Buffer'],
  short: ['Int16Array', 'Uint16Array'],
  char: ['Uint16Array', 'Int16Array'],
  int: ['Int32Array'],
  float: ['Float32Array'],
  long: ['BigInt64Array'],
  double: ['Float64Array'],
};

function typedArrayFits(element: FieldDescriptor, value: TypedListValue): boolean {
  const name = value.constructor.name;
  if (element.kind === 'reference') return name === 'BigInt64Array';
  return element.kind === 'primitive' && (TYPED_ARRAYS[element.typeName]?.includes(name) ?? false);
}

const fixedSizes = new WeakMap<ListField, number | null>();

/** Size of one element when every nested member is fixed-size, else undefined. */
function fixedElementSize(field: ListField): number | undefined {
  let cached = fixedSizes.get(field);
  if (cached === undefined) {
    let size: number | null = 0;
    for (const nested of field.elements) {
      if (nested.kind === 'primitive') size += PRIMITIVE_SIZES[nested.typeName];
      else if (nested.kind === 'reference') size += 8;
      else {
        size = null;
        break;
      }
    }
    cached = size;
    fixedSizes.set(field, cached);
  }
  return cached ?? undefined;
}

function writeValue(buffer: Buffer, view: DataView, pos: number, field: FieldDescriptor, value: FieldValue): number {
  switch (field.kind) {
    case 'primitive':
      return writePrimitive(view, pos, field.typeName, value);
    case 'reference':
      writeReference(view, pos, value);
      return pos + 8;
    case 'chars':
      return writeChars(view, pos, value as string);
    case 'bytes': {
      const bytes = value as Uint8Array;
      setInt64(view, pos, LIST_HEADER + bytes.length);
      setInt64(view, pos + 8, bytes.length);
      buffer.set(bytes, pos + LIST_HEADER);
      return pos + LIST_HEADER + bytes.length;
    }
    case 'list':
      return writeList(buffer, view, pos, field, value);
  }
}

function writeList(buffer: Buffer, view: DataView, pos: number, field: ListField, value: FieldValue): number {
  const start = pos;
  const nested = field.elements;
  if (ArrayBuffer.isView(value)) {
    const typed = value as TypedListValue;
    const size = fixedElementSize(field)!;
    const byteLength = typed.length * size;
    setInt64(view, pos, LIST_HEADER + byteLength);
    setInt64(view, pos + 8, typed.length);
    pos += LIST_HEADER;
    if (typed.BYTES_PER_ELEMENT === size && isLittleEndianHost) {
      buffer.set(new Uint8Array(typed.buffer, typed.byteOffset, byteLength), pos);
      return pos + byteLength;
    }
    const only = nested[0]!;
    for (let i = 0; i < typed.length; i++) pos = writeValue(buffer, view, pos, only, typed[i]!);
    return pos;
  }
  const elements = value as readonly ElementValue[];
  pos += LIST_HEADER;
  if (nested.length === 1) {
    const only = nested[0]!;
    for (const element of elements) pos = writeValue(buffer, view, pos, only, element);
  } else {
    for (const element of elements) {
      const parts = element as readonly FieldValue[];
      for (let k = 0; k < nested.length; k++) pos = writeValue(buffer, view, pos, nested[k]!, parts[k]!);
    }
  }
  setInt64(view, start, pos - start);
  setInt64(view, start + 8, elements.length);
  return pos;
}

function writeChars(view: DataView, pos: number, text: string): number {
  const count = text.length;
  setInt64(view, pos, LIST_HEADER + 2 * count);
  setInt64(view, pos + 8, count);
  pos += LIST_HEADER;
  for (let i = 0; i < count; i++) {
    view.setUint16(pos, text.charCodeAt(i), true);
    pos += 2;
  }
  return pos;
}

function writeReference(view: DataView, pos: number, value: FieldValue): void {
  if (typeof value === 'bigint') view.setBigInt64(pos, value, true);
  else if (value === null || value === 0) setInt64(view, pos, 0);
  else throw new TypeError(`a reference must be a bigint object id or null, got ${describe(value)}`);
}

function writePrimitive(view: DataView, pos: number, type: keyof typeof PRIMITIVE_SIZES, value: FieldValue): number {
  switch (type) {
    case 'byte':
      view.setInt8(pos, toNumber(value));
      return pos + 1;
    case 'boolean':
      view.setUint8(pos, value === true || (typeof value === 'number' && value !== 0) ? 1 : 0);
      return pos + 1;
    case 'short':
      view.setInt16(pos, toNumber(value), true);
      return pos + 2;
    case 'char':
      view.setUint16(pos, typeof value === 'string' ? value.charCodeAt(0) : toNumber(value), true);
      return pos + 2;
    case 'int':
      view.setInt32(pos, toNumber(value), true);
      return pos + 4;
    case 'float':
      view.setFloat32(pos, toNumber(value), true);
      return pos + 4;
    case 'long':
      if (typeof value === 'bigint') view.setBigInt64(pos, value, true);
      else setInt64(view, pos, toNumber(value));
      return pos + 8;
    case 'double':
      view.setFloat64(pos, toNumber(value), true);
      return pos + 8;
  }
}

function toNumber(value: FieldValue): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(BigInt.asIntN(64, value));
  if (typeof value === 'boolean') return value ? 1 : 0;
  throw new TypeError(`a primitive value must be a number, got ${describe(value)}`);
}

function mismatch(entry: TypeEntry, field: FieldDescriptor, value: unknown, expected: string): TypeError {
  return new TypeError(`${entry.typeName}#${field.name} (${field.typeName}) needs ${expected}, got ${describe(value)}`);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (ArrayBuffer.isView(value)) return value.constructor.name;
  return typeof value;
}

const isLittleEndianHost = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
