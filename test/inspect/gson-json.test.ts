import { describe, expect, it } from 'vitest';
import { gsonString, javaUtf8 } from '../../src/inspect/gson-json.js';
import { javaInstantText } from '../../src/inspect/statistics.js';

describe('Gson string escaping', () => {
  it('escapes like Gson with HTML-safe escaping', () => {
    expect(gsonString('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(gsonString('\b\t\n\f\r')).toBe('"\\b\\t\\n\\f\\r"');
    expect(gsonString('\u0000\u0001\u000b\u001f')).toBe('"\\u0000\\u0001\\u000b\\u001f"');
    expect(gsonString("<>&='")).toBe('"\\u003c\\u003e\\u0026\\u003d\\u0027"');
    expect(gsonString('\u2028\u2029')).toBe('"\\u2028\\u2029"');
    expect(gsonString('/\u007f\u00a0\ufeff\uffffä😀')).toBe('"/\u007f\u00a0\ufeff\uffffä😀"');
  });

  it('leaves < > & = \' alone without HTML-safe escaping', () => {
    expect(gsonString("<a href='x'>", false)).toBe('"<a href=\'x\'>"');
  });
});

describe('javaUtf8', () => {
  it('sends unpaired surrogates as "?" and pairs as 4-byte UTF-8', () => {
    expect(javaUtf8('x\ud83d').toString('latin1')).toBe('x?');
    expect(javaUtf8('\ude00y').toString('latin1')).toBe('?y');
    expect(javaUtf8('😀')).toEqual(Buffer.from([0xf0, 0x9f, 0x98, 0x80]));
  });
});

describe('javaInstantText', () => {
  it.each([
    [Date.UTC(2020, 8, 13, 12, 26, 40, 0), '2020-09-13T12:26:40Z'],
    [Date.UTC(2020, 8, 13, 12, 26, 40, 100), '2020-09-13T12:26:40.100Z'],
    [Date.UTC(2020, 8, 13, 12, 26, 40, 5), '2020-09-13T12:26:40.005Z'],
    [Date.UTC(10000, 0, 1), '+10000-01-01T00:00:00Z'],
  ])('%s → %s', (millis, text) => {
    expect(javaInstantText(new Date(millis))).toBe(text);
  });
});
