import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../src/errors.js';
import { parseJavaLong, parseTypeDictionary } from '../../../src/format/type-dictionary.js';

/**
 * Where each token of a type dictionary ends (issue 48, survivors of the mutation run of
 * type-dictionary.ts): a type id at "{", an enum constant at "}" and "#", a [list] name at "," and
 * "}", a member type at "}" and "#", a name at "}" (and at ")" inside a [list]); [char] and [byte]
 * recognised by prefix, also without a space after them; nested members never take a qualifier;
 * a token or a primitive definition running to the end of the text; a non-ASCII zero digit.
 */

/** Offset and message of the FormatError parsing `text` throws. */
function refusal(text: string): string {
  try {
    parseTypeDictionary(text);
  } catch (error) {
    if (error instanceof FormatError) return error.message;
    throw error;
  }
  throw new Error('no error thrown');
}

describe('parseTypeDictionary: where tokens end', () => {
  it('a type id ends at "{"', () => {
    expect(refusal('7{ int a, }')).toBe('offset 1: type dictionary line 1: missing type name');
  });

  it('an enum constant ends at "}" and at "#"', () => {
    expect(refusal('1 x{ enum A}')).toBe('offset 11: type dictionary line 1: missing member terminator ","');
    expect(refusal('1 x{ enum A#B, }')).toBe('offset 11: type dictionary line 1: missing member terminator ","');
  });

  it('a [list] name ends at "," and at "}"', () => {
    expect(refusal('1 x{ [list] l, }')).toBe('offset 13: type dictionary line 1: expected "(" after [list] "l"');
    expect(refusal('1 x{ [list] l}')).toBe('offset 13: type dictionary line 1: expected "(" after [list] "l"');
  });

  it('a member type ends at "}" and at "#" (an empty qualifier right after the type)', () => {
    expect(refusal('1 x{ int}')).toBe('offset 8: type dictionary line 1: missing name of member of type "int"');
    expect(parseTypeDictionary('7 x{ int#a, }').byId.get(7n)!.fields).toStrictEqual([{ kind: 'primitive', typeName: 'int', name: 'a', qualifier: '' }]);
  });

  it('a member name ends at "}", after a qualifier at "}" and ")"', () => {
    expect(refusal('1 x{ int a}')).toBe('offset 10: type dictionary line 1: missing member terminator ","');
    expect(refusal('1 x{ int q#a}')).toBe('offset 12: type dictionary line 1: missing member terminator ","');
    expect(refusal('1 x{ int q#a) }')).toBe('offset 12: type dictionary line 1: missing member terminator ","');
  });

  it('a nested member name ends at ")" and "}", and a nested member takes no qualifier', () => {
    expect(refusal('1 x{ [list] l( int a) }')).toBe('offset 20: type dictionary line 1: missing member terminator ","');
    expect(refusal('1 x{ [list] l( int a}')).toBe('offset 20: type dictionary line 1: missing member terminator ","');
    const nested = parseTypeDictionary('7 x{ [list] l( int q#a, ), }').byId.get(7n)!.fields[0];
    expect(nested).toStrictEqual({ kind: 'list', typeName: '[list]', name: 'l', elements: [{ kind: 'primitive', typeName: 'int', name: 'q#a' }] });
  });

  it('recognises [char] and [byte] by prefix, also with the name right after them', () => {
    expect(parseTypeDictionary('7 x{ [char]s, [byte]b, }').byId.get(7n)!.fields).toStrictEqual([
      { kind: 'chars', typeName: '[char]', name: 's' },
      { kind: 'bytes', typeName: '[byte]', name: 'b' },
    ]);
  });

  it('a token or a primitive definition cut by the end of the text is a syntax error at the end', () => {
    expect(refusal('1 x{ int a')).toBe('offset 10: type dictionary line 1: missing member terminator ","');
    expect(refusal('1 x{ primitive 8 bit')).toBe('offset 20: type dictionary line 1: missing member terminator ","');
  });
});

describe('parseJavaLong: non-ASCII digits', () => {
  it('takes a zero of another script as the digit 0', () => {
    expect(parseJavaLong('\u0661\u0660')).toBe(10n);
    expect(parseJavaLong('\u0660')).toBe(0n);
  });
});
