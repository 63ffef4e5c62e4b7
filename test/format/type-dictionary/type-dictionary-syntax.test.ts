import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../src/errors.js';
import { createTypeDictionary, parseTypeDictionary, type TypeEntry } from '../../../src/format/type-dictionary.js';

/**
 * What type-dictionary.ts guards beyond the well-formed entries of type-dictionary.test.ts (issue 48,
 * its mutation run): each syntax error with the code FORMAT_DICTIONARY_SYNTAX, its line, the byte
 * offset (UTF-8, not UTF-16) and its message; Java's whitespace (every character up to U+0020);
 * qualifiers with whitespace around `#`, an empty qualifier kept apart from none; nested members
 * without qualifiers; and which entry of a name is current, whatever the order of the entries.
 */

/** Code, file, offset and message of the error parsing `text` throws. */
function refusal(text: string, file?: string) {
  try {
    parseTypeDictionary(text, file);
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    return { code: error.code, file: error.file, offset: error.offset, message: error.message };
  }
  throw new Error('no error thrown');
}

describe('parseTypeDictionary: syntax errors name line, byte offset and what is missing', () => {
  it('a missing member terminator: the line and the UTF-8 offset of where it was expected', () => {
    const text = '1 x.Ä{\n\tint a\n}';
    expect(refusal(text, 'd.ptd')).toEqual({ code: 'FORMAT_DICTIONARY_SYNTAX', file: 'd.ptd', offset: 15, message: 'd.ptd at offset 15: type dictionary line 3: missing member terminator ","' });
  });

  it('an invalid type id, a missing type name, a missing "{"', () => {
    expect(refusal('\n  12x3 x{}').message).toBe('offset 3: type dictionary line 2: invalid type id "12x3"');
    expect(refusal('12 {}').message).toBe('offset 3: type dictionary line 1: missing type name');
    expect(refusal('12 x.Y ,').message).toBe('offset 7: type dictionary line 1: expected "{" after type name "x.Y"');
  });

  it('a type or a [list] not closed, a [list] without "(", a member without type or name', () => {
    expect(refusal('1 x{ int a, ').message).toBe('offset 12: type dictionary line 1: missing "}" closing type "x"');
    expect(refusal('1 x{ [list] l( int a, ').message).toBe('offset 22: type dictionary line 1: missing ")" closing [list] "l"');
    expect(refusal('1 x{ [list] l int a, }').message).toBe('offset 14: type dictionary line 1: expected "(" after [list] "l"');
    expect(refusal('1 x{ , }').message).toBe('offset 5: type dictionary line 1: missing member type');
    expect(refusal('1 x{ int , }').message).toBe('offset 9: type dictionary line 1: missing name of member of type "int"');
    expect(refusal('1 x{ [char] , }').message).toBe('offset 12: type dictionary line 1: missing name of member of type "[char]"');
    expect(refusal('1 x{ int x.Y# , }').message).toBe('offset 14: type dictionary line 1: missing name of member of type "int"');
  });

  it('a [list] element, a primitive definition and an enum constant each need their terminator', () => {
    expect(refusal('1 x{ [list] l( int a ) }').message).toBe('offset 21: type dictionary line 1: missing member terminator ","');
    expect(refusal('1 x{ [list] l( int a, ) }').message).toBe('offset 24: type dictionary line 1: missing member terminator ","');
    expect(refusal('1 x{ primitive 8 bit }').message).toBe('offset 21: type dictionary line 1: missing member terminator ","');
    expect(refusal('1 x{ enum A }').message).toBe('offset 12: type dictionary line 1: missing member terminator ","');
  });
});

describe('parseTypeDictionary: what it accepts', () => {
  it('takes every character up to U+0020 as whitespace, and U+0021 as part of a name', () => {
    const d = parseTypeDictionary('\u0001\u001f7\u0020x.A\u0008{\u0002int\u0003a\u0004,\u0005}\u0010');
    expect(d.entries).toHaveLength(1);
    expect(d.byId.get(7n)).toMatchObject({ typeName: 'x.A', fields: [{ kind: 'primitive', typeName: 'int', name: 'a' }] });
    expect(parseTypeDictionary('7 x!{ int a!, }').byId.get(7n)).toMatchObject({ typeName: 'x!', fields: [{ name: 'a!' }] });
  });

  it('reads a qualifier with whitespace around "#", and keeps an empty qualifier apart from none', () => {
    const d = parseTypeDictionary('7 x{ int x.P # a, int #b, int c, [byte] x.P#d, }');
    expect(d.byId.get(7n)!.fields).toStrictEqual([
      { kind: 'primitive', typeName: 'int', name: 'a', qualifier: 'x.P' },
      { kind: 'primitive', typeName: 'int', name: 'b', qualifier: '' },
      { kind: 'primitive', typeName: 'int', name: 'c' },
      { kind: 'bytes', typeName: '[byte]', name: 'd', qualifier: 'x.P' },
    ]);
    const both = parseTypeDictionary('7 x{ int a, }\n8 y{ int #a, }\n9 z{ int a, }');
    expect(both.byId.get(8n)!.fields[0]).toStrictEqual({ kind: 'primitive', typeName: 'int', name: 'a', qualifier: '' });
    expect(both.byId.get(9n)!.fields[0]).toBe(both.byId.get(7n)!.fields[0]);
    expect(both.byId.get(9n)!.fields[0]).not.toBe(both.byId.get(8n)!.fields[0]);
  });

  it('reads nested members without qualifiers, a name ending at ")" included, and nested lists within lists', () => {
    const d = parseTypeDictionary('7 x{ [list] l( long n, [char] s, x.R r, [list] inner( byte b, ), ), }');
    expect(d.byId.get(7n)!.fields).toStrictEqual([
      {
        kind: 'list',
        typeName: '[list]',
        name: 'l',
        elements: [
          { kind: 'primitive', typeName: 'long', name: 'n' },
          { kind: 'chars', typeName: '[char]', name: 's' },
          { kind: 'reference', typeName: 'x.R', name: 'r' },
          { kind: 'list', typeName: '[list]', name: 'inner', elements: [{ kind: 'primitive', typeName: 'byte', name: 'b' }] },
        ],
      },
    ]);
  });

  it('keeps enum constants and primitive definitions out of the fields, in order, and long names whole', () => {
    const long = 'com.example.some.rather.long.package.Name';
    const d = parseTypeDictionary(`7 ${long}{ enum FIRST, int a, enum SECOND, primitive 64 bit ,\n}`);
    const entry = d.byId.get(7n)!;
    expect(entry.typeName).toBe(long);
    expect(entry.enumConstants).toEqual(['FIRST', 'SECOND']);
    expect(entry.fields).toStrictEqual([{ kind: 'primitive', typeName: 'int', name: 'a' }]);
    expect(entry.members.map((m) => m.kind)).toEqual(['enumConstant', 'primitive', 'enumConstant', 'primitiveDefinition']);
    expect(entry.members[3]).toEqual({ kind: 'primitiveDefinition', definition: '64 bit' });
    expect(parseTypeDictionary('8 x{ }').byId.get(8n)).toMatchObject({ members: [], fields: [], enumConstants: [] });
  });
});

describe('createTypeDictionary: which entry is current', () => {
  const entry = (typeId: bigint, typeName: string): TypeEntry => ({ typeId, typeName, members: [], fields: [], enumConstants: [] });

  it('the highest type id of a name, in whatever order the entries come; a later entry of the same id replaces the earlier', () => {
    const high = entry(20n, 'x.A');
    const low = entry(10n, 'x.A');
    const other = entry(15n, 'x.B');
    const d = createTypeDictionary([high, other, low]);
    expect(d.currentByName.get('x.A')).toBe(high);
    expect(d.currentByName.get('x.B')).toBe(other);
    expect(d.byId.get(10n)).toBe(low);
    const again = entry(20n, 'x.A');
    const replaced = createTypeDictionary([high, again]);
    expect(replaced.byId.get(20n)).toBe(again);
    expect(replaced.currentByName.get('x.A')).toBe(high);
  });
});
