import { charsText, fixedSizeOf, JAVA_MAX_ELEMENTS, listElementSize, type EntityLayout, type VariableSlot } from '../../format/entity-layout.js';
import type { PrimitiveName, TypeEntry } from '../../format/type-dictionary.js';
import type { LatestRecord } from '../../storage/records/latest-records.js';
import type { ChunkAppender } from './chunk-appender.js';
import type { TypeTablePlan } from './column-model.js';
import { NOT_STAGED, type Staging } from './staging.js';

/**
 * An entity's row in its type's staging table: members by column of the plan (table-build.ts,
 * type-fill.ts); a column whose field is NOT_STAGED (staging.ts) is not in the table.
 */
export function appendEntity(staging: Staging, fieldOfColumn: Int32Array, record: LatestRecord, layout: EntityLayout): void {
  const appender = staging.appender;
  const view = layout.view;
  appender.appendBigInt(record.objectId);
  appender.appendBigInt(record.typeId);
  const columns = staging.plan.columns;
  for (let c = 0; c < columns.length; c++) {
    const field = fieldOfColumn[c]!;
    if (field === NOT_STAGED) continue;
    const slot = field < 0 ? undefined : layout.slots[field];
    if (slot === undefined) {
      appender.appendNull();
      continue;
    }
    const role = columns[c]!.role;
    const at = slot.offset;
    switch (role.kind) {
      case 'primitive':
        appendPrimitive(appender, role.type, view, at);
        break;
      case 'reference':
      case 'value':
        appendId(appender, view, at);
        break;
      case 'chars': {
        const s = slot as VariableSlot;
        appender.appendVarchar(charsText(view, s.elementsOffset, s.count));
        break;
      }
      case 'bytes': {
        const s = slot as VariableSlot;
        appender.appendBlob(new Uint8Array(view.buffer, view.byteOffset + s.elementsOffset, s.count));
        break;
      }
      case 'list': {
        const s = slot as VariableSlot;
        appender.appendBigInt(BigInt(s.count));
        break;
      }
    }
  }
  appender.endRow();
}

/**
 * Where each member of a type version lies when every member has a fixed size (primitives and
 * references: most entity classes, whose texts and collections are objects of their own), and
 * the content's length; undefined for a version with a variable-length member.
 */
export interface FixedLayout {
  readonly offsets: Int32Array;
  readonly length: number;
}

export function fixedLayoutOf(entry: TypeEntry): FixedLayout | undefined {
  const offsets = new Int32Array(entry.fields.length);
  let length = 0;
  for (let i = 0; i < entry.fields.length; i++) {
    const size = fixedSizeOf(entry.fields[i]!);
    if (size === undefined) return undefined;
    offsets[i] = length;
    length += size;
  }
  return { offsets, length };
}

/**
 * The fixed layout of a version whose records can be read where they lie: every member of a fixed
 * size and every column it fills a primitive or a reference (appendFixedEntity reads exactly what
 * appendEntity would; link-tables.ts the references the general path would).
 */
export function fixedLayoutFor(entry: TypeEntry, plan: TypeTablePlan, fieldOfColumn: Int32Array): FixedLayout | undefined {
  const fixed = fixedLayoutOf(entry);
  if (fixed === undefined) return undefined;
  for (let c = 0; c < plan.columns.length; c++) {
    const kind = plan.columns[c]!.role.kind;
    if (fieldOfColumn[c]! >= 0 && kind !== 'primitive' && kind !== 'reference' && kind !== 'value') return undefined;
  }
  return fixed;
}

/**
 * The row `appendEntity` makes, read where the record lies (`view` from `contentAt`), for a
 * version with a fixed layout whose content has its length (the caller checks): no record
 * object, layout or bigint.
 */
export function appendFixedEntity(staging: Staging, fieldOfColumn: Int32Array, fixed: FixedLayout, view: DataView, contentAt: number, idLow: number, idHigh: number, typeLow: number, typeHigh: number): void {
  const appender = staging.appender;
  appender.appendBigIntHalves(idLow, idHigh);
  appender.appendBigIntHalves(typeLow, typeHigh);
  const columns = staging.plan.columns;
  for (let c = 0; c < columns.length; c++) {
    const field = fieldOfColumn[c]!;
    if (field < 0) {
      if (field !== NOT_STAGED) appender.appendNull();
      continue;
    }
    const role = columns[c]!.role;
    const at = contentAt + fixed.offsets[field]!;
    if (role.kind === 'primitive') appendPrimitive(appender, role.type, view, at);
    else appendId(appender, view, at); // a fixed layout has references (and value references) besides
  }
  appender.endRow();
}

/**
 * The element size of a version whose one member is a list of elements of a fixed size (every
 * primitive array, a HashMap's or an ArrayList's entries) when every column it fills is that
 * list's element count: its row needs nothing but the count in the list's header. Undefined for
 * any other version. (At 10M objects 3.2M of the type tables' records are such: made into record
 * objects and laid out one by one, they were most of the fill's handled records.)
 */
export function singleListElementSize(entry: TypeEntry, plan: TypeTablePlan, fieldOfColumn: Int32Array): number | undefined {
  const field = entry.fields.length === 1 ? entry.fields[0]! : undefined;
  if (field?.kind !== 'list') return undefined;
  for (let c = 0; c < plan.columns.length; c++) if (fieldOfColumn[c]! >= 0 && plan.columns[c]!.role.kind !== 'list') return undefined;
  return listElementSize(field);
}

/**
 * The element count of the list that is the whole content (`length` bytes of `view` from
 * `contentAt`) of a version `singleListElementSize` gave `elementSize` for, or -1 unless the list
 * header and its elements fill the content exactly as `layoutEntity` demands (the caller's general
 * path then says what is wrong with it).
 */
export function singleListCount(view: DataView, contentAt: number, length: number, elementSize: number): number {
  if (length < 16 || view.getInt32(contentAt + 4, true) !== 0 || view.getInt32(contentAt + 12, true) !== 0) return -1;
  const total = view.getUint32(contentAt, true);
  const count = view.getUint32(contentAt + 8, true);
  return total === length && count <= JAVA_MAX_ELEMENTS && 16 + count * elementSize === length ? count : -1;
}

/**
 * The row `appendEntity` makes for a version `singleListElementSize` gave `elementSize` for, read
 * from the record's list header where it lies; false (nothing appended) when `singleListCount`
 * finds the content not of that shape.
 */
export function appendSingleListEntity(staging: Staging, fieldOfColumn: Int32Array, elementSize: number, view: DataView, contentAt: number, length: number, idLow: number, idHigh: number, typeLow: number, typeHigh: number): boolean {
  const count = singleListCount(view, contentAt, length, elementSize);
  if (count < 0) return false;
  const appender = staging.appender;
  appender.appendBigIntHalves(idLow, idHigh);
  appender.appendBigIntHalves(typeLow, typeHigh);
  const columns = staging.plan.columns.length;
  for (let c = 0; c < columns; c++) {
    const field = fieldOfColumn[c]!;
    if (field === NOT_STAGED) continue;
    if (field < 0) appender.appendNull();
    else appender.appendBigIntNumber(count);
  }
  appender.endRow();
  return true;
}

/** A primitive member as its SQL type (`char` as a one-character text). */
function appendPrimitive(appender: ChunkAppender, type: PrimitiveName, view: DataView, at: number): void {
  switch (type) {
    case 'boolean':
      appender.appendBoolean(view.getUint8(at) !== 0);
      break;
    case 'byte':
      appender.appendTinyInt(view.getInt8(at));
      break;
    case 'short':
      appender.appendSmallInt(view.getInt16(at, true));
      break;
    case 'char':
      appender.appendVarchar(String.fromCharCode(view.getUint16(at, true)));
      break;
    case 'int':
      appender.appendInteger(view.getInt32(at, true));
      break;
    case 'long':
      appender.appendBigIntHalves(view.getInt32(at, true), view.getInt32(at + 4, true));
      break;
    case 'float':
      appender.appendFloat(view.getFloat32(at, true));
      break;
    case 'double':
      appender.appendDouble(view.getFloat64(at, true));
      break;
  }
}

/** A reference member: the object id, NULL for null (0). */
function appendId(appender: ChunkAppender, view: DataView, at: number): void {
  const low = view.getInt32(at, true);
  const high = view.getInt32(at + 4, true);
  if (low === 0 && high === 0) appender.appendNull();
  else appender.appendBigIntHalves(low, high);
}
