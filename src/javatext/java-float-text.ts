/**
 * Java 8–18 `Double.toString(double)` and `Float.toString(float)`, bit for bit as OpenJDK 17's
 * `jdk.internal.math.FloatingDecimal` prints them (docs/rest-rendering.md §11 and §11.1).
 *
 * Java up to 18 does NOT print the shortest round-trip form: its integer fast path keeps extra
 * digits, E-notation always gets a second digit, interval end points are excluded in the 32/64-bit
 * modes, powers of two use the smaller gap on both sides, and the 32/64-bit modes wrap around like
 * Java `int`/`long`. The reference procedure (steps 0–5 of §11.1) is implemented faithfully; to be
 * fast it runs on plain JS numbers whenever that is exact (Java's 32-bit mode is emulated with
 * int32 operations, small 64-bit cases stay below 2^53) and on `bigint` otherwise.
 *
 * Two shortcuts avoid the `bigint` loop for the remaining values where they are provably
 * identical (java-float-shortcuts.ts): doubles take JS's shortest form, floats are decided with
 * JS's correctly rounded `toExponential(n)`. Both bail out to the faithful loop
 * (java-float-digits.ts) when unsure. This file picks the path per value and holds the public API.
 */

import {
  TWO_POW_32,
  TWO_POW_52,
  developInteger,
  digitLoop,
  digitLoopBig,
  digitLoopExact,
  digitLoopInt32,
  estimateDecimalExponent,
  fitsInDoubles,
  isInt32Mode,
  layout,
  scale,
  type Scaled,
} from './java-float-digits.js';
import { floatDigits, shortestDoubleText } from './java-float-shortcuts.js';

// ---------------------------------------------------------------------------------------------
// Steps 1–5 for one magnitude F1 × 2^(X − N + 1).

/**
 * Powers of two always take the bigint loop in Java's 64-bit and big modes (no shortcut covers
 * Java's halved gap), but there are only ~2,400 of them: their texts are cached.
 */
const powerOfTwoCache = new Map<number, string>();

function cachedPowerOfTwo(key: number, c: Scaled): string {
  let text = powerOfTwoCache.get(key);
  if (text === undefined) {
    digitLoopBig(c);
    text = layout();
    powerOfTwoCache.set(key, text);
  }
  return text;
}

/**
 * Unsigned Java text of F1 × 2^(X − N + 1). F (< 2^53, bit 52 set) is the normalised significand
 * with odd part F1 and N significant bits, X the binary exponent, P the precision of the gap.
 */
function magnitudeText(F: number, F1: number, N: number, X: number, P: number, isFloat: boolean): string {
  const T = Math.max(0, N - X - 1); // binary digits after the point
  if (X >= -21 && X <= 62 && T === 0) {
    developInteger(F1, N, X, P);
    return layout();
  }
  const c = scale(F1, N, X, P, T, estimateDecimalExponent(F / TWO_POW_52, X));
  if (isInt32Mode(c)) {
    digitLoopInt32(c);
  } else if (fitsInDoubles(c)) {
    digitLoopExact(c);
  } else if (N === 1) {
    return cachedPowerOfTwo(isFloat ? 2 * X + 1 : 2 * X, c);
  } else if (isFloat) {
    if (!floatDigits(F1, N, X, P, c)) digitLoop(c);
  } else {
    const text = shortestDoubleText(F, F1, N, X, c);
    if (text !== undefined) return text;
    digitLoop(c);
  }
  return layout();
}

// ---------------------------------------------------------------------------------------------
// Step 0 (decomposition) and the public API.

const scratch = new DataView(new ArrayBuffer(8));

/** Number of trailing zero bits of a positive integer F < 2^53. */
function trailingZeros(F: number): number {
  const lo = F >>> 0; // F mod 2^32
  if (lo !== 0) return 31 - Math.clz32(lo & -lo);
  const hi = F / TWO_POW_32;
  return 63 - Math.clz32(hi & -hi);
}

/** Java text of the double with the given high and low 32-bit words. */
function doubleText(hi: number, lo: number): string {
  const negative = hi >>> 31 !== 0;
  const biased = (hi >>> 20) & 0x7ff;
  const fractionHi = hi & 0xfffff;
  if (biased === 0x7ff) {
    if (fractionHi !== 0 || lo !== 0) return 'NaN';
    return negative ? '-Infinity' : 'Infinity';
  }
  const fraction = fractionHi * TWO_POW_32 + lo;
  let F: number;
  let X: number;
  let P: number;
  if (biased === 0) {
    if (fraction === 0) return negative ? '-0.0' : '0.0';
    P = fractionHi !== 0 ? 64 - Math.clz32(fractionHi) : 32 - Math.clz32(lo); // bit length
    F = fraction * 2 ** (53 - P);
    X = -1022 - (53 - P);
  } else {
    F = TWO_POW_52 + fraction;
    X = biased - 1023;
    P = 53;
  }
  const t = trailingZeros(F);
  const text = magnitudeText(F, F / 2 ** t, 53 - t, X, P, false);
  return negative ? '-' + text : text;
}

/** Java Double.toString of the IEEE-754 binary64 value. */
export function javaDoubleToString(value: number): string {
  // Integers below 10^7 print as all their digits plus ".0" (integer path, nothing dropped).
  if (Number.isInteger(value) && value < 1e7 && value > -1e7 && value !== 0) return value + '.0';
  scratch.setFloat64(0, value);
  return doubleText(scratch.getUint32(0), scratch.getUint32(4));
}

/** Java Double.toString of the binary64 value given by its raw 64-bit pattern (bigint, as read with getBigUint64/getBigInt64). */
export function javaDoubleBitsToString(bits: bigint): string {
  scratch.setBigUint64(0, BigInt.asUintN(64, bits));
  return doubleText(scratch.getUint32(0), scratch.getUint32(4));
}

/** Java Float.toString of the binary32 value given by its raw 32-bit pattern (as read with DataView.getUint32/getInt32). */
export function javaFloatBitsToString(bits: number): string {
  const u = bits >>> 0;
  const negative = u >>> 31 !== 0;
  const biased = (u >>> 23) & 0xff;
  const fraction = u & 0x7fffff;
  if (biased === 0xff) {
    if (fraction !== 0) return 'NaN';
    return negative ? '-Infinity' : 'Infinity';
  }
  let F24: number; // 24-bit significand with bit 23 set
  let X: number;
  let P: number;
  if (biased === 0) {
    if (fraction === 0) return negative ? '-0.0' : '0.0';
    P = 32 - Math.clz32(fraction);
    F24 = fraction << (24 - P);
    X = -126 - (24 - P);
  } else {
    F24 = 0x800000 | fraction;
    X = biased - 127;
    P = 24;
    // Integers below 10^7 print as all their digits plus ".0" (integer path, nothing dropped).
    if (X >= 0 && X <= 23 && (F24 & ((1 << (23 - X)) - 1)) === 0) {
      const v = F24 / 2 ** (23 - X);
      if (v < 1e7) return (negative ? '-' : '') + v + '.0';
    }
  }
  // As a binary64 significand F = F24·2^29; F24's odd part and bit count are F's.
  const t = 31 - Math.clz32(F24 & -F24);
  const text = magnitudeText(F24 * 2 ** 29, F24 >>> t, 24 - t, X, P, true);
  return negative ? '-' + text : text;
}
