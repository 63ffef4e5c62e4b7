/**
 * Tests of `src/javatext/java-big-number-text.ts`. Expected texts in the tables below are
 * conformance values: each was printed by OpenJDK 17.0.15 (`new BigInteger(bytes)`,
 * `new BigDecimal(text).toString()`), never generated from this module. "rejects" cases are
 * texts for which Java threw.
 */
import { describe, expect, it } from 'vitest';
import { javaBigDecimalToString, javaBigIntegerFromBytes } from '../../src/javatext/java-big-number-text.js';
import { expectJavaValueError, lcg } from '../helpers/real-systems/java-value.js';

describe('javaBigIntegerFromBytes', () => {
  it.each([
    [[0x00], '0'],
    [[0x0a], '10'],
    [[0xff], '-1'],
    [[0x80], '-128'],
    [[0x7f], '127'],
    [[0x00, 0xff], '255'],
    [[0xff, 0x00], '-256'],
    [[0x00, 0x80], '128'],
    [[0xff, 0x7f], '-129'],
    [[0xff, 0xff, 0xff], '-1'],
    [[0x00, 0x00, 0x01], '1'],
    [[0x3b, 0x9a, 0xca, 0x00], '1000000000'],
    [[0x80, 0, 0, 0, 0, 0, 0, 0], '-9223372036854775808'],
    [[0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], '9223372036854775807'],
    [[0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], '18446744073709551615'],
    [
      [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10],
      '1339673755198158349044581307228491536',
    ],
    [
      [0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10],
      '-1512366075204170929049582354406559216',
    ],
  ])('%j -> %s', (bytes, expected) => {
    expect(javaBigIntegerFromBytes(Uint8Array.from(bytes))).toBe(expected);
  });

  it('rejects an empty array like Java', () => {
    expectJavaValueError(() => javaBigIntegerFromBytes(new Uint8Array(0)));
  });

  it('agrees with BigInt.asIntN for random 8-byte values', () => {
    const rnd = lcg(7);
    for (let i = 0; i < 500; i++) {
      const bytes = Uint8Array.from({ length: 8 }, () => Math.floor(rnd() * 256));
      const unsigned = bytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n);
      expect(javaBigIntegerFromBytes(bytes)).toBe(BigInt.asIntN(64, unsigned).toString());
    }
  });

  it('accepts views into a larger buffer', () => {
    const buffer = Uint8Array.from([0x12, 0xff, 0x00, 0x34]);
    expect(javaBigIntegerFromBytes(buffer.subarray(1, 3))).toBe('-256');
  });
});

describe('javaBigDecimalToString', () => {
  it.each([
    ['0', '0'],
    ['-0', '0'],
    ['+0', '0'],
    ['0.00', '0.00'],
    ['-0.00', '0.00'],
    ['0E+3', '0E+3'],
    ['0E-3', '0.000'],
    ['0e3', '0E+3'],
    ['1E+10', '1E+10'],
    ['1e10', '1E+10'],
    ['-1234.5678900', '-1234.5678900'],
    ['0.0000001', '1E-7'],
    ['0.000001', '0.000001'],
    ['0.0000010', '0.0000010'],
    ['123E-10', '1.23E-8'],
    ['1.23E-8', '1.23E-8'],
    ['1.', '1'],
    ['+.5', '0.5'],
    ['-.5', '-0.5'],
    ['-00012.50', '-12.50'],
    ['1E-6', '0.000001'],
    ['10E-7', '0.0000010'],
    ['0.0000000', '0E-7'],
    ['0E-7', '0E-7'],
    ['1234567E-13', '1.234567E-7'],
    ['100E-2', '1.00'],
    ['5E-1', '0.5'],
    ['0.5E1', '5'],
    ['2.50E+3', '2.50E+3'],
    ['1E+0', '1'],
    ['1.5E-0', '1.5'],
    ['12345678901234567890.123456789E-5', '123456789012345.67890123456789'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['123456789012345678901234567890', '123456789012345678901234567890'],
    ['1E2147483647', '1E+2147483647'],
    ['1E0000000000000000005', '1E+5'],
    // any Unicode decimal digit, like Character.isDigit
    ['\u0663\u0664\u0665', '345'],
    ['\u0661\u0662.\u0665E\u0663', '1.25E+4'],
    ['\uff11\uff12\uff13', '123'],
  ])('%j -> %s', (text, expected) => {
    expect(javaBigDecimalToString(text)).toBe(expected);
  });

  it.each([
    '', '-', '+', '.', 'e5', '1e', '1e+', '1e+-1', '1..2', '1.2.3', ' 1', '1 ', '1_0', '0x10', 'NaN',
    'Infinity', '1E+2e3',
    // exponent must fit an int (Java 17), and so must the scale
    '1E2147483648', '1E-2147483649', '1E-2147483648', '0.1E-2147483647', '0.1E-2147483648',
    '1E99999999999', '1E12345678901',
  ])('rejects %j like Java', (text) => {
    expectJavaValueError(() => javaBigDecimalToString(text));
  });

  it('produces text that parses back to itself', () => {
    const rnd = lcg(11);
    const pick = (s: string) => s[Math.floor(rnd() * s.length)] ?? '';
    for (let i = 0; i < 1000; i++) {
      let text = pick('  -+');
      const intDigits = Math.floor(rnd() * 22);
      for (let k = 0; k < intDigits; k++) text += pick('0012579');
      text += '.';
      const fracDigits = 1 + Math.floor(rnd() * 22);
      for (let k = 0; k < fracDigits; k++) text += pick('0037');
      if (rnd() < 0.5) text += `E${pick('+-')}${Math.floor(rnd() * 40)}`;
      const canonical = javaBigDecimalToString(text.trim());
      expect(javaBigDecimalToString(canonical)).toBe(canonical);
    }
  });
});
