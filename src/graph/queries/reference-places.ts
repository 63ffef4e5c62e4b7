import { fixedSizeOf } from '../../format/entity-layout.js';
import type { FieldDescriptor, TypeEntry } from '../../format/type-dictionary.js';

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
  const low = Number(target & 0xffffffffn) | 0;
  const high = Number((target >> 32n) & 0xffffffffn) | 0;
  const places: ReferencePlace[] = [];
  walkPlaces(entry, content, (view, at) => view.getInt32(at, true) === low && view.getInt32(at + 4, true) === high, (place) => {
    places.push(place);
    return places.length < limit;
  });
  return places;
}

/**
 * Every reference slot of one record, sorted by the id in it, in typed arrays: one walk over a
 * large record (a collection of a hundred thousand elements) answers every later question about
 * it with a binary search. About 24 bytes a reference; records with lists in lists are not
 * indexed (`undefined`: ask `findReferencePlaces`).
 */
export class RecordReferencePlaces {
  private constructor(
    private readonly ids: BigInt64Array,
    /** Per sorted id: its slot (walk order). */
    private readonly slotOf: Int32Array,
    /** Per slot: index into `members`, element index (-1: not in a list), element name (index into `elements`, -1: none), key offset (-1: none). */
    private readonly memberOf: Uint16Array,
    private readonly indexOf: Int32Array,
    private readonly elementOf: Int16Array,
    private readonly keyAtOf: Int32Array,
    private readonly members: readonly { readonly member: FieldDescriptor; readonly memberName: string }[],
    private readonly elements: readonly string[],
  ) {}

  get references(): number {
    return this.ids.length;
  }

  static index(entry: TypeEntry, content: Uint8Array): RecordReferencePlaces | undefined {
    const ids: bigint[] = [];
    const member: number[] = [];
    const index: number[] = [];
    const element: number[] = [];
    const keyAt: number[] = [];
    const members: { member: FieldDescriptor; memberName: string }[] = [];
    const elements: string[] = [];
    let nested = false;
    walkPlaces(
      entry,
      content,
      (view, at) => view.getInt32(at, true) !== 0 || view.getInt32(at + 4, true) !== 0,
      (place, id, keyOffset) => {
        if (place.indices.length > 1) {
          nested = true;
          return false;
        }
        let m = members.findIndex((x) => x.member === place.member);
        if (m < 0) m = members.push({ member: place.member, memberName: place.memberName }) - 1;
        let e = place.element === undefined ? -1 : elements.indexOf(place.element);
        if (place.element !== undefined && e < 0) e = elements.push(place.element) - 1;
        ids.push(id);
        member.push(m);
        index.push(place.indices.length === 0 ? -1 : place.indices[0]!);
        element.push(e);
        keyAt.push(place.keyId === undefined ? -1 : keyOffset);
        return true;
      },
    );
    if (nested) return undefined;
    const order = Int32Array.from(ids.keys()).sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : a - b));
    const sortedIds = new BigInt64Array(order.length);
    order.forEach((slot, i) => (sortedIds[i] = ids[slot]!));
    return new RecordReferencePlaces(sortedIds, order, Uint16Array.from(member), Int32Array.from(index), Int16Array.from(element), Int32Array.from(keyAt), members, elements);
  }

  /** The first place (in storage order) of `target` in the record `content` (the one indexed). */
  find(content: Uint8Array, target: bigint): ReferencePlace | undefined {
    return this.findAll(content, target, 1)[0];
  }

  /** The places (at most `limit`, in storage order) of `target` in the record `content` (the one indexed). */
  findAll(content: Uint8Array, target: bigint, limit: number): ReferencePlace[] {
    let lo = 0;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ids[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    const view = new DataView(content.buffer, content.byteOffset, content.byteLength);
    const places: ReferencePlace[] = [];
    // Equal ids are sorted by slot: storage order.
    for (let k = lo; k < this.ids.length && this.ids[k] === target && places.length < limit; k++) {
      const slot = this.slotOf[k]!;
      const { member, memberName } = this.members[this.memberOf[slot]!]!;
      const index = this.indexOf[slot]!;
      const element = this.elementOf[slot]!;
      const keyAt = this.keyAtOf[slot]!;
      places.push({
        member,
        memberName,
        indices: index < 0 ? [] : [index],
        element: element < 0 ? undefined : this.elements[element],
        keyId: keyAt < 0 ? undefined : view.getBigInt64(keyAt, true),
      });
    }
    return places;
  }
}

/**
 * Walks the reference slots of an entity's content with its layout; for each slot that `accept`
 * takes, `found` hears its place, the id in it and the offset of its map entry's key (-1: none),
 * and stops the walk by returning false.
 */
function walkPlaces(
  entry: TypeEntry,
  content: Uint8Array,
  accept: (view: DataView, at: number) => boolean,
  found: (place: ReferencePlace, id: bigint, keyAt: number) => boolean,
): void {
  const view = new DataView(content.buffer, content.byteOffset, content.byteLength);
  const names = new Map<string, number>();
  for (const f of entry.fields) names.set(f.name, (names.get(f.name) ?? 0) + 1);
  const takes = (at: number): boolean => at + 8 <= view.byteLength && accept(view, at);
  let pos = 0;
  for (const member of entry.fields) {
    const memberName = (names.get(member.name) ?? 0) > 1 && member.qualifier !== undefined ? `${member.qualifier}#${member.name}` : member.name;
    const size = fixedSizeOf(member);
    if (size !== undefined) {
      if (member.kind === 'reference' && takes(pos)) {
        if (!found({ member, memberName, indices: [], element: undefined, keyId: undefined }, view.getBigInt64(pos, true), -1)) return;
      }
      pos += size;
      continue;
    }
    if (pos + LIST_HEADER > view.byteLength) return;
    const total = Number(view.getBigInt64(pos, true));
    if (member.kind === 'list') {
      const going = walkList(member.elements, view, pos, [], (outer, index, element, at, keyAt) => {
        if (!takes(at)) return true;
        const place = { member, memberName, indices: [...outer, index], element, keyId: keyAt < 0 ? undefined : view.getBigInt64(keyAt, true) };
        return found(place, view.getBigInt64(at, true), keyAt);
      });
      if (!going) return;
    }
    pos += total;
  }
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
