import { assembleTypeDictionary } from '../format/dictionary-text.js';
import { parseTypeDictionary, type FieldDescriptor, type MemberDescriptor, type TypeDictionary, type TypeEntry } from '../format/type-dictionary.js';

/**
 * The type dictionary of a converted storage: the types whose objects are written, the types their
 * fields declare (as far as the source's dictionary knows them, so that the library finds the
 * entries it would otherwise register on its start), and the types of a fresh storage of the
 * family the library registers itself (its base dictionary). Older definitions of a type that no
 * written object uses are left out. Optionally the names are rewritten (MicroStream → EclipseStore)
 * as the Storage Migrator's dictionary parser maps them: each entry's type name and each member's
 * declared type name (nested list elements too), not the qualifiers (`Class#field`), which its
 * parser keeps as written; entries of the target's base dictionary that the source lacks are then
 * added when neither their id nor their name is taken.
 */

export interface CompactDictionary {
  /** The file text: the source's own text when nothing is left out or renamed, else assembled canonically. */
  readonly text: string;
  readonly entries: number;
  /** Entries of the source left out (definitions no written object uses). */
  readonly leftOut: number;
}

export interface CompactDictionaryOptions {
  readonly sourceText: string;
  readonly source: TypeDictionary;
  /** Type ids of the records written. */
  readonly used: ReadonlySet<bigint>;
  /** The dictionary of a fresh storage of the source's family (kept where it agrees with the source). */
  readonly sourceBaseText: string;
  /** Renaming to another family: the name function and that family's fresh dictionary. */
  readonly rename?: { readonly typeName: (name: string) => string; readonly targetBaseText: string } | undefined;
}

export function compactDictionary(options: CompactDictionaryOptions): CompactDictionary {
  const { source, used } = options;
  const kept = new Set<bigint>();
  const pending: TypeEntry[] = [];
  const keep = (entry: TypeEntry | undefined): void => {
    if (entry === undefined || kept.has(entry.typeId)) return;
    kept.add(entry.typeId);
    pending.push(entry);
  };
  for (const typeId of used) keep(source.byId.get(typeId));
  for (const base of parseTypeDictionary(options.sourceBaseText).entries) {
    const own = source.byId.get(base.typeId);
    if (own !== undefined && own.typeName === base.typeName) keep(own);
  }
  // The declared types of the kept entries' fields, transitively (the current definition of each name).
  const visitFields = (fields: readonly FieldDescriptor[]): void => {
    for (const field of fields) {
      if (field.kind === 'reference') keep(source.currentByName.get(field.typeName));
      else if (field.kind === 'list') visitFields(field.elements);
    }
  };
  while (pending.length > 0) visitFields(pending.pop()!.fields);

  let entries = source.entries.filter((e) => kept.has(e.typeId));
  const leftOut = source.entries.length - entries.length;
  if (options.rename === undefined) {
    if (leftOut === 0) return { text: options.sourceText, entries: entries.length, leftOut };
  } else {
    const rename = options.rename.typeName;
    entries = entries.map((e) => renamedEntry(e, rename));
    const ids = new Set(entries.map((e) => e.typeId));
    const names = new Set(entries.map((e) => e.typeName));
    for (const base of parseTypeDictionary(options.rename.targetBaseText).entries) {
      if (ids.has(base.typeId) || names.has(base.typeName)) continue;
      entries.push(base);
      ids.add(base.typeId);
      names.add(base.typeName);
    }
  }
  entries.sort((a, b) => (a.typeId < b.typeId ? -1 : a.typeId > b.typeId ? 1 : 0));
  return { text: assembleTypeDictionary(entries), entries: entries.length, leftOut };
}

/** An entry with its type name and its members' declared type names rewritten (qualifiers kept). */
function renamedEntry(entry: TypeEntry, rename: (name: string) => string): TypeEntry {
  const field = (f: FieldDescriptor): FieldDescriptor => {
    if (f.kind === 'reference') return { ...f, typeName: rename(f.typeName) };
    if (f.kind === 'list') return { ...f, elements: f.elements.map(field) };
    return f;
  };
  const member = (m: MemberDescriptor): MemberDescriptor => (m.kind === 'enumConstant' || m.kind === 'primitiveDefinition' ? m : field(m));
  return { ...entry, typeName: rename(entry.typeName), members: entry.members.map(member), fields: entry.fields.map(field) };
}
