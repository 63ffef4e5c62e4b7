/**
 * The type dictionary as the REST API serves it (`GET /{instance}/dictionary`, the text of
 * `PersistenceTypeDictionary.ptd`), parsed in the browser. Grammar: storage-format.md §7.2; the
 * parser is whitespace-tolerant and recognises keywords by prefix, like Java's.
 */

export type MemberKind = 'field' | 'list' | 'char' | 'byte' | 'enum' | 'primitive';

export interface Member {
  readonly kind: MemberKind;
  /** Declared type name of a field; `[list]`, `[char]` or `[byte]` for variable-length members. */
  readonly typeName: string;
  /** Declaring class of a reflective field (`conformance.bookstore.Person`), if given. */
  readonly qualifier: string | undefined;
  /** Field name, enum constant name, or the definition text of a primitive. */
  readonly name: string;
  /** Members of one element of a `[list]`. */
  readonly nested: readonly Member[];
}

export interface TypeEntry {
  /** Type id as a decimal string without leading zeros. */
  readonly id: string;
  readonly name: string;
  /** All members as listed, pseudo members (enum constants, primitive definitions) included. */
  readonly members: readonly Member[];
  /** Members stored in entities, in order. */
  readonly instanceMembers: readonly Member[];
  /** Instance members of fixed size: the first `length` values of an object description. */
  readonly fixed: readonly Member[];
  /** Variable-length instance members (`[list]`, `[char]`, `[byte]`), one array each in `data`. */
  readonly variable: readonly Member[];
  readonly enumConstants: readonly string[];
  /** The definition text of a primitive type (`32 bit integer signed`). */
  readonly primitive: string | undefined;
  /** The entry exactly as written in the dictionary text. */
  readonly source: string;
}

export const PRIMITIVE_TYPES: ReadonlySet<string> = new Set(['byte', 'boolean', 'short', 'char', 'int', 'float', 'long', 'double']);

export class DictionaryParseError extends Error {
  constructor(message: string, readonly offset: number) {
    super(`${message} at character ${offset}`);
    this.name = 'DictionaryParseError';
  }
}

export function isReferenceMember(member: Member): boolean {
  return member.kind === 'field' && !PRIMITIVE_TYPES.has(member.typeName);
}

export function isVariableMember(member: Member): boolean {
  return member.kind === 'list' || member.kind === 'char' || member.kind === 'byte';
}

function isWs(code: number): boolean {
  return code <= 0x20;
}

class Cursor {
  pos = 0;
  constructor(readonly text: string) {}

  ws(): void {
    while (this.pos < this.text.length && isWs(this.text.charCodeAt(this.pos))) this.pos++;
  }
  atEnd(): boolean {
    return this.pos >= this.text.length;
  }
  peek(): string {
    return this.text.charAt(this.pos);
  }
  startsWith(prefix: string): boolean {
    return this.text.startsWith(prefix, this.pos);
  }
  expect(char: string, what: string): void {
    this.ws();
    if (this.peek() !== char) throw new DictionaryParseError(`expected ${what}`, this.pos);
    this.pos++;
  }
  /** One or more characters that are neither whitespace nor one of `stops`. */
  token(stops: string, what: string): string {
    this.ws();
    const start = this.pos;
    while (this.pos < this.text.length) {
      const c = this.text.charAt(this.pos);
      if (isWs(c.charCodeAt(0)) || stops.includes(c)) break;
      this.pos++;
    }
    if (this.pos === start) throw new DictionaryParseError(`expected ${what}`, start);
    return this.text.slice(start, this.pos);
  }
}

export function parseDictionary(text: string): TypeEntry[] {
  const cursor = new Cursor(text);
  const entries: TypeEntry[] = [];
  cursor.ws();
  while (!cursor.atEnd()) {
    const start = cursor.pos;
    const idText = cursor.token('{', 'a type id');
    if (!/^[-+]?\d+$/.test(idText)) throw new DictionaryParseError(`invalid type id "${idText}"`, start);
    const id = BigInt(idText).toString();
    const name = cursor.token('{', 'a type name');
    cursor.expect('{', '"{"');
    const members = parseMembers(cursor, '}', false);
    cursor.pos++; // the closing brace
    entries.push(makeEntry(id, name, members, text.slice(start, cursor.pos)));
    cursor.ws();
  }
  return entries;
}

function parseMembers(cursor: Cursor, close: string, nested: boolean): Member[] {
  const members: Member[] = [];
  for (;;) {
    cursor.ws();
    if (cursor.atEnd()) throw new DictionaryParseError(`missing "${close}"`, cursor.pos);
    if (cursor.peek() === close) return members;
    members.push(parseMember(cursor, nested));
  }
}

function terminator(cursor: Cursor): void {
  cursor.expect(',', 'member terminator ","');
}

function parseMember(cursor: Cursor, nested: boolean): Member {
  if (!nested && cursor.startsWith('primitive')) {
    cursor.pos += 'primitive'.length;
    const start = cursor.pos;
    while (!cursor.atEnd() && cursor.peek() !== ',' && cursor.peek() !== '}') cursor.pos++;
    const definition = cursor.text.slice(start, cursor.pos).trim();
    terminator(cursor);
    return { kind: 'primitive', typeName: 'primitive', qualifier: undefined, name: definition, nested: [] };
  }
  if (!nested && cursor.startsWith('enum')) {
    cursor.pos += 'enum'.length;
    const name = cursor.token(',}#', 'an enum constant name');
    terminator(cursor);
    return { kind: 'enum', typeName: 'enum', qualifier: undefined, name, nested: [] };
  }
  if (cursor.startsWith('[list]')) {
    cursor.pos += '[list]'.length;
    const name = cursor.token(',}(', 'a list name');
    cursor.expect('(', '"("');
    const inner = parseMembers(cursor, ')', true);
    cursor.pos++;
    terminator(cursor);
    return { kind: 'list', typeName: '[list]', qualifier: undefined, name, nested: inner };
  }
  for (const kind of ['char', 'byte'] as const) {
    if (cursor.startsWith(`[${kind}]`)) {
      cursor.pos += kind.length + 2;
      return { kind, typeName: `[${kind}]`, ...namePart(cursor, nested), nested: [] };
    }
  }
  const typeName = cursor.token(',}#', 'a field type');
  return { kind: 'field', typeName, ...namePart(cursor, nested), nested: [] };
}

function namePart(cursor: Cursor, nested: boolean): { qualifier: string | undefined; name: string } {
  if (nested) {
    const name = cursor.token(',})', 'a field name');
    terminator(cursor);
    return { qualifier: undefined, name };
  }
  const first = cursor.token(',}#', 'a field name');
  cursor.ws();
  if (cursor.peek() === '#') {
    cursor.pos++;
    const name = cursor.token(',})', 'a field name');
    terminator(cursor);
    return { qualifier: first, name };
  }
  terminator(cursor);
  return { qualifier: undefined, name: first };
}

function makeEntry(id: string, name: string, members: Member[], source: string): TypeEntry {
  const instanceMembers = members.filter((m) => m.kind !== 'enum' && m.kind !== 'primitive');
  return {
    id,
    name,
    members,
    instanceMembers,
    fixed: instanceMembers.filter((m) => !isVariableMember(m)),
    variable: instanceMembers.filter(isVariableMember),
    enumConstants: members.filter((m) => m.kind === 'enum').map((m) => m.name),
    primitive: members.find((m) => m.kind === 'primitive')?.name,
    source,
  };
}

/** The parsed dictionary with lookups by id and by name (all versions of a type). */
export class TypeDictionary {
  readonly entries: readonly TypeEntry[];
  private readonly byId = new Map<string, TypeEntry>();
  private readonly byName = new Map<string, TypeEntry[]>();

  constructor(entries: readonly TypeEntry[]) {
    this.entries = entries;
    for (const entry of entries) {
      this.byId.set(entry.id, entry);
      const list = this.byName.get(entry.name);
      if (list === undefined) this.byName.set(entry.name, [entry]);
      else list.push(entry);
    }
    for (const list of this.byName.values()) list.sort((a, b) => compareIds(a.id, b.id));
  }

  static parse(text: string): TypeDictionary {
    return new TypeDictionary(parseDictionary(text));
  }

  get(typeId: string): TypeEntry | undefined {
    return this.byId.get(typeId);
  }

  /** Every entry with this type's name, oldest (lowest id) first. */
  versions(entry: TypeEntry): readonly TypeEntry[] {
    return this.byName.get(entry.name) ?? [entry];
  }

  isCurrent(entry: TypeEntry): boolean {
    const versions = this.versions(entry);
    return versions[versions.length - 1] === entry;
  }
}

export function compareIds(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Enum types carry `enum` pseudo members and Java's `Enum#name` / `Enum#ordinal` fields. */
export function enumOrdinalIndex(entry: TypeEntry): number {
  return entry.fixed.findIndex((m) => m.name === 'ordinal' && m.typeName === 'int' && (m.qualifier === undefined || m.qualifier === 'java.lang.Enum'));
}

/**
 * Short, readable form of a JVM type name: `conformance.bookstore.Book` → `Book`,
 * `[Ljava.lang.String;` → `String[]`, `[[I` → `int[][]`, `java.util.Map$Entry` → `Map$Entry`.
 */
export function shortTypeName(name: string): string {
  let dims = 0;
  while (name.charAt(dims) === '[') dims++;
  if (dims > 0 && name.length > dims) {
    const rest = name.slice(dims);
    const code = rest.charAt(0);
    let component: string;
    if (code === 'L' && rest.endsWith(';')) component = shortTypeName(rest.slice(1, -1));
    else component = ARRAY_CODES[code] ?? rest;
    return component + '[]'.repeat(dims);
  }
  const dot = name.lastIndexOf('.');
  return dot < 0 ? name : name.slice(dot + 1);
}

/** Readable full form: `[Ljava.lang.String;` → `java.lang.String[]`. */
/**
 * The one name a Java type is shown by everywhere (lists, charts, search, versions): the
 * dictionary's name, arrays in Java source form (`[B` → `byte[]`, `[Ljava.lang.String;` →
 * `java.lang.String[]`).
 */
export function displayTypeName(name: string): string {
  return readableTypeName(name);
}

export function readableTypeName(name: string): string {
  let dims = 0;
  while (name.charAt(dims) === '[') dims++;
  if (dims === 0 || name.length === dims) return name;
  const rest = name.slice(dims);
  const code = rest.charAt(0);
  const component = code === 'L' && rest.endsWith(';') ? rest.slice(1, -1) : ARRAY_CODES[code] ?? rest;
  return component + '[]'.repeat(dims);
}

const ARRAY_CODES: Readonly<Record<string, string>> = {
  B: 'byte', Z: 'boolean', S: 'short', C: 'char', I: 'int', F: 'float', J: 'long', D: 'double',
};

export function packageOf(name: string): string {
  const readable = readableTypeName(name).replace(/\[\]/g, '');
  const dot = readable.lastIndexOf('.');
  return dot < 0 ? '' : readable.slice(0, dot);
}

/** Where the dictionary comes from: the one loaded, reloaded once for an unknown type id (dictionary-holder.ts). */
export interface DictionarySource {
  current(): TypeDictionary;
  /** The entry for a type id, reloading the dictionary once if the id is unknown. */
  resolve(typeId: string): Promise<TypeEntry | undefined>;
}
