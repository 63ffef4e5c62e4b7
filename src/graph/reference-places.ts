import { fixedSizeOf } from '../format/entity-layout.js';
import type { FieldDescriptor, TypeEntry } from '../format/type-dictionary.js';

/**
 * Through which member, element index or map entry an entity refers to another: what "via" says
 * on a referrer or a path step. Found by walking the referrer's bytes with its layout and
 * comparing reference slots with the target id (no decoding of the other values), so even the
 * element index in a list of millions costs one pass over its bytes.
 */

export interface ReferencePlace {
  /** The top-level member. */
  readonly member: FieldDescriptor;
  /** The member's name, with its declaring class when the type has several members of that name. */
  readonly memberName: string;
  /** Element index within a list member (indices of enclosing lists first, for nested lists). */
  readonly indices: readonly number[];
  /** The nested member of the element holding the reference (e.g. `key` or `value` of a map entry). */
  readonly element: string | undefined;
  /** For a reference in a `value` member: the id in the same element's `key` member (map entries). */
  readonly keyId: bigint | undefined;
}

const LIST_HEADER = 16;

/** The places (at most `limit`, in storage order) where an entity's content refers to `target`. */
export function findReferencePlaces(entry: TypeEntry, content: Uint8Array, target: bigint, limit = 1): ReferencePlace[] {
  const view = new DataView(content.buffer, content.byteOffset, content.byteLength);
  const low = Number(target & 0xffffffffn) | 0;
  const high = Number((target >> 32n) & 0xffffffffn) | 0;
  const names = new Map<string, number>();
  for (const f of entry.fields) names.set(f.name, (names.get(f.name) ?? 0) + 1);
  const places: ReferencePlace[] = [];
  const matches = (at: number): boolean => at + 8 <= view.byteLength && view.getInt32(at, true) === low && view.getInt32(at + 4, true) === high;

  let pos = 0;
  for (const member of entry.fields) {
    if (places.length >= limit) break;
    const memberName = (names.get(member.name) ?? 0) > 1 && member.qualifier !== undefined ? `${member.qualifier}#${member.name}` : member.name;
    const size = fixedSizeOf(member);
    if (size !== undefined) {
      if (member.kind === 'reference' && matches(pos)) places.push({ member, memberName, indices: [], element: undefined, keyId: undefined });
      pos += size;
      continue;
    }
    if (pos + LIST_HEADER > view.byteLength) break;
    const total = Number(view.getBigInt64(pos, true));
    if (member.kind === 'list') {
      walkList(member.elements, view, pos, [], (outer, index, element, at, keyAt) => {
        if (!matches(at)) return true;
        const indices = [...outer, index];
        places.push({ member, memberName, indices, element, keyId: keyAt < 0 ? undefined : view.getBigInt64(keyAt, true) });
        return places.length < limit;
      });
    }
    pos += total;
  }
  return places;
}

/**
 * Visits every reference slot of a binary list at `pos`: its element indices, the nested
 * member's name (when elements have several members), its offset and, for a `value` member, the
 * offset of its element's `key` reference (-1 otherwise). Returns false when `visit` stopped it.
 */
function walkList(
  elements: readonly FieldDescriptor[],
  view: DataView,
  pos: number,
  outer: readonly number[],
  visit: (outer: readonly number[], index: number, element: string | undefined, at: number, keyAt: number) => boolean,
): boolean {
  if (pos + LIST_HEADER > view.byteLength || elements.length === 0) return true;
  const total = Number(view.getBigInt64(pos, true));
  const count = Number(view.getBigInt64(pos + 8, true));
  const end = Math.min(view.byteLength, pos + total);
  const single = elements.length === 1;
  let at = pos + LIST_HEADER;
  for (let i = 0; i < count && at < end; i++) {
    let keyAt = -1;
    for (const nested of elements) {
      const size = fixedSizeOf(nested);
      if (size !== undefined) {
        if (nested.kind === 'reference') {
          if (nested.name === 'key') keyAt = at;
          if (!visit(outer, i, single ? undefined : nested.name, at, nested.name === 'value' ? keyAt : -1)) return false;
        }
        at += size;
        continue;
      }
      if (at + LIST_HEADER > end) return true;
      const nestedTotal = Number(view.getBigInt64(at, true));
      if (nested.kind === 'list' && !walkList(nested.elements, view, at, [...outer, i], visit)) return false;
      at += nestedTotal;
    }
  }
  return true;
}
