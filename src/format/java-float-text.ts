/**
 * Java 8–18 `Double.toString(double)` and `Float.toString(float)`, bit for bit as OpenJDK 17's
 * `jdk.internal.math.FloatingDecimal` prints them (see docs/rest-rendering.md §11 and §11.1).
 *
 * Java up to 18 does NOT print the shortest round-trip form: its integer fast path keeps extra
 * digits, E-notation always gets a second digit, interval end points are excluded in the 32/64-bit
 * modes, powers of two use the smaller gap on both sides, and the 32/64-bit modes wrap around like
 * Java `int`/`long`. Everything below reproduces those quirks.
 *
 * Performance: the faithful digit loop is run in plain JS numbers whenever that is exact
 * (Java's 32-bit mode is emulated with int32 operations; small 64-bit cases fit in 2^53), and a
 * `bigint` loop is the fallback. For doubles, JS's own shortest form (`toExponential()`) is used
 * only in a class of values where it provably equals Java's digits (see `tryShortestDigits`).
 */

// ---------------------------------------------------------------------------------------------
// Tables copied from OpenJDK's FloatingDecimal / FDBigInteger.

/** `N_5_BITS[i]` = ⌈i·log2 5⌉, an upper bound of the bit length of 5^i (Java uses 3i beyond). */
const N_5_BITS: readonly number[] = [
  0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56,
  59, 61,
];

/** `insignificantDigitsNumber[p]` = ⌊p·log10 2⌋ (for p ≥ 2): digits dropped by the integer path. */
const INSIGNIFICANT_DIGITS: readonly number[] = [
  0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9,
  9, 10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16, 16,
  17, 17, 17, 18, 18, 18, 19,
];

function bitsOfPow5(i: number): number {
  return i < N_5_BITS.length ? N_5_BITS[i]! : i * 3;
}

/** 5^i as exact doubles (exact up to 5^22; only indices ≤ 21 are used with numbers). */
const POW5: readonly number[] = Array.from({ length: 27 }, (_, i) => 5 ** i);
/** 10^i as exact doubles (exact up to 10^22). */
const POW10: readonly number[] = Array.from({ length: 23 }, (_, i) => 10 ** i);

const bigPow5Cache: bigint[] = [1n];
function bigPow5(i: number): bigint {
  for (let j = bigPow5Cache.length; j <= i; j++) bigPow5Cache.push(bigPow5Cache[j - 1]! * 5n);
  return bigPow5Cache[i]!;
}

const TWO_POW_52 = 2 ** 52;
const TWO_POW_32 = 2 ** 32;
const TWO_POW_63 = 2 ** 63;

// ---------------------------------------------------------------------------------------------
// Digit buffer shared by all digit generators (the functions are synchronous, so one buffer is
// enough). `nDigits` digits 0–9 in `digits`, printed value = 0.d1d2…dn × 10^decExp.

const digits = new Uint8Array(32);
let nDigits = 0;
let decExp = 0;

/** Java's `roundup()`: add one to the last digit with carry; all nines become 1 followed by 0s. */
function roundUp(): void {
  let i = nDigits - 1;
  while (i > 0 && digits[i] === 9) digits[i--] = 0;
  if (digits[i] === 9) {
    // Carry out of the first digit: the digit count stays, the exponent grows.
    digits[0] = 1;
    decExp += 1;
    return;
  }
  digits[i]! += 1;
}

/**
 * Step 5: round the last digit from the stopping state of the digit loop. `diff` has the sign of
 * 2·remainder − 10·S (remainder against half a unit of the last digit).
 */
function roundLastDigit(low: boolean, high: boolean, diff: number): void {
  if (!high) return;
  if (low) {
    if (diff > 0 || (diff === 0 && (digits[nDigits - 1]! & 1) !== 0)) roundUp();
  } else {
    roundUp();
  }
}

/** Java switches to E-notation for these estimated exponents and then wants ≥ 2 digits. */
function needsSecondDigit(k: number): boolean {
  return k < -3 || k >= 8;
}

// ---------------------------------------------------------------------------------------------
// Step 1: the integer fast path (values that are integers below 2^63).

function developInteger(F1: number, N: number, X: number, P: number): void {
  const p = X - P - 1;
  const dropped = p >= 2 ? INSIGNIFICANT_DIGITS[p]! : 0;
  const shift = X - N + 1;
  let text: string;
  if (X <= 52) {
    // V < 2^53: exact in doubles, and `%`, exact division and String() are exact too.
    let v = F1 * 2 ** shift;
    if (dropped > 0) {
      const pow10 = POW10[dropped]!;
      const r = v % pow10;
      v = (v - r) / pow10;
      if (r >= pow10 / 2) v += 1; // round half up on the dropped digits
    }
    text = String(v);
  } else {
    let v = BigInt(F1) << BigInt(shift);
    if (dropped > 0) {
      const pow10 = 10n ** BigInt(dropped);
      const r = v % pow10;
      v /= pow10;
      if (r >= pow10 / 2n) v += 1n;
    }
    text = v.toString();
  }
  decExp = text.length + dropped;
  let end = text.length;
  while (end > 1 && text.charCodeAt(end - 1) === 48) end--; // trailing zeros are not digits
  nDigits = end;
  for (let i = 0; i < end; i++) digits[i] = text.charCodeAt(i) - 48;
}

// ---------------------------------------------------------------------------------------------
// Step 2: Java's estimate of floor(log10 v), in double arithmetic in exactly Java's order.

function estimateDecimalExponent(m: number, X: number): number {
  const est = ((m - 1.5) * 0.289529654 + 0.176091259) + X * 0.301029995663981;
  return Math.floor(est) | 0; // `| 0` turns a -0 into 0
}

// ---------------------------------------------------------------------------------------------
// Step 4, three implementations of the same loop. Each leaves the digits in the buffer, sets
// `decExp` and performs step 5.

/** Scaled integers of step 3: B = F1·5^B5·2^B2, S = 5^S5·2^S2, M = 5^B5·2^M2. */
interface Scaled {
  F1: number;
  K: number;
  B5: number;
  B2: number;
  S5: number;
  S2: number;
  M2: number;
}

/** Java's 32-bit mode, emulated exactly with int32 operations (wrap-around included). */
function digitLoopInt32(c: Scaled): void {
  let b = Math.imul(c.F1 | 0, POW5[c.B5]!) << c.B2;
  const s = POW5[c.S5]! << c.S2;
  let m = POW5[c.B5]! << c.M2;
  const tens = Math.imul(s, 10);
  let K = c.K;
  nDigits = 0;

  let q = (b / s) | 0;
  b = Math.imul(10, b % s);
  m = Math.imul(m, 10);
  let low = b < m;
  let high = ((b + m) | 0) > tens;
  if (q === 0 && !high) K--; // the estimate was one too high
  else digits[nDigits++] = q;
  if (needsSecondDigit(K)) low = high = false;
  while (!low && !high) {
    q = (b / s) | 0;
    b = Math.imul(10, b % s);
    m = Math.imul(m, 10);
    if (m > 0) {
      low = b < m;
      high = ((b + m) | 0) > tens;
    } else {
      low = high = true; // Java's "m might overflow" hack
    }
    digits[nDigits++] = q;
  }
  decExp = K + 1;
  // 0 ≤ b < tens < 2^31, so 2b − tens is exact here (Java's int result is the same value).
  roundLastDigit(low, high, 2 * b - tens);
}

/**
 * Java's 64-bit mode when every value stays below 2^53: then nothing can wrap (see the bounds at
 * the call site), so exact double arithmetic gives Java's results.
 */
function digitLoopExact(c: Scaled): void {
  let b = c.F1 * POW5[c.B5]! * 2 ** c.B2;
  const s = POW5[c.S5]! * 2 ** c.S2;
  let m = POW5[c.B5]! * 2 ** c.M2;
  const tens = s * 10;
  let K = c.K;
  nDigits = 0;

  let r = b % s;
  let q = (b - r) / s;
  b = 10 * r;
  m *= 10;
  let low = b < m;
  let high = b + m > tens;
  if (q === 0 && !high) K--;
  else digits[nDigits++] = q;
  if (needsSecondDigit(K)) low = high = false;
  while (!low && !high) {
    r = b % s;
    q = (b - r) / s;
    b = 10 * r;
    m *= 10;
    low = b < m;
    high = b + m > tens;
    digits[nDigits++] = q;
  }
  decExp = K + 1;
  roundLastDigit(low, high, 2 * b - tens);
}

/**
 * The general loop on bigints: Java's 64-bit mode with `long` wrap-around (`wide64`), or Java's
 * FDBigInteger mode (exact, with the inclusive `>=` test for `high`).
 */
function digitLoopBig(c: Scaled, wide64: boolean): void {
  const wrap = wide64 ? (x: bigint): bigint => BigInt.asIntN(64, x) : (x: bigint): bigint => x;
  // Java `long` shifts use the count modulo 64 (counts here are < 64 anyway).
  const sh = (n: number): bigint => BigInt(wide64 ? n & 63 : n);
  let b = wrap(wrap(BigInt(c.F1) * bigPow5(c.B5)) << sh(c.B2));
  const s = wrap(bigPow5(c.S5) << sh(c.S2));
  let m = wrap(bigPow5(c.B5) << sh(c.M2));
  const tens = wrap(s * 10n);
  const isHigh = wide64
    ? (bb: bigint, mm: bigint): boolean => wrap(bb + mm) > tens
    : (bb: bigint, mm: bigint): boolean => bb + mm >= tens;
  let K = c.K;
  nDigits = 0;

  let q = b / s;
  b = wrap(10n * (b % s));
  m = wrap(m * 10n);
  let low = b < m;
  let high = isHigh(b, m);
  if (q === 0n && !high) K--;
  else digits[nDigits++] = Number(q);
  if (needsSecondDigit(K)) low = high = false;
  while (!low && !high) {
    q = b / s;
    b = wrap(10n * (b % s));
    m = wrap(m * 10n);
    if (wide64 && m <= 0n) {
      low = high = true; // Java's "m might overflow" hack
    } else {
      low = b < m;
      high = isHigh(b, m);
    }
    digits[nDigits++] = Number(q);
  }
  decExp = K + 1;
  const diff = wrap((b << 1n) - tens);
  roundLastDigit(low, high, diff > 0n ? 1 : diff < 0n ? -1 : 0);
}

// ---------------------------------------------------------------------------------------------
// Shortest-form shortcut for doubles.

/**
 * Takes the digits from JS's shortest round-trip form when they provably equal Java's. Returns
 * false (buffer untouched) when the value is outside the proven class.
 *
 * Why it is exact, for doubles that are not powers of two (N > 1) with X ≤ 51:
 * - Java's gap is then the true, symmetric half-ulp h, so Java's interval (v−h, v+h) (closed in
 *   the big-integer mode) and JS's round-trip interval differ only in their end points.
 * - The end points v ± h are odd multiples of 2^(X−53) with X − 53 ≤ −2, so their decimal
 *   expansions have at least 18 significant digits; neither JS (≤ 17 digits) nor Java (which
 *   stops by 17 digits) can ever land on one. So both see the same candidates.
 * - Both stop at the first length that has a candidate (truncation or truncation + 1 unit) and
 *   pick the closer one, ties to an even last digit. Hence the same digits and exponent.
 * - Java's forced second digit in E-notation only matters if a 1-digit candidate exists; for a
 *   1-digit JS result we accept only exponents where Java stays in plain notation.
 * - Java's 64-bit mode must not wrap: nothing can wrap while 6·(10S) < 2^63 (tenSbits ≤ 60);
 *   otherwise we check that 10S + M·10^k, the largest sum formed up to the k-th digit, fits.
 */
function tryShortestDigits(abs: number, c: Scaled, tenSbits: number, wide64: boolean): boolean {
  const text = abs.toExponential(); // "d.ddde±x": shortest round-trip digits
  const ePos = text.indexOf('e');
  const e10 = Number(text.slice(ePos + 1));
  const k = ePos === 1 ? 1 : ePos - 1;
  if (k === 1) {
    // Plain notation for Java's exponent, which is e10, or e10 − 1 when a leading 1 came from
    // rounding up across a power of ten.
    if (e10 > 7 || e10 < -3 || (e10 === -3 && text.charCodeAt(0) === 49)) return false;
  }
  if (wide64 && tenSbits > 60) {
    // Java runs one extra iteration when its first quotient is a dropped 0 (estimate too high).
    const iterations = k + Math.max(0, c.K - e10);
    const tens = 10 * POW5[c.S5]! * 2 ** c.S2;
    const mMax = POW5[c.B5]! * 2 ** c.M2 * 10 ** iterations;
    if ((tens + mMax) * (1 + 1e-9) >= TWO_POW_63) return false;
  }
  digits[0] = text.charCodeAt(0) - 48;
  for (let i = 1; i < k; i++) digits[i] = text.charCodeAt(i + 1) - 48;
  nDigits = k;
  decExp = e10 + 1;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Steps 1–5 for one magnitude F1 × 2^(X − N + 1).

/**
 * @param F1 odd significand, N its bit count, X the binary exponent, P the precision for the gap,
 * m = F/2^52 in [1, 2) for the estimate; `abs` is the double value when JS's shortest form may be
 * used (doubles), or NaN (floats).
 */
function generateDigits(F1: number, N: number, X: number, P: number, m: number, abs: number): void {
  const T = Math.max(0, N - X - 1); // binary digits after the point
  if (X >= -21 && X <= 62 && T === 0) {
    developInteger(F1, N, X, P);
    return;
  }
  const K = estimateDecimalExponent(m, X);
  const B5 = Math.max(0, -K);
  const S5 = Math.max(0, K);
  let B2 = B5 + T + X;
  let S2 = S5 + T;
  let M2 = B2 - P;
  B2 -= N - 1;
  const common = Math.min(B2, S2);
  B2 -= common;
  S2 -= common;
  M2 -= common;
  if (N === 1) M2 -= 1; // power of two: Java uses the smaller (lower) gap on both sides
  if (M2 < 0) {
    B2 -= M2;
    S2 -= M2;
    M2 = 0;
  }
  const scaled: Scaled = { F1, K, B5, B2, S5, S2, M2 };
  const Bbits = N + B2 + bitsOfPow5(B5);
  const tenSbits = S2 + 1 + bitsOfPow5(S5 + 1);
  if (Bbits < 32 && tenSbits < 32) {
    digitLoopInt32(scaled);
    return;
  }
  const wide64 = Bbits < 64 && tenSbits < 64;
  // b < 2^49 and 10S < 2^50 keep b, 10M ≤ 10b, and b + m ≤ 6·10S below 2^53 (the loop stops once
  // m > 10S/2): exact in doubles, and far from any `long` wrap-around.
  if (Bbits <= 49 && tenSbits <= 50) {
    digitLoopExact(scaled);
    return;
  }
  if (N > 1 && X <= 51 && !Number.isNaN(abs) && tryShortestDigits(abs, scaled, tenSbits, wide64)) {
    return;
  }
  digitLoopBig(scaled, wide64);
}

// ---------------------------------------------------------------------------------------------
// Layout (§11).

function layout(negative: boolean): string {
  let d = '';
  for (let i = 0; i < nDigits; i++) d += String.fromCharCode(48 + digits[i]!);
  const E = decExp;
  let text: string;
  if (E > 0 && E < 8) {
    if (nDigits <= E) text = d + '0'.repeat(E - nDigits) + '.0';
    else text = d.slice(0, E) + '.' + d.slice(E);
  } else if (E <= 0 && E > -3) {
    text = '0.' + '0'.repeat(-E) + d;
  } else {
    text = d[0] + '.' + (nDigits > 1 ? d.slice(1) : '0') + 'E' + (E - 1);
  }
  return negative ? '-' + text : text;
}

/**
 * Powers of two always take a slow path (Java's halved gap), but there are only ~2,400 of them:
 * their (unsigned) texts are cached by binary exponent.
 */
const powerOfTwoCache = new Map<number, string>();

function magnitudeText(F1: number, N: number, X: number, P: number, m: number, abs: number, isFloat: boolean): string {
  if (N !== 1) {
    generateDigits(F1, N, X, P, m, abs);
    return layout(false);
  }
  const key = isFloat ? X * 2 + 1 : X * 2;
  let text = powerOfTwoCache.get(key);
  if (text === undefined) {
    generateDigits(F1, N, X, P, m, abs);
    text = layout(false);
    powerOfTwoCache.set(key, text);
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// Decomposition (step 0) and the public API.

const scratch = new DataView(new ArrayBuffer(8));

/** Number of trailing zero bits of a positive integer F < 2^53. */
function trailingZeros(F: number): number {
  const lo = F >>> 0; // F mod 2^32
  if (lo !== 0) return 31 - Math.clz32(lo & -lo);
  const hi = Math.floor(F / TWO_POW_32);
  return 32 + 31 - Math.clz32(hi & -hi);
}

/** Java text of the double with the given high and low 32-bit words; `value` is that double. */
function doubleText(hi: number, lo: number, value: number): string {
  const negative = hi >>> 31 !== 0;
  const biased = (hi >>> 20) & 0x7ff;
  const fraction = (hi & 0xfffff) * TWO_POW_32 + lo;
  if (biased === 0x7ff) {
    if (fraction !== 0) return 'NaN';
    return negative ? '-Infinity' : 'Infinity';
  }
  let F: number;
  let X: number;
  let P: number;
  if (biased === 0) {
    if (fraction === 0) return negative ? '-0.0' : '0.0';
    const fractionHi = hi & 0xfffff;
    P = fractionHi !== 0 ? 64 - Math.clz32(fractionHi) : 32 - Math.clz32(lo); // bit length
    F = fraction * 2 ** (53 - P);
    X = -1022 - (53 - P);
  } else {
    F = TWO_POW_52 + fraction;
    X = biased - 1023;
    P = 53;
  }
  const t = trailingZeros(F);
  const text = magnitudeText(F / 2 ** t, 53 - t, X, P, F / TWO_POW_52, Math.abs(value), false);
  return negative ? '-' + text : text;
}

/** Java Double.toString of the IEEE-754 binary64 value. */
export function javaDoubleToString(value: number): string {
  // Integers below 10^7 print as their digits plus ".0" (integer path without dropped digits).
  if (Number.isInteger(value) && value < 1e7 && value > -1e7 && value !== 0) return value + '.0';
  scratch.setFloat64(0, value);
  return doubleText(scratch.getUint32(0), scratch.getUint32(4), value);
}

/** Java Double.toString of the binary64 value given by its raw 64-bit pattern (bigint, as read with getBigUint64/getBigInt64). */
export function javaDoubleBitsToString(bits: bigint): string {
  scratch.setBigUint64(0, BigInt.asUintN(64, bits));
  const value = scratch.getFloat64(0);
  return doubleText(scratch.getUint32(0), scratch.getUint32(4), value);
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
    // Integers below 10^7 print as their digits plus ".0" (integer path without dropped digits).
    if (X <= 23 && X >= 0 && (F24 & ((1 << (23 - X)) - 1)) === 0) {
      const v = F24 / 2 ** (23 - X);
      if (v < 1e7) return (negative ? '-' : '') + v + '.0';
    }
  }
  // In binary64 terms F = F24·2^29; its odd part and significant bit count are those of F24.
  const t = 31 - Math.clz32(F24 & -F24);
  const text = magnitudeText(F24 >>> t, 24 - t, X, P, F24 / 0x800000, NaN, true);
  return negative ? '-' + text : text;
}
