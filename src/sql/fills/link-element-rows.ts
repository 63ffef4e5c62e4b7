import { JAVA_MAX_ELEMENTS, primitiveText } from '../../format/entity-layout.js';
import { isObjectIdHalves } from '../../format/ids.js';
import { PRIMITIVE_SIZES, type PrimitiveName } from '../../format/type-dictionary.js';
import type { LinkRowSink, LinkType } from './link-types.js';

/**
 * Rows of the link pass read straight from a record's bytes, for the lists that hold most of
 * them (at 10M objects 28M of `_elements`' 32M rows are primitive arrays' elements, and most of
 * the rest references in lists): no element objects, per-element strings or bigints. A record's
 * rows are those the general path (`variableElements`, link-tables.ts) gives, in its order;
 * primitive arrays' rows come before those of the other records of the same read chunk (the
 * tables promise no order).
 *
 * Primitive arrays (`[B`, `[I`, `[D`...: types of one member, a list of one primitive each) are
 * written while the walk sees their header: no record object, copy or layout per record, the
 * owner's id as the walk's 32-bit halves. A record whose bytes do not have exactly the shape its
 * type implies is left to the general path (which passes it over as the tables' pass reported it).
 */

export interface PrimitiveArrayType {
  readonly type: PrimitiveName;
  readonly size: number;
  readonly member: string;
}

/** The types of `types` that are primitive arrays, by type id (ids below 2^32: the walk's `typeLow`). */
export function primitiveArrayTypes(types: ReadonlyMap<bigint, LinkType>): Map<number, PrimitiveArrayType> {
  const out = new Map<number, PrimitiveArrayType>();
  for (const [typeId, { entry, plan, fieldOfColumn }] of types) {
    if (typeId < 0n || typeId >= 1n << 32n || entry.fields.length !== 1) continue;
    const field = entry.fields[0]!;
    if (field.kind !== 'list' || field.elements.length !== 1) continue;
    const element = field.elements[0]!;
    if (element.kind !== 'primitive') continue;
    // The general path writes rows for the columns of the one field: exactly one, a list.
    const columns = plan.columns.filter((_c, i) => fieldOfColumn[i] === 0);
    if (columns.length !== 1 || columns[0]!.role.kind !== 'list') continue;
    out.set(Number(typeId), { type: element.typeName, size: PRIMITIVE_SIZES[element.typeName], member: columns[0]!.name });
  }
  return out;
}

/**
 * Writes the elements of the primitive array whose content is `length` bytes of `view` from
 * `contentAt` into `direct`, owned by the object `idLow`/`idHigh`; false (nothing written) when
 * the content is not a list header and its elements filling it exactly.
 */
export function appendPrimitiveArray(direct: LinkRowSink, array: PrimitiveArrayType, idLow: number, idHigh: number, view: DataView, contentAt: number, length: number): boolean {
  if (length < 16) return false;
  // The list's byte length and element count, 64-bit: both must fit the content (high words 0).
  if (view.getInt32(contentAt + 4, true) !== 0 || view.getInt32(contentAt + 12, true) !== 0) return false;
  const total = view.getUint32(contentAt, true);
  const count = view.getUint32(contentAt + 8, true);
  if (total !== length || count > JAVA_MAX_ELEMENTS || 16 + count * array.size !== length) return false;
  const { type, size, member } = array;
  const bytes = type === 'byte';
  for (let i = 0, at = contentAt + 16; i < count; i++, at += size) {
    direct.appendBigIntHalves(idLow, idHigh);
    direct.appendBigIntNumber(i);
    direct.appendNull();
    direct.appendNull();
    direct.appendVarchar(bytes ? BYTE_TEXTS[view.getInt8(at) + 128]! : primitiveText(type, view, at));
    direct.appendNull();
    direct.appendVarchar(member);
    direct.endRow();
  }
  return true;
}

/** The texts of the 256 byte values, -128 first (as `primitiveText` makes them). */
export const BYTE_TEXTS: readonly string[] = Array.from({ length: 256 }, (_v, i) => String(i - 128));

/**
 * A list of one reference each (an ArrayList's, an Object[]'s elements) or of a pair of references
 * (a HashMap's entries): the rows `variableElements` would give, read as 32-bit halves where the
 * record lies, no bigint or element object made: `count` elements of `size` bytes from `elementsAt`
 * of `view`, owned by the object `ownerLow`/`ownerHigh`. Every element is staged (it names an
 * object, or null); its references follow it, key before value.
 */
export function appendReferenceElements(staged: LinkRowSink, references: LinkRowSink, ownerLow: number, ownerHigh: number, member: number, memberName: string, view: DataView, elementsAt: number, count: number, size: number, pair: boolean): void {
  for (let i = 0, at = elementsAt; i < count; i++, at += size) {
    staged.appendBigIntHalves(ownerLow, ownerHigh);
    staged.appendBigIntNumber(i);
    if (pair) appendIdPart(staged, view, at);
    else {
      staged.appendNull();
      staged.appendNull();
    }
    appendIdPart(staged, view, pair ? at + 8 : at);
    staged.appendInteger(member);
    staged.endRow();
    if (pair) appendIdReference(references, ownerLow, ownerHigh, view, at, memberName);
    appendIdReference(references, ownerLow, ownerHigh, view, pair ? at + 8 : at, memberName);
  }
}

/** A reference as a key or value: text NULL, the id (NULL for a null reference). */
function appendIdPart(rows: LinkRowSink, view: DataView, at: number): void {
  const low = view.getInt32(at, true);
  const high = view.getInt32(at + 4, true);
  rows.appendNull();
  if (low === 0 && high === 0) rows.appendNull();
  else rows.appendBigIntHalves(low, high);
}

/** A `_references` row when the id at `at` names an object. */
function appendIdReference(references: LinkRowSink, ownerLow: number, ownerHigh: number, view: DataView, at: number, member: string): void {
  const low = view.getInt32(at, true);
  const high = view.getInt32(at + 4, true);
  if (!isObjectIdHalves(low, high)) return;
  references.appendBigIntHalves(ownerLow, ownerHigh);
  references.appendBigIntHalves(low, high);
  references.appendVarchar(member);
  references.endRow();
}
