/**
 * Tests of `src/javatext/java-path-text.ts`. Expected texts in the tables below are conformance
 * values: each was printed by OpenJDK 17.0.15 (`Paths.get(URI.create(uri)).toString()` on Linux
 * with a UTF-8 locale), never generated from this module. "rejects" cases are URIs for which
 * Java threw.
 */
import { describe, expect, it } from 'vitest';
import { javaPathFromUri } from '../../src/javatext/java-path-text.js';
import { expectJavaValueError } from '../helpers/real-systems/java-value.js';

describe('javaPathFromUri', () => {
  it.each([
    ['file:///tmp/p', '/tmp/p'],
    ['file:///tmp/p/', '/tmp/p'],
    ['file:///', '/'],
    ['file:////', '/'],
    ['file:///tmp//p//', '/tmp/p/'],
    ['file:////tmp', '/tmp'],
    ['file:/tmp/p', '/tmp/p'],
    ['file:/tmp//p//', '/tmp/p'],
    ['file:/', '/'],
    ['FILE:///tmp/x', '/tmp/x'],
    ['File:/tmp/x/', '/tmp/x'],
    ['file:///tmp/a%20b', '/tmp/a b'],
    ['file:///tmp/%C3%A4', '/tmp/\u00e4'],
    ['file:/tmp/%C3%A4', '/tmp/\u00e4'],
    ['file:/tmp/\u00e4', '/tmp/\u00e4'],
    ['file:///tmp/%F0%9F%98%80', '/tmp/\ud83d\ude00'],
    ['file:///tmp/a%2Fb', '/tmp/a/b'],
    ['file:///tmp/a%2F%2Fb', '/tmp/a/b'],
    ['file:///tmp/../x', '/tmp/../x'],
    ['file:///a:b@c&d=e+f$g,h;i', '/a:b@c&d=e+f$g,h;i'],
    ["file:///-_.!~*'()", "/-_.!~*'()"],
    // malformed UTF-8 becomes U+FFFD exactly like Java's decoder
    ['file:///tmp/%E2%82', '/tmp/\ufffd'],
    ['file:///tmp/%E2%82x', '/tmp/\ufffdx'],
    ['file:///tmp/%ED%A0%80', '/tmp/\ufffd'],
    ['file:///tmp/%ff', '/tmp/\ufffd'],
    ['file:/tmp/%E2a%82', '/tmp/\ufffda\ufffd'],
    ['file:///%C0%80', '/\ufffd\ufffd'],
    ['file:///%F0%9F%98', '/\ufffd'],
    ['file:///%F4%90%80%80', '/\ufffd\ufffd\ufffd\ufffd'],
  ])('%j -> %j', (uri, expected) => {
    expect(javaPathFromUri(uri)).toBe(expected);
  });

  it.each([
    'file:///tmp/a b',
    'file:///tmp/%2',
    'file:///tmp/%zz',
    'file:///tmp/%00',
    'file:/tmp/%00',
    'file:///tmp/\u00e4', // raw non-ASCII only in the java.io.File form
    'file:///tmp/\u00a0',
    'file:/tmp/\ud800',
    'file://host/tmp',
    'file://localhost/tmp',
    'file://',
    'file:',
    'file:tmp',
    'file:///tmp?q',
    'file:///tmp#f',
    'http://x/y',
    'jar:file:/x.zip!/a',
    'relative/path',
    '/tmp/x',
    'file:///[x]',
    'file:///a|b',
    '1file:///x',
  ])('rejects %j like Java', (uri) => {
    expectJavaValueError(() => javaPathFromUri(uri));
  });
});
