import { FormatError } from '../errors.js';
import { quoteForeign } from './foreign-text.js';
import type { TypeId } from './ids.js';
import { javaDecimalDigit } from '../javatext/java-digits.js';

/**
 * The type dictionary (`PersistenceTypeDictionary.ptd`): one entry per type id, each with the
 * member list that fixes the binary layout of that type's entities (storage-format.md §7, §8).
 */

export type PrimitiveName = 'byte' | 'boolean' | 'short' | 'char' | 'int' | 'float' | 'long' | 'double';

export const PRIMITIVE_SIZES: Readonly<Record<PrimitiveName, number>> = {
  byte: 1,
  boolean: 1,
  short: 2,
  char: 2,
  int: 4,
  float: 4,
  long: 8,
  double: 8,
};

export function isPrimitiveName(name: string): name is PrimitiveName {
  return Object.hasOwn(PRIMITIVE_SIZES, name);
}

/** An instance member: something that occupies bytes in every entity of the type. */
export type FieldDescriptor =
  | PrimitiveField
  | ReferenceField
  | CharsField
  | BytesField
  | ListField;

interface FieldBase {
  /** Field name as written in the dictionary. */
  readonly name: string;
  /** Declaring class for reflective fields (`qualifier#name`), absent for handler-defined ones. */
  readonly qualifier?: string;
}

export interface PrimitiveField extends FieldBase {
  readonly kind: 'primitive';
  readonly typeName: PrimitiveName;
}

/** Any non-primitive type name: stored as an 8-byte object id. */
export interface ReferenceField extends FieldBase {
  readonly kind: 'reference';
  readonly typeName: string;
}

/** `[char] name`: a binary list of UTF-16 code units. */
export interface CharsField extends FieldBase {
  readonly kind: 'chars';
  readonly typeName: '[char]';
}

/** `[byte] name`: a binary list of bytes. */
export interface BytesField extends FieldBase {
  readonly kind: 'bytes';
  readonly typeName: '[byte]';
}

/** `[list] name(members…)`: a binary list whose elements are the nested members in order. */
export interface ListField extends FieldBase {
  readonly kind: 'list';
  readonly typeName: '[list]';
  readonly elements: readonly FieldDescriptor[];
}

/** Everything listed in an entry: instance fields plus the two pseudo-member kinds. */
export type MemberDescriptor =
  | FieldDescriptor
  | { readonly kind: 'enumConstant'; readonly name: string }
  | { readonly kind: 'primitiveDefinition'; readonly definition: string };

export interface TypeEntry {
  readonly typeId: TypeId;
  readonly typeName: string;
  readonly members: readonly MemberDescriptor[];
  /** The members stored in entities, in storage order (pseudo-members removed). */
  readonly fields: readonly FieldDescriptor[];
  readonly enumConstants: readonly string[];
}

export interface TypeDictionary {
  /** Entries in file order (ascending type id in a Java-written file). */
  readonly entries: readonly TypeEntry[];
  readonly byId: ReadonlyMap<TypeId, TypeEntry>;
  /** For each type name, the entry with the highest type id: the one Java's runtime binds to. */
  readonly currentByName: ReadonlyMap<string, TypeEntry>;
}

/** Builds the lookup maps over parsed entries; later entries with the same id replace earlier ones. */
export function createTypeDictionary(entries: readonly TypeEntry[]): TypeDictionary {
  const byId = new Map<TypeId, TypeEntry>();
  const currentByName = new Map<string, TypeEntry>();
  for (const entry of entries) {
    byId.set(entry.typeId, entry);
    const current = currentByName.get(entry.typeName);
    if (current === undefined || current.typeId < entry.typeId) currentByName.set(entry.typeName, entry);
  }
  return { entries, byId, currentByName };
}

const WHITESPACE_MAX = 0x20;
const LONG_MAX = 9223372036854775807n;
const LONG_MIN = -9223372036854775808n;

/**
 * Parses the dictionary text with the grammar of Java's `PersistenceTypeDictionaryParser`
 * (storage-format.md §7.2), including its quirks: keywords recognised by prefix, any character
 * up to U+0020 is whitespace, type ids parsed like `Long.parseLong`.
 */
export function parseTypeDictionary(text: string, file?: string): TypeDictionary {
  return createTypeDictionary(new DictionaryParser(text, file).parseEntries());
}

/** The enum constants of the (many) types that have none. */
const NO_ENUM_CONSTANTS: readonly string[] = Object.freeze([]);

class DictionaryParser {
  private pos = 0;
  /**
   * One descriptor object per distinct field (kind, type, qualifier, name): descriptors are never
   * changed, and the same fields recur in every version of a type and across types, so that a
   * dictionary's parsed form grows with its distinct fields rather than with its text (a 63 MiB
   * dictionary of 32,849 types held 193 MB of descriptors, one object per field line).
   */
  private readonly interned = new Map<string, FieldDescriptor>();

  constructor(
    private readonly text: string,
    private readonly file: string | undefined,
  ) {}

  parseEntries(): TypeEntry[] {
    const entries: TypeEntry[] = [];
    this.skipWhitespace();
    while (this.pos < this.text.length) {
      entries.push(this.parseEntry());
      this.skipWhitespace();
    }
    return entries;
  }

  private parseEntry(): TypeEntry {
    const idStart = this.pos;
    const idText = this.token('{');
    const typeId = parseJavaLong(idText);
    if (typeId === undefined) this.fail(`invalid type id ${quoteForeign(idText)}`, idStart);
    this.skipWhitespace();
    const typeName = ownCopy(this.token('{'));
    if (typeName === '') this.fail('missing type name', this.pos);
    this.skipWhitespace();
    this.expect('{', `"{" after type name ${quoteForeign(typeName)}`);
    const members: MemberDescriptor[] = [];
    for (;;) {
      this.skipWhitespace();
      if (this.pos >= this.text.length) this.fail(`missing "}" closing type ${quoteForeign(typeName)}`, this.pos);
      if (this.text[this.pos] === '}') break;
      members.push(this.parseMember());
    }
    this.pos++;
    const isField = (m: MemberDescriptor): m is FieldDescriptor => m.kind !== 'enumConstant' && m.kind !== 'primitiveDefinition';
    // Most types have fields only: one array serves as both.
    const fields = members.every(isField) ? members : members.filter(isField);
    const enumConstants = members.some((m) => m.kind === 'enumConstant') ? members.flatMap((m) => (m.kind === 'enumConstant' ? [m.name] : [])) : NO_ENUM_CONSTANTS;
    return { typeId, typeName, members, fields, enumConstants };
  }

  private parseMember(): MemberDescriptor {
    if (this.text.startsWith('primitive', this.pos)) {
      this.pos += 'primitive'.length;
      const start = this.pos;
      while (this.pos < this.text.length && this.text[this.pos] !== ',' && this.text[this.pos] !== '}') this.pos++;
      const definition = ownCopy(this.text.slice(start, this.pos).trim());
      this.expectTerminator();
      return { kind: 'primitiveDefinition', definition };
    }
    if (this.text.startsWith('enum', this.pos)) {
      this.pos += 'enum'.length;
      this.skipWhitespace();
      const name = ownCopy(this.token(',', '}', '#'));
      this.skipWhitespace();
      this.expectTerminator();
      return { kind: 'enumConstant', name };
    }
    return this.parseField(false);
  }

  private parseField(nested: boolean): FieldDescriptor {
    if (this.text.startsWith('[list]', this.pos)) {
      this.pos += '[list]'.length;
      this.skipWhitespace();
      const name = ownCopy(this.token(',', '}', '('));
      this.skipWhitespace();
      this.expect('(', `"(" after [list] ${quoteForeign(name)}`);
      const elements: FieldDescriptor[] = [];
      for (;;) {
        this.skipWhitespace();
        if (this.pos >= this.text.length) this.fail(`missing ")" closing [list] ${quoteForeign(name)}`, this.pos);
        if (this.text[this.pos] === ')') break;
        elements.push(this.parseField(true));
      }
      this.pos++;
      this.skipWhitespace();
      this.expectTerminator();
      return { kind: 'list', typeName: '[list]', name, elements };
    }
    let typeName: string;
    if (this.text.startsWith('[char]', this.pos) || this.text.startsWith('[byte]', this.pos)) {
      typeName = this.text.startsWith('[char]', this.pos) ? '[char]' : '[byte]';
      this.pos += 6;
    } else {
      typeName = this.token(',', '}', '#');
      if (typeName === '') this.fail('missing member type', this.pos);
    }
    this.skipWhitespace();
    let qualifier: string | undefined;
    let name: string;
    if (nested) {
      name = this.token(',', '}', ')');
    } else {
      const first = this.token(',', '}', '#');
      this.skipWhitespace();
      if (this.text[this.pos] === '#') {
        qualifier = first;
        this.pos++;
        this.skipWhitespace();
        name = this.token(',', '}', ')');
      } else {
        name = first;
      }
    }
    if (name === '') this.fail(`missing name of member of type ${quoteForeign(typeName)}`, this.pos);
    this.skipWhitespace();
    this.expectTerminator();
    const key = `${typeName}\u0000${qualifier ?? ''}\u0000${qualifier === undefined ? 0 : 1}\u0000${name}`;
    const known = this.interned.get(key);
    if (known !== undefined) return known;
    const field = this.fieldOf(ownCopy(typeName), ownCopy(name), qualifier === undefined ? undefined : ownCopy(qualifier));
    this.interned.set(key, field);
    return field;
  }

  private fieldOf(typeName: string, name: string, qualifier: string | undefined): FieldDescriptor {
    const base = qualifier === undefined ? { name } : { name, qualifier };
    if (typeName === '[char]') return { kind: 'chars', typeName, ...base };
    if (typeName === '[byte]') return { kind: 'bytes', typeName, ...base };
    if (isPrimitiveName(typeName)) return { kind: 'primitive', typeName, ...base };
    return { kind: 'reference', typeName, ...base };
  }

  /** One or more characters that are neither whitespace nor a stop character. */
  private token(...stops: string[]): string {
    const start = this.pos;
    while (this.pos < this.text.length) {
      const ch = this.text[this.pos] as string;
      if (ch.charCodeAt(0) <= WHITESPACE_MAX || stops.includes(ch)) break;
      this.pos++;
    }
    return this.text.slice(start, this.pos);
  }

  private skipWhitespace(): void {
    while (this.pos < this.text.length && this.text.charCodeAt(this.pos) <= WHITESPACE_MAX) this.pos++;
  }

  private expect(ch: string, what: string): void {
    if (this.text[this.pos] !== ch) this.fail(`expected ${what}`, this.pos);
    this.pos++;
  }

  private expectTerminator(): void {
    if (this.text[this.pos] !== ',') this.fail('missing member terminator ","', this.pos);
    this.pos++;
  }

  private fail(message: string, pos: number): never {
    const before = this.text.slice(0, pos);
    const line = before.split('\n').length;
    throw new FormatError('FORMAT_DICTIONARY_SYNTAX', `type dictionary line ${line}: ${message}`, {
      file: this.file,
      offset: Buffer.byteLength(before, 'utf8'),
    });
  }
}

/**
 * A string of its own, not a slice that keeps the whole dictionary text alive (V8 makes longer
 * substrings views of their parent): what the parsed dictionary keeps must not hold the text.
 */
function ownCopy(text: string): string {
  return text.length < 13 ? text : Buffer.from(text, 'utf8').toString('utf8');
}

/** Whether `text` holds only ASCII digits from `from` on (and at least one). */
function asciiDigits(text: string, from: number): boolean {
  if (from >= text.length) return false;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * Java `Long.parseLong`: optional sign, one or more decimal digits of any Unicode script, 64-bit
 * range. Returns `undefined` where Java throws `NumberFormatException`.
 */
export function parseJavaLong(text: string): bigint | undefined {
  if (text.length === 0) return undefined;
  let i = 0;
  let negative = false;
  const first = text[0];
  if (first === '-' || first === '+') {
    negative = first === '-';
    i = 1;
    if (text.length === 1) return undefined;
  }
  // Every id a client sends is ASCII digits: taken as they are, without mapping each digit.
  let digits = '';
  if (asciiDigits(text, i)) digits = text.slice(i);
  else {
    for (; i < text.length; i++) {
      const digit = javaDecimalDigit(text.charCodeAt(i));
      if (digit < 0) return undefined;
      digits += String.fromCharCode(48 + digit);
    }
  }
  const magnitude = BigInt(digits);
  const value = negative ? -magnitude : magnitude;
  if (value > LONG_MAX || value < LONG_MIN) return undefined;
  return value;
}
