import { describe, expect, it } from 'vitest';
import { booleanParameter, longParameter } from '../../../src/http/java/java-params.js';
import { parseServletQuery, QueryDecodeError } from '../../../src/http/java/servlet-query.js';

describe('parseServletQuery', () => {
  it('keeps the first value, decodes + and %XX as UTF-8, and gives "" for a bare name', () => {
    const q = parseServletQuery('a=1&a=2&b=x+y&c=%E2%82%AC&flag&&=z');
    expect(q.get('a')).toBe('1');
    expect(q.get('b')).toBe('x y');
    expect(q.get('c')).toBe('€');
    expect(q.get('flag')).toBe('');
    expect(q.get('')).toBe('z');
  });

  it('turns an incomplete sequence at the end of a part into U+FFFD', () => {
    expect(parseServletQuery('v=%C3').get('v')).toBe('\ufffd');
    expect(parseServletQuery('va%C3=1').get('va\ufffd')).toBe('1');
    expect(parseServletQuery('v=%E2%82').get('v')).toBe('\ufffd');
  });

  it('fails on malformed escapes and invalid UTF-8 inside a part', () => {
    expect(() => parseServletQuery('v=%C3%28')).toThrow(QueryDecodeError);
    expect(() => parseServletQuery('v=%')).toThrow(QueryDecodeError);
    expect(() => parseServletQuery('a=%zz')).toThrow(QueryDecodeError);
  });
});

describe('Java parameter parsing', () => {
  const q = (text: string) => parseServletQuery(text);
  it('parses longs like Long.parseLong', () => {
    expect(longParameter(q('n=%2B3'), 'n', 0n)).toBe(3n);
    expect(longParameter(q(''), 'n', 7n)).toBe(7n);
    expect(() => longParameter(q('n=+3'), 'n', 0n)).toThrow('invalid url parameter n');
    expect(() => longParameter(q('n='), 'n', 0n)).toThrow('invalid url parameter n');
    expect(() => longParameter(q('n=9223372036854775808'), 'n', 0n)).toThrow('invalid url parameter n');
  });

  it('accepts true/false in any letter case only', () => {
    expect(booleanParameter(q('r=TrUe'), 'r', false)).toBe(true);
    expect(booleanParameter(q('r=FALSE'), 'r', true)).toBe(false);
    for (const bad of ['r=yes', 'r=1', 'r=', 'r']) expect(() => booleanParameter(q(bad), 'r', false)).toThrow('invalid url parameter r');
  });
});
