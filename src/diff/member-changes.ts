import type { JsonValue, MemberView, ObjectView } from '../inspect/object-view.js';

/**
 * What changed in one object, member by member, from the typed views of its two records: plain
 * members as old → new; collections (list members: a collection's elements, an array's, a map's
 * entries) element by element — elements added, removed and moved, map values changed under the
 * same key — without listing the elements that stayed. References are compared by the object they
 * name (a referenced String that got a new text is a change of that String, not of this object).
 * Members that only one side's type version has are the type's change, reported once per type.
 */

export interface ValueChange {
  readonly member: string;
  readonly before: JsonValue;
  readonly after: JsonValue;
}

export interface ElementAt {
  readonly index: number;
  readonly value: JsonValue;
}

export interface ElementMove {
  readonly from: number;
  readonly to: number;
  readonly value: JsonValue;
}

export interface EntryChange {
  readonly key: JsonValue;
  readonly before: JsonValue;
  readonly after: JsonValue;
}

export interface ElementsChange {
  readonly member: string;
  readonly countBefore: number;
  readonly countAfter: number;
  readonly added: readonly ElementAt[];
  readonly removed: readonly ElementAt[];
  readonly moved: readonly ElementMove[];
  /** Map entries (elements with a key and a value) whose value changed. */
  readonly changedValues: readonly EntryChange[];
  /** Elements beyond the lists above (each list shows at most `MAX_LISTED_ELEMENTS`). */
  readonly unlisted: number;
  /** Only the first this many elements of each side were compared (a larger collection). */
  readonly comparedElements?: number;
}

export type MemberChange = ValueChange | ElementsChange;

/** Elements listed per kind of change and member. */
export const MAX_LISTED_ELEMENTS = 100;

export function memberChanges(before: ObjectView, after: ObjectView, comparedElements: number): MemberChange[] {
  const key = (m: MemberView): string => (m.declaringClass === undefined ? m.name : `${m.declaringClass}#${m.name}`);
  const old = new Map(before.members.map((m) => [key(m), m]));
  const out: MemberChange[] = [];
  for (const b of after.members) {
    const name = key(b);
    const a = old.get(name);
    if (a === undefined || a.type !== b.type) continue; // the type's change, not this object's
    if (a.elements === undefined || b.elements === undefined) {
      if (identity(a.value ?? null) !== identity(b.value ?? null)) out.push({ member: name, before: a.value ?? null, after: b.value ?? null });
      continue;
    }
    const change = elementsChange(name, a, b, comparedElements);
    if (change !== undefined) out.push(change);
  }
  return out;
}

function elementsChange(member: string, a: MemberView, b: MemberView, compared: number): ElementsChange | undefined {
  const x = a.elements ?? [];
  const y = b.elements ?? [];
  const countBefore = a.count ?? x.length;
  const countAfter = b.count ?? y.length;
  const truncated = countBefore > x.length || countAfter > y.length;
  const lists = { added: [] as ElementAt[], removed: [] as ElementAt[], moved: [] as ElementMove[], changedValues: [] as EntryChange[] };
  let unlisted = 0;
  const list = <T>(into: T[], item: T): void => {
    if (into.length < MAX_LISTED_ELEMENTS) into.push(item);
    else unlisted++;
  };
  if (x.length > 0 && y.length > 0 && x.every(isEntry) && y.every(isEntry)) {
    // A map: entries matched by key, their order not compared (a hash map's order is no content).
    const byKey = new Map<string, { index: number; entry: Entry }>();
    x.forEach((e, index) => byKey.set(identity((e as Entry).key), { index, entry: e as Entry }));
    y.forEach((e, index) => {
      const entry = e as Entry;
      const k = identity(entry.key);
      const previous = byKey.get(k);
      if (previous === undefined) list(lists.added, { index, value: entry });
      else {
        if (identity(previous.entry.value) !== identity(entry.value)) list(lists.changedValues, { key: entry.key, before: previous.entry.value, after: entry.value });
        byKey.delete(k);
      }
    });
    for (const { index, entry } of byKey.values()) list(lists.removed, { index, value: entry });
  } else {
    sequenceChange(x, y, lists, list);
  }
  const changed = lists.added.length + lists.removed.length + lists.moved.length + lists.changedValues.length + unlisted > 0 || countBefore !== countAfter;
  if (!changed) return undefined;
  const out: ElementsChange = { member, countBefore, countAfter, ...lists, unlisted };
  return truncated ? { ...out, comparedElements: compared } : out;
}

/**
 * A sequence: equal elements paired in order (the first unpaired old one for each new one); the
 * unpaired are removed and added; of the pairs, those outside a longest run that kept its order
 * moved (an insertion shifts what follows without moving it).
 */
function sequenceChange(
  x: readonly JsonValue[],
  y: readonly JsonValue[],
  lists: { added: ElementAt[]; removed: ElementAt[]; moved: ElementMove[] },
  list: <T>(into: T[], item: T) => void,
): void {
  const waiting = new Map<string, { indexes: number[]; next: number }>();
  x.forEach((v, i) => {
    const k = identity(v);
    const queue = waiting.get(k);
    if (queue === undefined) waiting.set(k, { indexes: [i], next: 0 });
    else queue.indexes.push(i);
  });
  const paired = new Int32Array(x.length).fill(-1);
  const fromOf = new Int32Array(y.length).fill(-1);
  y.forEach((v, j) => {
    const queue = waiting.get(identity(v));
    if (queue === undefined || queue.next >= queue.indexes.length) return;
    const i = queue.indexes[queue.next++]!;
    paired[i] = j;
    fromOf[j] = i;
  });
  x.forEach((v, i) => {
    if (paired[i] === -1) list(lists.removed, { index: i, value: v });
  });
  const kept = longestIncreasing(fromOf);
  y.forEach((v, j) => {
    const i = fromOf[j]!;
    if (i === -1) list(lists.added, { index: j, value: v });
    else if (kept[j] === 0) list(lists.moved, { from: i, to: j, value: v });
  });
}

/** Marks (1) the positions of a longest strictly increasing subsequence of the values ≥ 0. */
function longestIncreasing(values: Int32Array): Uint8Array {
  const tails: number[] = []; // position of the smallest tail of each length
  const previous = new Int32Array(values.length).fill(-1);
  for (let j = 0; j < values.length; j++) {
    const v = values[j]!;
    if (v < 0) continue;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (values[tails[mid]!]! < v) lo = mid + 1;
      else hi = mid;
    }
    previous[j] = lo > 0 ? tails[lo - 1]! : -1;
    tails[lo] = j;
  }
  const kept = new Uint8Array(values.length);
  for (let j = tails.length > 0 ? tails[tails.length - 1]! : -1; j >= 0; j = previous[j]!) kept[j] = 1;
  return kept;
}

interface Entry {
  readonly key: JsonValue;
  readonly value: JsonValue;
  readonly [member: string]: JsonValue;
}

function isEntry(v: JsonValue): boolean {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 2 && keys[0] === 'key' && keys[1] === 'value';
}

function isReference(v: JsonValue): v is { readonly objectId: string } {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as { objectId?: unknown }).objectId === 'string' && 'typeName' in v;
}

/** A text that is equal for equal values, references by the object they name. */
function identity(v: JsonValue): string {
  if (isReference(v)) return `@${v.objectId}`;
  if (Array.isArray(v)) return `[${v.map(identity).join(',')}]`;
  if (v !== null && typeof v === 'object') return `{${Object.entries(v).map(([k, e]) => `${JSON.stringify(k)}:${identity(e)}`).join(',')}}`;
  return JSON.stringify(v);
}
