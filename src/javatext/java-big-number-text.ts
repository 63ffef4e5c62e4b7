/**
 * Java `toString()` texts of `java.math.BigInteger` and `java.math.BigDecimal`, rebuilt from
 * their stored form.
 *
 * MicroStream stores a BigInteger as its `toByteArray()` bytes and a BigDecimal as its text; the
 * REST service renders both as Java's `toString()` of the rebuilt value (rest-rendering.md §10.4,
 * storage-format.md §8.3). This module reproduces Java 17's parsing (including its
 * `NumberFormatException`s, as {@link JavaValueError}) and its canonical layout.
 * Pure: only ECMAScript built-ins (`BigInt`).
 */

import { javaDecimalDigit } from './java-digits.js';
import { JavaValueError } from './java-value-error.js';

/**
 * Java `BigInteger.toString()` of `new BigInteger(bytes)`: two's-complement big-endian bytes
 * (the `toByteArray()` form; non-minimal sign extension is accepted like Java does).
 * `[0x00, 0xff]` → `255`, `[0xff, 0x00]` → `-256`. Throws {@link JavaValueError} for an empty
 * array (Java: `NumberFormatException: Zero length BigInteger`).
 */
export function javaBigIntegerFromBytes(bytes: Uint8Array): string {
  if (bytes.length === 0) throw new JavaValueError('Zero length BigInteger');
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  let value = BigInt(`0x${hex}`);
  if ((bytes[0] ?? 0) >= 0x80) value -= 1n << BigInt(bytes.length * 8);
  return value.toString();
}

/**
 * Java `BigDecimal.toString()` of `new BigDecimal(text)`.
 *
 * Parsing follows Java 17's `BigDecimal(char[], int, int, MathContext)`: optional `+`/`-`,
 * digits (any Unicode decimal digit, like `Character.isDigit`) with at most one `.`, at least one
 * digit, optional exponent `e`/`E` with optional sign and at most ten significant digits; the
 * exponent must fit an `int` and so must the resulting scale. Anything else throws
 * {@link JavaValueError} (Java: `NumberFormatException`).
 *
 * Layout follows `BigDecimal.layoutChars(true)`: scale 0 → the integer; scale > 0 and adjusted
 * exponent ≥ −6 → plain notation; otherwise one digit, optional fraction, `E+n`/`E-n`.
 * `0.0000001` → `1E-7`, `123E-10` → `1.23E-8`, `0E+3` → `0E+3`, `-0.00` → `0.00`.
 */
export function javaBigDecimalToString(text: string): string {
  const { negative, unscaled, scale } = parseJavaBigDecimal(text);
  const sign = negative && unscaled !== 0n ? '-' : '';
  const coeff = unscaled.toString();
  if (scale === 0n) return sign + coeff;
  const adjusted = -scale + BigInt(coeff.length - 1);
  if (scale >= 0n && adjusted >= -6n) {
    // Here scale <= coeff.length + 5, so it is small.
    const pad = Number(scale) - coeff.length;
    if (pad >= 0) return `${sign}0.${'0'.repeat(pad)}${coeff}`;
    return `${sign}${coeff.slice(0, -pad)}.${coeff.slice(-pad)}`;
  }
  const mantissa = coeff.length > 1 ? `${coeff[0] ?? ''}.${coeff.slice(1)}` : coeff;
  return `${sign}${mantissa}E${adjusted > 0n ? '+' : ''}${adjusted}`;
}

const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;

function parseJavaBigDecimal(text: string): { negative: boolean; unscaled: bigint; scale: bigint } {
  const fail = (reason: string): never => {
    throw new JavaValueError(`invalid BigDecimal text ${JSON.stringify(text)}: ${reason}`);
  };
  const n = text.length;
  if (n === 0) fail('empty');
  let i = 0;
  let negative = false;
  if (text[0] === '-') {
    negative = true;
    i++;
  } else if (text[0] === '+') {
    i++;
  }
  let digits = '';
  let dot = false;
  let fractionDigits = 0n;
  let exponent = 0n;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    const digit = javaDecimalDigit(c);
    if (digit >= 0) {
      digits += String(digit);
      if (dot) fractionDigits++;
    } else if (c === 0x2e /* . */) {
      if (dot) fail('more than one decimal point');
      dot = true;
    } else if (c === 0x65 /* e */ || c === 0x45 /* E */) {
      exponent = parseJavaBigDecimalExponent(text, i, fail);
      // Java 17: "Next test is required for backwards compatibility"
      if (exponent < INT_MIN || exponent > INT_MAX) fail('exponent overflow');
      break;
    } else {
      fail(`unexpected character at index ${i}`);
    }
  }
  if (digits.length === 0) fail('no digits');
  const scale = fractionDigits - exponent;
  if (scale < INT_MIN || scale > INT_MAX) fail('scale out of range');
  return { negative, unscaled: BigInt(digits), scale };
}

/** Java `BigDecimal.parseExp`; `at` is the index of the `e`/`E`. */
function parseJavaBigDecimalExponent(text: string, at: number, fail: (reason: string) => never): bigint {
  let offset = at + 1;
  let len = text.length - offset;
  if (len <= 0) fail('no exponent digits');
  let c = text.charCodeAt(offset);
  const negative = c === 0x2d; /* - */
  if (negative || c === 0x2b /* + */) {
    offset++;
    len--;
    if (len <= 0) fail('no exponent digits');
    c = text.charCodeAt(offset);
  }
  while (len > 10 && javaDecimalDigit(c) === 0) {
    offset++;
    len--;
    c = text.charCodeAt(offset);
  }
  if (len > 10) fail('too many nonzero exponent digits');
  let exp = 0;
  for (; len > 0; len--, offset++) {
    const v = javaDecimalDigit(text.charCodeAt(offset));
    if (v < 0) fail('exponent is not a number');
    exp = exp * 10 + v;
  }
  return BigInt(negative ? -exp : exp);
}
