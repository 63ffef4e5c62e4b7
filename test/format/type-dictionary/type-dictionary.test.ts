import { describe, expect, it } from 'vitest';
import { parseJavaLong, parseTypeDictionary } from '../../../src/format/type-dictionary.js';

describe('parseTypeDictionary', () => {
  it('parses reflective, handler-defined, enum and primitive entries', () => {
    const text = [
      '0000000000000000005 int{',
      '\tprimitive 32 bit integer signed,',
      '}',
      '0000000000000000010 java.lang.Object{}',
      '0000000000001000052 one.microstream.persistence.types.PersistenceRoots$Default{',
      '\t[list] instances  (',
      '\t\tjava.lang.Object instance,',
      '\t),',
      '\t[list] identifiers(',
      '\t\t[char] identifier,',
      '\t),',
      '}',
      '0000000000001000077 exp.Gen$WithState{',
      '\tenum A,',
      '\tenum B,',
      '\tjava.lang.String java.lang.Enum   #name   ,',
      '\tint              java.lang.Enum   #ordinal,',
      '}',
      '',
    ].join('\n');
    const dictionary = parseTypeDictionary(text);
    expect(dictionary.entries.map((e) => e.typeId)).toEqual([5n, 10n, 1000052n, 1000077n]);
    const int = dictionary.byId.get(5n)!;
    expect(int.fields).toEqual([]);
    expect(int.members).toEqual([{ kind: 'primitiveDefinition', definition: '32 bit integer signed' }]);
    expect(dictionary.byId.get(10n)!.members).toEqual([]);
    const roots = dictionary.byId.get(1000052n)!;
    expect(roots.fields).toEqual([
      { kind: 'list', typeName: '[list]', name: 'instances', elements: [{ kind: 'reference', typeName: 'java.lang.Object', name: 'instance' }] },
      { kind: 'list', typeName: '[list]', name: 'identifiers', elements: [{ kind: 'chars', typeName: '[char]', name: 'identifier' }] },
    ]);
    const e = dictionary.byId.get(1000077n)!;
    expect(e.enumConstants).toEqual(['A', 'B']);
    expect(e.fields).toEqual([
      { kind: 'reference', typeName: 'java.lang.String', name: 'name', qualifier: 'java.lang.Enum' },
      { kind: 'primitive', typeName: 'int', name: 'ordinal', qualifier: 'java.lang.Enum' },
    ]);
  });

  it('picks the highest type id of a name as the current entry', () => {
    const dictionary = parseTypeDictionary('1000064 exp.V{ int exp.V#a, }\n1000065 exp.V{ long exp.V#a, int exp.V#b, }\n');
    expect(dictionary.currentByName.get('exp.V')!.typeId).toBe(1000065n);
    expect(dictionary.byId.get(1000064n)!.fields).toHaveLength(1);
  });

  it('recognises keywords by prefix, like Java', () => {
    // A field whose type name starts with "enum" is read as an enum constant and then fails,
    // as in Java; "enumA," really is one.
    expect(() => parseTypeDictionary('1000001 x.Y{ enumerations.Kind x.Y#k, }')).toThrow(/missing member terminator/);
    expect(parseTypeDictionary('1000001 x.Y{ enumA, }').byId.get(1000001n)!.enumConstants).toEqual(['A']);
  });

  it('reports syntax errors with line and byte offset', () => {
    expect(() => parseTypeDictionary('0000000000000000010 java.lang.Object{\n\tint value\n}', 'd.ptd')).toThrow(
      /d\.ptd at offset \d+: type dictionary line 3: missing member terminator/,
    );
    expect(() => parseTypeDictionary('abc x{}')).toThrow(/invalid type id "abc"/);
    expect(() => parseTypeDictionary('1 x{ int a,')).toThrow(/missing "}"/);
  });
});

describe('parseJavaLong', () => {
  it.each([
    ['0', 0n],
    ['-0', 0n],
    ['+5', 5n],
    ['007', 7n],
    ['9223372036854775807', 9223372036854775807n],
    ['-9223372036854775808', -9223372036854775808n],
    ['\u0663', 3n], // Arabic-Indic three
    ['\uff11\uff12', 12n], // fullwidth digits
    ['1\u0663', 13n], // ASCII and Arabic-Indic digits mixed
    ['-\u0663', -3n],
  ])('%s → %s', (text, value) => {
    expect(parseJavaLong(text)).toBe(value);
  });

  it.each(['', '+', '-', ' 1', '1 ', '1.5', '1e3', '0x10', '0b1', '0o7', '1n', '1\u0663x', '9223372036854775808', '-9223372036854775809', '1_000'])(
    'rejects %j',
    (text) => {
      expect(parseJavaLong(text)).toBeUndefined();
    },
  );
});
