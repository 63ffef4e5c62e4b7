import { fixedSizeOf, type EntityLayout } from '../format/entity-layout.js';
import { isObjectIdHalves } from '../format/ids.js';
import type { FieldDescriptor } from '../format/type-dictionary.js';

/**
 * MicroStream loads the object graph reachable from the roots eagerly (everything not behind a
 * `Lazy`), and the first reference to an id that has no record ends the start ("No entity found
 * for objectId …"). So `rescue` rewrites every reference to an object it cannot recover, in the
 * copy it writes, the way the application would have had it without the object:
 * - a field: null;
 * - an element of an array or of a list: null, at its position (the other positions stay);
 * - an entry of a set, a map, a queue or a deque whose key, value or element is lost: the entry is
 *   left out (a null key would collide in a hashed or sorted collection, and queues refuse null);
 * - the subject of a `Lazy`: null, that is an empty lazy reference.
 */

export type ReplacementAction = 'null' | 'empty-lazy' | 'entry-left-out';

export interface ReferenceReplacement {
  readonly owner: bigint;
  readonly ownerType: string;
  /** The field, or the list with the element's position (and the element's member when it has several). */
  readonly member: string;
  readonly lost: bigint;
  readonly action: ReplacementAction;
}

/** Whether a reference (two signed 32-bit halves) points to an object the new storage will not have. */
export type MissingTest = (low: number, high: number) => boolean;

const LIST_HEADER = 16;

/**
 * Collections whose entries are left out rather than nulled (by simple class name): hashed and
 * sorted sets and maps (JDK's and MicroStream's/Eclipse Serializer's), queues and deques.
 */
const LEAVE_ENTRIES_OUT = /(?:Map|Set|Hashtable|Properties|Queue|Deque|HashEnum|HashTable)$/;

const LAZY_TYPE = /\.reference\.Lazy\$Default$/;

export function leavesEntriesOut(typeName: string): boolean {
  if (typeName.startsWith('[')) return false;
  const simple = typeName.slice(typeName.lastIndexOf('.') + 1);
  return LEAVE_ENTRIES_OUT.test(simple.slice(simple.lastIndexOf('$') + 1));
}

/**
 * The record with every reference that `missing` names replaced (a new buffer), or undefined when
 * it has none. `record` is a whole record (24-byte header and content); `layout` its content's.
 */
export function replaceMissingReferences(
  record: Buffer,
  layout: EntityLayout,
  missing: MissingTest,
  onReplace: (replacement: ReferenceReplacement) => void,
): Buffer | undefined {
  const owner = record.readBigInt64LE(16);
  const ownerType = layout.entry.typeName;
  const lazy = LAZY_TYPE.test(ownerType);
  const dropEntries = leavesEntriesOut(ownerType);
  const content = Buffer.from(record.subarray(24));
  const view = new DataView(content.buffer, content.byteOffset, content.byteLength);
  const report = (member: string, low: number, high: number, action: ReplacementAction): void =>
    onReplace({ owner, ownerType, member, lost: joinHalves(low, high), action });
  let changed = false;
  // Pieces of the new content, when entries are left out (else the content is patched in place).
  const pieces: Buffer[] = [];
  let copiedTo = 0;
  for (const slot of layout.slots) {
    const field = slot.field;
    if (!slot.variable) {
      if (field.kind !== 'reference') continue;
      const low = view.getInt32(slot.offset, true);
      const high = view.getInt32(slot.offset + 4, true);
      if (!isObjectIdHalves(low, high) || !missing(low, high)) continue;
      content.fill(0, slot.offset, slot.offset + 8);
      report(field.name, low, high, lazy ? 'empty-lazy' : 'null');
      changed = true;
      continue;
    }
    if (field.kind !== 'list' || !field.elements.some(holdsReferences)) continue;
    let pos = slot.elementsOffset;
    const kept: Buffer[] = [];
    let keptCount = 0;
    for (let i = 0; i < slot.count; i++) {
      const start = pos;
      const lostHere: [number, number, string][] = [];
      pos = visitElement(field.elements, view, pos, '', (at, member) => {
        const low = view.getInt32(at, true);
        const high = view.getInt32(at + 4, true);
        if (!isObjectIdHalves(low, high) || !missing(low, high)) return;
        lostHere.push([low, high, member]);
        if (!dropEntries) content.fill(0, at, at + 8);
      });
      const label = (member: string): string => (member === '' ? `${field.name}[${i}]` : `${field.name}[${i}] ${member}`);
      for (const [low, high, member] of lostHere) report(label(member), low, high, dropEntries ? 'entry-left-out' : 'null');
      if (lostHere.length > 0) changed = true;
      if (dropEntries && lostHere.length === 0) {
        kept.push(content.subarray(start, pos));
        keptCount++;
      }
    }
    if (!dropEntries || keptCount === slot.count) continue;
    const header = Buffer.alloc(LIST_HEADER);
    const elementBytes = kept.reduce((n, k) => n + k.length, 0);
    header.writeBigInt64LE(BigInt(LIST_HEADER + elementBytes), 0);
    header.writeBigInt64LE(BigInt(keptCount), 8);
    pieces.push(content.subarray(copiedTo, slot.offset), header, ...kept);
    copiedTo = slot.end;
  }
  if (!changed) return undefined;
  const head = Buffer.from(record.subarray(0, 24));
  const body = pieces.length === 0 ? content : Buffer.concat([...pieces, content.subarray(copiedTo)]);
  head.writeBigInt64LE(BigInt(24 + body.length), 0);
  return Buffer.concat([head, body]);
}

/** Calls `visit` with the position of every reference of the list element at `pos`; returns the position after it. */
function visitElement(members: readonly FieldDescriptor[], view: DataView, pos: number, path: string, visit: (at: number, member: string) => void): number {
  for (const member of members) {
    const size = fixedSizeOf(member);
    const name = members.length > 1 ? `${path}${path === '' ? '' : '.'}${member.name}` : path;
    if (size !== undefined) {
      if (member.kind === 'reference') visit(pos, name);
      pos += size;
      continue;
    }
    const end = pos + Number(view.getBigInt64(pos, true));
    if (member.kind === 'list' && member.elements.some(holdsReferences)) {
      const count = Number(view.getBigInt64(pos + 8, true));
      let at = pos + LIST_HEADER;
      for (let i = 0; i < count; i++) at = visitElement(member.elements, view, at, `${name}[${i}]`, visit);
    }
    pos = end;
  }
  return pos;
}

function holdsReferences(field: FieldDescriptor): boolean {
  return field.kind === 'reference' || (field.kind === 'list' && field.elements.some(holdsReferences));
}

function joinHalves(low: number, high: number): bigint {
  return (BigInt(high) << 32n) | BigInt(low >>> 0);
}
