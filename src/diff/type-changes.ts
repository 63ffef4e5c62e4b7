import type { FieldDescriptor, TypeDictionary, TypeEntry } from '../format/type-dictionary.js';

/**
 * Type changes between the dictionary versions the two sides' objects are stored with: a class
 * whose members were added, removed or retyped (a new dictionary entry of the same name, e.g.
 * after a field was added to the Java class). Reported once per type, not in every object's
 * member changes. Each side's version is the newest entry of the name its objects use.
 */

export interface MemberType {
  readonly member: string;
  readonly type: string;
}

export interface TypeChange {
  readonly typeName: string;
  readonly typeIdBefore: string;
  readonly typeIdAfter: string;
  readonly membersAdded: readonly MemberType[];
  readonly membersRemoved: readonly MemberType[];
  readonly membersRetyped: readonly { readonly member: string; readonly before: string; readonly after: string }[];
}

export function typeChanges(before: TypeDictionary, usedBefore: ReadonlySet<bigint>, after: TypeDictionary, usedAfter: ReadonlySet<bigint>): TypeChange[] {
  const a = newestByName(before, usedBefore);
  const b = newestByName(after, usedAfter);
  const out: TypeChange[] = [];
  for (const [name, x] of a) {
    const y = b.get(name);
    if (y === undefined) continue;
    const xs = membersOf(x);
    const ys = membersOf(y);
    const membersAdded = [...ys].filter(([m]) => !xs.has(m)).map(([member, type]) => ({ member, type }));
    const membersRemoved = [...xs].filter(([m]) => !ys.has(m)).map(([member, type]) => ({ member, type }));
    const membersRetyped = [...ys].filter(([m, t]) => xs.has(m) && xs.get(m) !== t).map(([member, type]) => ({ member, before: xs.get(member)!, after: type }));
    if (membersAdded.length + membersRemoved.length + membersRetyped.length === 0) continue;
    out.push({ typeName: name, typeIdBefore: String(x.typeId), typeIdAfter: String(y.typeId), membersAdded, membersRemoved, membersRetyped });
  }
  return out.sort((p, q) => (p.typeName < q.typeName ? -1 : p.typeName > q.typeName ? 1 : 0));
}

function newestByName(dictionary: TypeDictionary, used: ReadonlySet<bigint>): Map<string, TypeEntry> {
  const out = new Map<string, TypeEntry>();
  for (const typeId of used) {
    const entry = dictionary.byId.get(typeId);
    if (entry === undefined) continue;
    const seen = out.get(entry.typeName);
    if (seen === undefined || seen.typeId < entry.typeId) out.set(entry.typeName, entry);
  }
  return out;
}

/** Member name → type, named as the object view names them (`Class#name` only where a name repeats). */
function membersOf(entry: TypeEntry): Map<string, string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const f of entry.fields) (seen.has(f.name) ? repeated : seen).add(f.name);
  return new Map(entry.fields.map((f) => [repeated.has(f.name) ? `${f.qualifier ?? ''}#${f.name}` : f.name, typeText(f)]));
}

function typeText(field: FieldDescriptor): string {
  return field.kind === 'list' ? `[list](${field.elements.map((e) => `${typeText(e)} ${e.name}`).join(', ')})` : field.typeName;
}
