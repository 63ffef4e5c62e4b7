/**
 * The faithful part of Java 8–18 `Double.toString`/`Float.toString` (OpenJDK 17's
 * `jdk.internal.math.FloatingDecimal`, docs/rest-rendering.md §11.1): the tables, the digit buffer,
 * the integer path (step 1), the exponent estimate and scaling (steps 2–3), the digit loop in three
 * exact arithmetics (step 4), the last digit's rounding (step 5) and the layout of the digits.
 * java-float-text.ts decides which path a value takes; java-float-shortcuts.ts proves when JS's
 * own formatting gives the same digits.
 */

// ---------------------------------------------------------------------------------------------
// Tables (the first two copied from OpenJDK's FloatingDecimal).

/** `N_5_BITS[i]` = ⌈i·log2 5⌉, an upper bound of the bit length of 5^i (Java uses 3i beyond). */
const N_5_BITS: readonly number[] = [
  0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56,
  59, 61,
];

/** `INSIGNIFICANT_DIGITS[p]` = ⌊p·log10 2⌋ for p ≥ 2: digits the integer path drops. */
const INSIGNIFICANT_DIGITS: readonly number[] = [
  0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9,
  9, 10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16, 16,
  17, 17, 17, 18, 18, 18, 19,
];

function bitsOfPow5(i: number): number {
  return i < N_5_BITS.length ? N_5_BITS[i]! : i * 3;
}

/** 5^i as doubles (exact up to 5^22; the exact loop only uses indices ≤ 21). */
export const POW5: readonly number[] = Array.from({ length: 27 }, (_, i) => 5 ** i);
/** 10^i as exact doubles. */
export const POW10: readonly number[] = Array.from({ length: 23 }, (_, i) => 10 ** i);
/** The double nearest 10^k for the float exponent range, index k + FLOAT_POW10_BIAS. */
export const FLOAT_POW10_BIAS = 50;
export const FLOAT_POW10: readonly number[] = Array.from({ length: 101 }, (_, i) => Number(`1e${i - FLOAT_POW10_BIAS}`));

const bigPow5Cache: bigint[] = [1n];
function bigPow5(i: number): bigint {
  for (let j = bigPow5Cache.length; j <= i; j++) bigPow5Cache.push(bigPow5Cache[j - 1]! * 5n);
  return bigPow5Cache[i]!;
}

export const TWO_POW_32 = 2 ** 32;
export const TWO_POW_52 = 2 ** 52;
export const TWO_POW_63 = 2 ** 63;

// ---------------------------------------------------------------------------------------------
// Digit buffer shared by the digit generators (everything is synchronous, one buffer suffices):
// `nDigits` digits 0–9, the printed value is 0.d1d2…dn × 10^decExp.

export const digits = new Uint8Array(32);
let nDigits = 0;
let decExp = 0;

/** Copies the digits of a "d.ddde±x" string (from `toExponential`) into the buffer. */
export function setDigitsFromExponential(text: string): void {
  const ePos = text.indexOf('e');
  digits[0] = text.charCodeAt(0) - 48;
  nDigits = 1;
  for (let i = 2; i < ePos; i++) digits[nDigits++] = text.charCodeAt(i) - 48;
  decExp = Number(text.slice(ePos + 1)) + 1;
}

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
 * 2·remainder − 10·S (the remainder against half a unit of the last digit).
 */
function roundLastDigit(low: boolean, high: boolean, diff: number): void {
  if (!high) return;
  if (low) {
    if (diff > 0 || (diff === 0 && (digits[nDigits - 1]! & 1) !== 0)) roundUp();
  } else {
    roundUp();
  }
}

/** Java prints E-notation for these exponents and then wants at least two digits. */
export function needsSecondDigit(k: number): boolean {
  return k < -3 || k >= 8;
}

// ---------------------------------------------------------------------------------------------
// Step 1: the integer fast path (values that are integers below 2^63).

export function developInteger(F1: number, N: number, X: number, P: number): void {
  const p = X - P - 1;
  const dropped = p >= 2 ? INSIGNIFICANT_DIGITS[p]! : 0;
  const shift = X - N + 1;
  let text: string;
  if (X <= 52) {
    // V < 2^53: exact in doubles, and `%`, an exact division and String() are exact too.
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
// Steps 2 and 3: exponent estimate and scaled integers.

/** Java's estimate of floor(log10 v) (or one more), in double arithmetic in Java's order. */
export function estimateDecimalExponent(m: number, X: number): number {
  const est = ((m - 1.5) * 0.289529654 + 0.176091259) + X * 0.301029995663981;
  return Math.floor(est) | 0; // `| 0` turns a -0 into 0
}

/**
 * B = F1·5^B5·2^B2, S = 5^S5·2^S2, M = 5^B5·2^M2 with B/S = v/10^K and M/S = half the gap in
 * units of 10^K; `bBits`/`tenSBits` are Java's size estimates that select the arithmetic width.
 */
export interface Scaled {
  F1: number;
  K: number;
  B5: number;
  B2: number;
  S5: number;
  S2: number;
  M2: number;
  bBits: number;
  tenSBits: number;
}

export function scale(F1: number, N: number, X: number, P: number, T: number, K: number): Scaled {
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
  const bBits = N + B2 + bitsOfPow5(B5);
  const tenSBits = S2 + 1 + bitsOfPow5(S5 + 1);
  return { F1, K, B5, B2, S5, S2, M2, bBits, tenSBits };
}

/** Java's 32-bit mode (`int` arithmetic). */
export function isInt32Mode(c: Scaled): boolean {
  return c.bBits < 32 && c.tenSBits < 32;
}

/** Java's 64-bit mode (`long` arithmetic); otherwise Java uses exact big integers. */
export function isInt64Mode(c: Scaled): boolean {
  return c.bBits < 64 && c.tenSBits < 64;
}

// ---------------------------------------------------------------------------------------------
// Step 4, three implementations of the same loop. Each leaves the digits in the buffer, sets
// `decExp` and performs step 5.

/** Java's 32-bit mode, emulated exactly with int32 operations (wrap-around included). */
export function digitLoopInt32(c: Scaled): void {
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
  // 0 ≤ b < tens < 2^31, so 2b − tens is exact (and equal to Java's int result).
  roundLastDigit(low, high, 2 * b - tens);
}

/**
 * Java's 64-bit mode when every value stays below 2^53 (`fitsInDoubles`): then nothing can wrap
 * and exact double arithmetic gives Java's results.
 */
export function digitLoopExact(c: Scaled): void {
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
 * b < 2^49 and 10S < 2^50 keep every value below 2^53: the first 10M ≤ 5b, and the loop stops as
 * soon as m > 10S/2, so m ≤ 5·10S and b + m < 6·10S. Far from any `long` wrap-around, too.
 */
export function fitsInDoubles(c: Scaled): boolean {
  return c.bBits <= 49 && c.tenSBits <= 50;
}

/**
 * The general loop on bigints: Java's 64-bit mode with `long` wrap-around, or Java's
 * FDBigInteger mode (exact, with the inclusive `>=` test for `high`).
 */
export function digitLoopBig(c: Scaled): void {
  const wide64 = isInt64Mode(c);
  const wrap = wide64 ? (x: bigint): bigint => BigInt.asIntN(64, x) : (x: bigint): bigint => x;
  let b = wrap(wrap(BigInt(c.F1) * bigPow5(c.B5)) << BigInt(c.B2));
  const s = wrap(bigPow5(c.S5) << BigInt(c.S2));
  let m = wrap(bigPow5(c.B5) << BigInt(c.M2));
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

/** The faithful loop in the cheapest exact arithmetic. */
export function digitLoop(c: Scaled): void {
  if (isInt32Mode(c)) digitLoopInt32(c);
  else if (fitsInDoubles(c)) digitLoopExact(c);
  else digitLoopBig(c);
}

// ---------------------------------------------------------------------------------------------
// Layout (§11): plain for 1 ≤ E ≤ 7 and −2 ≤ E ≤ 0, else d.ddd E<E−1>.

export function layout(): string {
  let d = '';
  for (let i = 0; i < nDigits; i++) d += String.fromCharCode(48 + digits[i]!);
  const E = decExp;
  if (E > 0 && E < 8) {
    if (nDigits <= E) return d + '0'.repeat(E - nDigits) + '.0';
    return d.slice(0, E) + '.' + d.slice(E);
  }
  if (E <= 0 && E > -3) return '0.' + '0'.repeat(-E) + d;
  return d[0] + '.' + (nDigits > 1 ? d.slice(1) : '0') + 'E' + (E - 1);
}

