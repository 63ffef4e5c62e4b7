import { FormatError } from '../errors.js';
import { fixedSizeOf, layoutEntity, type MemberSlot, type VariableSlot } from '../format/entity-layout.js';
import { javaDoubleBitsToString, javaFloatBitsToString } from '../javatext/java-float-text.js';
import type { JavaTimeZone } from '../javatext/java-time-zones.js';
import type { FieldDescriptor, TypeDictionary, TypeEntry } from '../format/type-dictionary.js';
import { simplifiedRenderer } from './simplified-value.js';

/**
 * The type-aware view of one entity for our own API: every member by name with its value in
 * natural JSON (booleans and numbers as JSON, `long` and ids as decimal strings, texts as
 * strings, references as `{ objectId, typeName }`), list members (collections, arrays, map
 * entries) as paged elements, and for JDK value types the Java text as well. Unlike the
 * Java-compatible description, nothing here imitates Java's REST adapter.
 */

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** What is known about a referenced object (resolved by the caller, e.g. from the graph). */
export interface ReferenceInfo {
  readonly objectId: string;
  /** Null when the id is neither stored nor a JDK constant. */
  readonly typeName: string | null;
  /** Java text of a JDK value type (String, Integer, BigDecimal, Date, ...), shortened. */
  readonly text?: string;
  readonly missing?: boolean;
}

export interface MemberView {
  readonly name: string;
  /** Present where several members of the type share the name. */
  readonly declaringClass?: string;
  /** Dictionary type of the member: a primitive, a class name, `[char]`, `[byte]` or `[list]`. */
  readonly type: string;
  /** The value of a fixed-size or `[char]` member. */
  readonly value?: JsonValue;
  /** For `[byte]` and `[list]` members: element count and the window `[offset, offset + elements.length)`. */
  readonly count?: number;
  readonly offset?: number;
  readonly elements?: readonly JsonValue[];
}

export interface ObjectView {
  readonly objectId: string;
  readonly typeId: string;
  readonly typeName: string;
  /** 1-based version of the type among the dictionary's entries of the same name, and how many there are. */
  readonly typeVersion: number;
  readonly typeVersions: number;
  readonly currentType: boolean;
  /** Java `toString()` of a JDK value type. */
  readonly text?: string;
  readonly members: readonly MemberView[];
}

export interface ViewableEntity {
  readonly objectId: bigint;
  readonly typeId: bigint;
  readonly content: Uint8Array;
  readonly file: string;
  readonly offset: number;
}

export interface ObjectViewOptions {
  /** Window over the elements of every list member. */
  readonly offset: number;
  readonly limit: number;
  readonly timeZone: JavaTimeZone;
  /** Resolves the referenced ids found (all at once, so the caller can batch reads). */
  readonly resolve: (ids: readonly bigint[]) => Promise<ReadonlyMap<bigint, ReferenceInfo>>;
  /**
   * Only the members at these positions of the layout's slots are decoded and shown (a diff that
   * compared the members' bytes first decodes only those that differ); all when absent.
   */
  readonly onlySlots?: ReadonlySet<number>;
  /** Whether the Java text of a JDK value type is rendered (default true). */
  readonly withText?: boolean;
}

const LIST_HEADER = 16;

/** A reference found while decoding, replaced by its ReferenceInfo at the end. */
class Ref {
  constructor(readonly id: bigint) {}
}

type Decoded = null | boolean | number | string | Ref | readonly Decoded[] | { readonly [key: string]: Decoded };

export async function describeObjectView(entity: ViewableEntity, dictionary: TypeDictionary, options: ObjectViewOptions): Promise<ObjectView> {
  const entry = dictionary.byId.get(entity.typeId);
  if (entry === undefined) {
    throw new FormatError('FORMAT_UNKNOWN_TYPE_ID', `object ${entity.objectId} has type id ${entity.typeId}, which the type dictionary lacks`, {
      file: entity.file,
      offset: entity.offset + 8,
    });
  }
  const layout = layoutEntity(entry, entity.content, { file: entity.file, offset: entity.offset + 24 });
  const facts = typeFacts(dictionary, entry);
  const repeated = facts.repeated;
  const members: DecodedMember[] = [];
  const only = options.onlySlots;
  for (let i = 0; i < layout.slots.length; i++) {
    if (only !== undefined && !only.has(i)) continue;
    const slot = layout.slots[i]!;
    const field = slot.field;
    const declaringClass = repeated.has(field.name) ? field.qualifier : undefined;
    if (!slot.variable) {
      members.push(valueMember(field, declaringClass, decodeFixed(field, layout.view, slot.offset)));
    } else if (field.kind === 'chars') {
      members.push(valueMember(field, declaringClass, charsAt(layout.view, slot.elementsOffset, slot.count)));
    } else {
      const from = Math.min(options.offset, slot.count);
      const to = Math.min(slot.count, from + options.limit);
      members.push(listMember(field, declaringClass, slot.count, from, listWindow(layout.view, slot, from, to)));
    }
  }
  const refs: bigint[] = [];
  collectRefs(members, refs);
  const resolved = refs.length === 0 ? NOTHING_RESOLVED : await options.resolve([...new Set(refs)]);
  const text = options.withText === false ? undefined : valueText(entry, dictionary, layout, entity.objectId, options.timeZone);
  const objectId = String(entity.objectId);
  const typeId = String(entity.typeId);
  const { typeVersion, typeVersions, currentType } = facts;
  const views = members.map((m) => finish(m, resolved) as unknown as MemberView);
  return text === undefined
    ? { objectId, typeId, typeName: entry.typeName, typeVersion, typeVersions, currentType, members: views }
    : { objectId, typeId, typeName: entry.typeName, typeVersion, typeVersions, currentType, text, members: views };
}

const NOTHING_RESOLVED: ReadonlyMap<bigint, ReferenceInfo> = new Map();

/** What a view says about its type besides the members: the same for every object of the type. */
interface TypeFacts {
  readonly typeVersion: number;
  readonly typeVersions: number;
  readonly currentType: boolean;
  readonly repeated: ReadonlySet<string>;
}

/**
 * Per dictionary (a parsed dictionary is never changed: a new one replaces it) and entry, found
 * once: looking through all entries for the type's versions on every view cost several
 * microseconds per object where a diff describes 100,000 of them.
 */
const factsByDictionary = new WeakMap<TypeDictionary, Map<TypeEntry, TypeFacts>>();

function typeFacts(dictionary: TypeDictionary, entry: TypeEntry): TypeFacts {
  let byEntry = factsByDictionary.get(dictionary);
  if (byEntry === undefined) factsByDictionary.set(dictionary, (byEntry = new Map()));
  let facts = byEntry.get(entry);
  if (facts === undefined) {
    const versions = dictionary.entries.filter((e) => e.typeName === entry.typeName).sort((a, b) => (a.typeId < b.typeId ? -1 : 1));
    facts = {
      typeVersion: versions.indexOf(entry) + 1,
      typeVersions: versions.length,
      currentType: dictionary.currentByName.get(entry.typeName) === entry,
      repeated: repeatedNames(entry),
    };
    byEntry.set(entry, facts);
  }
  return facts;
}

/**
 * A member as decoded, its keys in the order the view shows them. Built as object literals, not
 * by spreading a common head (`{ ...head, value }`): with the spreads every view promoted about
 * 300 bytes to the old generation (`--trace-gc-nvp`, 20,000 objects of a 10M storage), none now
 * (`npm run bench:garbage` measures it).
 */
interface DecodedMember {
  readonly name: string;
  readonly declaringClass?: string;
  readonly type: string;
  readonly value?: Decoded;
  readonly count?: number;
  readonly offset?: number;
  readonly elements?: Decoded[];
}

function valueMember(field: FieldDescriptor, declaringClass: string | undefined, value: Decoded): DecodedMember {
  return declaringClass === undefined
    ? { name: field.name, type: field.typeName, value }
    : { name: field.name, declaringClass, type: field.typeName, value };
}

function listMember(field: FieldDescriptor, declaringClass: string | undefined, count: number, offset: number, elements: Decoded[]): DecodedMember {
  return declaringClass === undefined
    ? { name: field.name, type: field.typeName, count, offset, elements }
    : { name: field.name, declaringClass, type: field.typeName, count, offset, elements };
}

function repeatedNames(entry: TypeEntry): Set<string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const f of entry.fields) (seen.has(f.name) ? repeated : seen).add(f.name);
  return repeated;
}

function valueText(entry: TypeEntry, dictionary: TypeDictionary, layout: ReturnType<typeof layoutEntity>, objectId: bigint, timeZone: JavaTimeZone): string | undefined {
  const renderer = simplifiedRenderer(entry, dictionary);
  if (renderer === undefined) return undefined;
  try {
    return renderer(layout, { dictionary, timeZone, objectId });
  } catch {
    return undefined; // a value Java cannot rebuild (e.g. a NaN wrapper): the members still show it
  }
}

/**
 * The value a view shows for one member that is neither a reference nor a list (a primitive or a
 * `[char]` text), read straight from its layout slot without building a view; undefined for the
 * others. For a diff that describes many changed objects one differing member at a time.
 */
export function plainMemberValue(view: DataView, slot: MemberSlot): JsonValue | undefined {
  const field = slot.field;
  if (!slot.variable) return field.kind === 'primitive' ? (decodeFixed(field, view, slot.offset) as JsonValue) : undefined;
  return field.kind === 'chars' ? charsAt(view, slot.elementsOffset, slot.count) : undefined;
}

function decodeFixed(field: FieldDescriptor, view: DataView, pos: number): Decoded {
  if (field.kind === 'reference') {
    const id = view.getBigInt64(pos, true);
    return id === 0n ? null : new Ref(id);
  }
  if (field.kind !== 'primitive') return null;
  switch (field.typeName) {
    case 'boolean':
      return view.getUint8(pos) !== 0;
    case 'byte':
      return view.getInt8(pos);
    case 'short':
      return view.getInt16(pos, true);
    case 'char':
      return String.fromCharCode(view.getUint16(pos, true));
    case 'int':
      return view.getInt32(pos, true);
    case 'long':
      return view.getBigInt64(pos, true).toString();
    case 'float':
      return floatValue(javaFloatBitsToString(view.getUint32(pos, true)));
    case 'double':
      return floatValue(javaDoubleBitsToString(view.getBigUint64(pos, true)));
  }
}

/** Finite values as JSON numbers; NaN, infinities and -0.0 (which JSON cannot carry) as Java text. */
function floatValue(javaText: string): number | string {
  const value = Number(javaText);
  return Number.isFinite(value) && !Object.is(value, -0) ? value : javaText;
}

function charsAt(view: DataView, start: number, count: number): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i += 8192) {
    const n = Math.min(8192, count - i);
    const units = new Array<number>(n);
    for (let k = 0; k < n; k++) units[k] = view.getUint16(start + 2 * (i + k), true);
    parts.push(String.fromCharCode(...units));
  }
  return parts.join('');
}

/** Elements `[from, to)` of a top-level `[byte]` or `[list]` member. */
function listWindow(view: DataView, slot: VariableSlot, from: number, to: number): Decoded[] {
  const field = slot.field;
  const out: Decoded[] = [];
  if (field.kind === 'bytes') {
    for (let i = from; i < to; i++) out.push(view.getInt8(slot.elementsOffset + i));
    return out;
  }
  if (field.kind !== 'list') return out;
  let pos = slot.elementsOffset;
  if (slot.elementSize !== undefined) pos += from * slot.elementSize;
  else for (let i = 0; i < from; i++) pos = decodeElement(field.elements, view, pos, slot.end, false)[1];
  for (let i = from; i < to; i++) {
    const [value, next] = decodeElement(field.elements, view, pos, slot.end, true);
    out.push(value);
    pos = next;
  }
  return out;
}

/** One list element: the value of its single member, or an object of its members by name. */
function decodeElement(elements: readonly FieldDescriptor[], view: DataView, pos: number, limit: number, keep: boolean): [Decoded, number] {
  if (elements.length === 1) return decodeNested(elements[0]!, view, pos, limit, keep);
  const entry: Record<string, Decoded> = {};
  for (const nested of elements) {
    const [value, next] = decodeNested(nested, view, pos, limit, keep);
    if (keep) entry[nested.name] = value;
    pos = next;
  }
  return [entry, pos];
}

function decodeNested(field: FieldDescriptor, view: DataView, pos: number, limit: number, keep: boolean): [Decoded, number] {
  const size = fixedSizeOf(field);
  if (size !== undefined) {
    if (pos + size > limit) throw badList(field, pos);
    return [keep ? decodeFixed(field, view, pos) : null, pos + size];
  }
  if (pos + LIST_HEADER > limit) throw badList(field, pos);
  const total = Number(view.getBigInt64(pos, true));
  const count = Number(view.getBigInt64(pos + 8, true));
  const end = pos + total;
  if (total < LIST_HEADER || end > limit || count < 0) throw badList(field, pos);
  if (!keep) return [null, end];
  const start = pos + LIST_HEADER;
  if (field.kind === 'chars') return [charsAt(view, start, Math.min(count, (total - LIST_HEADER) / 2)), end];
  const out: Decoded[] = [];
  if (field.kind === 'bytes') {
    for (let i = 0; i < count && start + i < end; i++) out.push(view.getInt8(start + i));
    return [out, end];
  }
  if (field.kind === 'list') {
    let at = start;
    for (let i = 0; i < count; i++) {
      const [value, next] = decodeElement(field.elements, view, at, end, true);
      out.push(value);
      at = next;
    }
  }
  return [out, end];
}

function badList(field: FieldDescriptor, pos: number): FormatError {
  return new FormatError('FORMAT_BAD_LIST', `list element ${field.name} runs past its list`, { offset: pos });
}

function collectRefs(value: unknown, out: bigint[]): void {
  if (value instanceof Ref) out.push(value.id);
  else if (Array.isArray(value)) for (const v of value) collectRefs(v, out);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) collectRefs(v, out);
}

function finish(value: unknown, resolved: ReadonlyMap<bigint, ReferenceInfo>): JsonValue {
  if (value instanceof Ref) return (resolved.get(value.id) ?? { objectId: String(value.id), typeName: null, missing: true }) as unknown as JsonValue;
  if (Array.isArray(value)) return value.map((v) => finish(v, resolved));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value)) out[k] = finish(v, resolved);
    return out;
  }
  return value as JsonValue;
}

/** One difference between two views of an object. */
export interface MemberChange {
  readonly member: string;
  /** For list members: element index (within the window compared). */
  readonly index?: number;
  readonly before: JsonValue | undefined;
  readonly after: JsonValue | undefined;
}

/** What changed from `older` to `newer`, member by member (list members within their windows). */
export function diffObjectViews(older: ObjectView, newer: ObjectView): MemberChange[] {
  const key = (m: MemberView): string => (m.declaringClass === undefined ? m.name : `${m.declaringClass}#${m.name}`);
  const before = new Map(older.members.map((m) => [key(m), m]));
  const after = new Map(newer.members.map((m) => [key(m), m]));
  const changes: MemberChange[] = [];
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(name);
    const b = after.get(name);
    if (a === undefined || b === undefined) {
      changes.push({ member: name, before: a === undefined ? undefined : memberValue(a), after: b === undefined ? undefined : memberValue(b) });
      continue;
    }
    if (a.elements === undefined || b.elements === undefined) {
      if (!same(a.value, b.value)) changes.push({ member: name, before: a.value, after: b.value });
      continue;
    }
    if (a.count !== b.count) changes.push({ member: name, before: a.count ?? 0, after: b.count ?? 0 });
    const n = Math.max(a.elements.length, b.elements.length);
    for (let i = 0; i < n; i++) {
      const x = a.elements[i];
      const y = b.elements[i];
      if (!same(x, y)) changes.push({ member: name, index: (a.offset ?? 0) + i, before: x, after: y });
    }
  }
  return changes;
}

function memberValue(m: MemberView): JsonValue {
  return m.elements ?? m.value ?? null;
}

function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
