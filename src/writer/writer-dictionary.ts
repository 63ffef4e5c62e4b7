import { assembleTypeDictionary, assembleTypeEntry } from '../format/dictionary-text.js';
import { parseTypeDictionary, type MemberDescriptor, type TypeEntry } from '../format/type-dictionary.js';
import { fieldTypeEntry } from './field-type-entries.js';
import { makeTypeEntry } from './type-definitions.js';
import { MICROSTREAM_WRITER, type WriterFamily } from './writer-family.js';

/**
 * The type dictionary of a storage being written: the entries read or inherited, plus types
 * defined by the writer. New types get ids above every id present (at least 1 000 001,
 * storage-format.md §3.5); a changed layout of an existing type name gets a new id and the old
 * entry stays (§7.4). The text is always the canonical one, sorted by type id (§7.3).
 *
 * Like Java, defining a reflectively stored class also registers the declared types of its fields
 * that are not known yet, right after the class (see field-type-entries.ts): interfaces and
 * abstract classes as entries without members, object arrays with their element list. Other
 * classes named by a field must be defined before the next store (`unregisteredFieldTypes`).
 */
export class WriterDictionary {
  private readonly byId = new Map<bigint, TypeEntry>();
  private readonly byName = new Map<string, TypeEntry[]>();
  private maxTypeId = 0n;
  /** Bumped whenever an entry is added; the writer rewrites the file when it changes. */
  private revisionCount = 0;
  /** The text this dictionary was parsed from, written as it is until an entry is added. */
  private sourceText: string | undefined;

  constructor(entries: readonly TypeEntry[]) {
    for (const entry of entries) this.insert(entry);
    this.revisionCount = 0;
  }

  /** The dictionary of a fresh storage of the family (MicroStream 4.1 unless told otherwise). */
  static base(family: WriterFamily = MICROSTREAM_WRITER): WriterDictionary {
    return WriterDictionary.parse(family.baseDictionaryText);
  }

  /**
   * A dictionary read from a file. Its text is kept as it is (a Java-written file can differ from
   * the canonical assembly, e.g. in the padding of qualifiers of classes Java could not load) until
   * an entry is added; then the whole file is assembled canonically, as Java does.
   */
  static parse(text: string, file?: string): WriterDictionary {
    const dictionary = new WriterDictionary(parseTypeDictionary(text, file).entries);
    dictionary.sourceText = text;
    return dictionary;
  }

  get revision(): number {
    return this.revisionCount;
  }

  /** All entries sorted by type id. */
  get entries(): TypeEntry[] {
    return [...this.byId.values()].sort((a, b) => (a.typeId < b.typeId ? -1 : a.typeId > b.typeId ? 1 : 0));
  }

  byTypeId(typeId: bigint): TypeEntry | undefined {
    return this.byId.get(typeId);
  }

  /** The entry with the highest type id for a name (the current version), if any. */
  current(typeName: string): TypeEntry | undefined {
    const versions = this.byName.get(typeName);
    return versions?.[versions.length - 1];
  }

  /** Like `current`, but the type must exist. */
  require(typeName: string): TypeEntry {
    const entry = this.current(typeName);
    if (entry === undefined) throw new RangeError(`type ${typeName} is not in the dictionary`);
    return entry;
  }

  /** Every entry of a name, oldest (lowest type id) first. */
  versions(typeName: string): readonly TypeEntry[] {
    return this.byName.get(typeName) ?? [];
  }

  /**
   * The entry for a type name with exactly these members: an existing one with the same layout
   * (the newest such), else a new entry with the next type id.
   */
  define(typeName: string, members: readonly MemberDescriptor[]): TypeEntry {
    const probe = makeTypeEntry(0n, typeName, members);
    const layout = memberText(probe);
    const versions = this.byName.get(typeName) ?? [];
    for (let i = versions.length - 1; i >= 0; i--) {
      if (memberText(versions[i]!) === layout) return versions[i]!;
    }
    const entry = makeTypeEntry(this.nextTypeId(), typeName, members);
    this.insert(entry);
    this.registerFieldTypes(entry);
    return entry;
  }

  /**
   * The entry of an interface or abstract class (no members, no entities): what Java registers for
   * such a type when a field declares it. Returns the existing entry if the name is known.
   */
  defineAbstract(typeName: string): TypeEntry {
    const existing = this.current(typeName);
    if (existing !== undefined) return existing;
    const entry = makeTypeEntry(this.nextTypeId(), typeName, []);
    this.insert(entry);
    return entry;
  }

  /**
   * Reflective fields of current entries whose declared type has no entry, as `Class#field: Type`.
   * Java would register these types when it opens the storage; a writer must not leave any.
   */
  unregisteredFieldTypes(): string[] {
    const missing: string[] = [];
    for (const versions of this.byName.values()) {
      const entry = versions[versions.length - 1]!;
      for (const field of entry.fields) {
        if (field.kind === 'reference' && field.qualifier !== undefined && !this.byName.has(field.typeName)) {
          missing.push(`${field.qualifier}#${field.name}: ${field.typeName}`);
        }
      }
    }
    return missing;
  }

  private nextTypeId(): bigint {
    return this.maxTypeId >= 1_000_000n ? this.maxTypeId + 1n : 1_000_001n;
  }

  /** Registers the field types Java would ensure for a reflective class (in field order). */
  private registerFieldTypes(entry: TypeEntry): void {
    for (const field of entry.fields) {
      if (field.kind !== 'reference' || field.qualifier === undefined || this.byName.has(field.typeName)) continue;
      const known = fieldTypeEntry(field.typeName);
      if (known === undefined) continue;
      const typeId = known.nativeTypeId !== undefined && !this.byId.has(known.nativeTypeId) ? known.nativeTypeId : this.nextTypeId();
      this.insert(makeTypeEntry(typeId, field.typeName, known.members));
    }
  }

  /** The file text: the parsed text while unchanged, else the canonical assembly. */
  text(): string {
    if (this.revisionCount === 0 && this.sourceText !== undefined) return this.sourceText;
    return assembleTypeDictionary(this.entries);
  }

  private insert(entry: TypeEntry): void {
    if (this.byId.has(entry.typeId)) throw new RangeError(`type id ${entry.typeId} is defined twice`);
    this.byId.set(entry.typeId, entry);
    const versions = this.byName.get(entry.typeName) ?? [];
    versions.push(entry);
    versions.sort((a, b) => (a.typeId < b.typeId ? -1 : 1));
    this.byName.set(entry.typeName, versions);
    if (entry.typeId > this.maxTypeId) this.maxTypeId = entry.typeId;
    this.revisionCount++;
  }
}

function memberText(entry: TypeEntry): string {
  const text = assembleTypeEntry(entry);
  return text.slice(text.indexOf('{'));
}
