/**
 * Java's notion of a decimal digit, `Character.digit(c, 10)`.
 *
 * Java's number parsers (`Long.parseLong`, `new BigDecimal(String)`) accept every Unicode decimal
 * digit, not just ASCII `0`–`9`: `Long.parseLong("\u0661\u0662")` is 12. The type dictionary
 * (`parseJavaLong`) and the BigDecimal text (`java-big-number-text.ts`) share this one rule.
 * Pure: only ECMAScript built-ins.
 */

const UNICODE_DECIMAL_DIGIT = /^\p{Nd}$/u;

/**
 * Java `Character.digit(code, 10)` for a UTF-16 code unit: the value 0..9 of an ASCII digit or
 * of any other Unicode decimal digit (category Nd, e.g. `\u0663` → 3, `\uff11` → 1), else -1.
 */
export function javaDecimalDigit(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code < 0x80 || !UNICODE_DECIMAL_DIGIT.test(String.fromCharCode(code))) return -1;
  // Decimal digits come in runs of ten starting with zero.
  let zero = code;
  while (UNICODE_DECIMAL_DIGIT.test(String.fromCharCode(zero - 1))) zero--;
  return (code - zero) % 10;
}
