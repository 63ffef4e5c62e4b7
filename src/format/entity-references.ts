import { fixedSizeOf, type EntityLayout } from './entity-layout.js';
import type { FieldDescriptor } from './type-dictionary.js';

/**
 * Every reference an entity holds (reference fields, and reference members of list elements at
 * any depth), null references included, as the two signed 32-bit halves of the id: a walk over a
 * whole storage then allocates nothing per reference. The layout must come from `layoutEntity`,
 * which has checked every list header.
 */
export function forEachReference(layout: EntityLayout, visit: (low: number, high: number) => void): void {
  const view = layout.view;
  for (const slot of layout.slots) {
    const field = slot.field;
    if (!slot.variable) {
      if (field.kind === 'reference') visit(view.getInt32(slot.offset, true), view.getInt32(slot.offset + 4, true));
      continue;
    }
    if (field.kind !== 'list' || !holdsReferences(field)) continue;
    let pos = slot.elementsOffset;
    for (let i = 0; i < slot.count; i++) pos = visitElement(field.elements, view, pos, visit);
  }
}

/** Visits the references of one list element at `pos`; returns the position after it. */
function visitElement(members: readonly FieldDescriptor[], view: DataView, pos: number, visit: (low: number, high: number) => void): number {
  for (const member of members) {
    const size = fixedSizeOf(member);
    if (size !== undefined) {
      if (member.kind === 'reference') visit(view.getInt32(pos, true), view.getInt32(pos + 4, true));
      pos += size;
      continue;
    }
    const end = pos + Number(view.getBigInt64(pos, true));
    if (member.kind === 'list' && holdsReferences(member)) {
      const count = Number(view.getBigInt64(pos + 8, true));
      let at = pos + 16;
      for (let i = 0; i < count; i++) at = visitElement(member.elements, view, at, visit);
    }
    pos = end;
  }
  return pos;
}

const referenceHolders = new WeakMap<FieldDescriptor, boolean>();

function holdsReferences(field: FieldDescriptor): boolean {
  if (field.kind === 'reference') return true;
  if (field.kind !== 'list') return false;
  let known = referenceHolders.get(field);
  if (known === undefined) {
    known = field.elements.some(holdsReferences);
    referenceHolders.set(field, known);
  }
  return known;
}
