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
 * identical (see their comments): doubles take JS's shortest form, floats are decided with JS's
 * correctly rounded `toExponential(n)`. Both bail out to the faithful loop when unsure.
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
const POW5: readonly number[] = Array.from({ length: 27 }, (_, i) => 5 ** i);
/** 10^i as exact doubles. */
const POW10: readonly number[] = Array.from({ length: 23 }, (_, i) => 10 ** i);
/** The double nearest 10^k for the float exponent range, index k + FLOAT_POW10_BIAS. */
const FLOAT_POW10_BIAS = 50;
const FLOAT_POW10: readonly number[] = Array.from({ length: 101 }, (_, i) => Number(`1e${i - FLOAT_POW10_BIAS}`));

const bigPow5Cache: bigint[] = [1n];
function bigPow5(i: number): bigint {
  for (let j = bigPow5Cache.length; j <= i; j++) bigPow5Cache.push(bigPow5Cache[j - 1]! * 5n);
  return bigPow5Cache[i]!;
}

const TWO_POW_32 = 2 ** 32;
const TWO_POW_52 = 2 ** 52;
const TWO_POW_63 = 2 ** 63;

// ---------------------------------------------------------------------------------------------
// Digit buffer shared by the digit generators (everything is synchronous, one buffer suffices):
// `nDigits` digits 0–9, the printed value is 0.d1d2…dn × 10^decExp.

const digits = new Uint8Array(32);
let nDigits = 0;
let decExp = 0;

/** Copies the digits of a "d.ddde±x" string (from `toExponential`) into the buffer. */
function setDigitsFromExponential(text: string): void {
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
function estimateDecimalExponent(m: number, X: number): number {
  const est = ((m - 1.5) * 0.289529654 + 0.176091259) + X * 0.301029995663981;
  return Math.floor(est) | 0; // `| 0` turns a -0 into 0
}

/**
 * B = F1·5^B5·2^B2, S = 5^S5·2^S2, M = 5^B5·2^M2 with B/S = v/10^K and M/S = half the gap in
 * units of 10^K; `bBits`/`tenSBits` are Java's size estimates that select the arithmetic width.
 */
interface Scaled {
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

function scale(F1: number, N: number, X: number, P: number, T: number, K: number): Scaled {
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
function isInt32Mode(c: Scaled): boolean {
  return c.bBits < 32 && c.tenSBits < 32;
}

/** Java's 64-bit mode (`long` arithmetic); otherwise Java uses exact big integers. */
function isInt64Mode(c: Scaled): boolean {
  return c.bBits < 64 && c.tenSBits < 64;
}

// ---------------------------------------------------------------------------------------------
// Step 4, three implementations of the same loop. Each leaves the digits in the buffer, sets
// `decExp` and performs step 5.

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
  // 0 ≤ b < tens < 2^31, so 2b − tens is exact (and equal to Java's int result).
  roundLastDigit(low, high, 2 * b - tens);
}

/**
 * Java's 64-bit mode when every value stays below 2^53 (`fitsInDoubles`): then nothing can wrap
 * and exact double arithmetic gives Java's results.
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
 * b < 2^49 and 10S < 2^50 keep every value below 2^53: the first 10M ≤ 5b, and the loop stops as
 * soon as m > 10S/2, so m ≤ 5·10S and b + m < 6·10S. Far from any `long` wrap-around, too.
 */
function fitsInDoubles(c: Scaled): boolean {
  return c.bBits <= 49 && c.tenSBits <= 50;
}

/**
 * The general loop on bigints: Java's 64-bit mode with `long` wrap-around, or Java's
 * FDBigInteger mode (exact, with the inclusive `>=` test for `high`).
 */
function digitLoopBig(c: Scaled): void {
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
function digitLoop(c: Scaled): void {
  if (isInt32Mode(c)) digitLoopInt32(c);
  else if (fitsInDoubles(c)) digitLoopExact(c);
  else digitLoopBig(c);
}

// ---------------------------------------------------------------------------------------------
// Shortcuts for the values that would need the bigint loop.

/**
 * In Java's 64-bit mode nothing wraps while 6·10S < 2^63 (see `fitsInDoubles`). Beyond that, a
 * run that stops after `iterations` quotients is still wrap-free if the largest sum it forms,
 * 10S + M·10^iterations, stays below 2^63 (checked in doubles with a safety margin).
 */
function cannotWrap(c: Scaled, iterations: number): boolean {
  if (!isInt64Mode(c) || c.tenSBits <= 60) return true;
  const tens = 10 * POW5[c.S5]! * 2 ** c.S2;
  const mMax = POW5[c.B5]! * 2 ** c.M2 * 10 ** iterations;
  return (tens + mMax) * (1 + 1e-9) < TWO_POW_63;
}

/**
 * For a double X ≥ 63, whether an end point v ± h = (2F ± 1)·2^(X−53) might be a decimal of ≤ 17
 * digits s·10^q. That needs q ≥ 1 (the end point exceeds 10^17), 5^q dividing the odd 2F ± 1,
 * and s = (2F ± 1)·2^(X−53−q)/5^q < 10^17.
 */
function endPointMayBeShort(F: number, X: number): boolean {
  for (const sign of [-1, 1]) {
    let q = 0;
    while (q < 22 && (2 * (F % POW5[q + 1]!) + sign) % POW5[q + 1]! === 0) q++;
    if (q === 0) continue;
    if (q >= 22) return true;
    if (((2 * F) * 2 ** (X - 53 - q)) / POW5[q]! < 1.0001e17) return true;
  }
  return false;
}

/**
 * Doubles: Java's text from JS's shortest round-trip form, or undefined if not proven equal.
 *
 * Why this is exact for doubles that are not powers of two (N > 1):
 * - Java's half gap h is then the true, symmetric half ulp, so Java's interval (v−h, v+h) (closed
 *   in the big-integer mode) and JS's round-trip interval differ only in their end points.
 * - The end points are odd multiples of 2^(X−53). For X ≤ 51 their decimal expansions have at
 *   least 18 significant digits (for 52 ≤ X ≤ 62 every double takes the integer path); for X ≥ 63
 *   `endPointMayBeShort` checks. Neither JS (≤ 17 digits) nor Java (which always stops by 17
 *   digits) can then land on an end point: both see the same candidates.
 * - Both stop at the first length n that has a candidate in the interval (it is the truncation
 *   or the truncation + 1 unit) and take the closer one, ties to an even digit: same digits.
 * - A one-digit JS result d·10^e: Java's exponent is e (also e = 7, printed "d.0E7") unless
 *   d = 1 came from rounding up across 10^e, which only the double nearest 10^e can do; those
 *   are computed once per e and cached. In E-notation Java forces a second digit: it then stops
 *   at two digits (d0 is a two-digit candidate) with the closest two-digit decimal, which is
 *   `toExponential(1)` (no ties: v is within h of d·10^e).
 * - Java's 64-bit mode must not wrap before it stops (`cannotWrap`).
 */
function shortestDoubleText(F: number, F1: number, N: number, X: number, c: Scaled): string | undefined {
  if (N === 1 || (X >= 63 && endPointMayBeShort(F, X))) return undefined;
  const v = F1 * 2 ** (X - N + 1);
  if (v >= 0.001 && v < 1e7) {
    // Plain notation, and JS's own layout of the same digits is Java's (v is not an integer
    // here). No one-digit quirk: the doubles nearest 0.001, 0.01 and 0.1 lie above those.
    const text = String(v);
    if (c.tenSBits > 60 && !cannotWrap(c, plainIterations(text, c.K))) return undefined;
    return text;
  }
  const text = v.toExponential();
  const ePos = text.indexOf('e');
  const e10 = Number(text.slice(ePos + 1));
  const nJava = ePos === 1 ? (needsSecondDigit(e10) ? 2 : 1) : ePos - 1;
  // One more quotient when Java's estimate is one too high (its first quotient 0 is dropped).
  if (!cannotWrap(c, nJava + Math.max(0, c.K - e10))) return undefined;
  if (ePos === 1 && text.charCodeAt(0) === 49) return powerOfTenText(e10, c);

  const exponential = nJava === 2 && ePos === 1 ? v.toExponential(1) : text;
  const mantissaEnd = exponential.indexOf('e');
  const mantissa = exponential.slice(0, mantissaEnd);
  const exponent = exponential.slice(mantissaEnd + (exponential.charCodeAt(mantissaEnd + 1) === 43 ? 2 : 1));
  return (mantissaEnd === 1 ? mantissa + '.0' : mantissa) + 'E' + exponent;
}

/**
 * Quotients Java computes for a plain JS number text (no sign, no exponent) of the same digits:
 * one per significant digit, plus a dropped leading 0 when the estimate K is one too high.
 */
function plainIterations(text: string, K: number): number {
  const point = text.indexOf('.');
  let first = 0; // index of the first significant digit
  while (text.charCodeAt(first) === 48 || text.charCodeAt(first) === 46) first++;
  const e10 = first < point ? point - first - 1 : point - first;
  const count = text.length - first - (first < point ? 1 : 0);
  return count + Math.max(0, K - e10);
}

/** Texts of the doubles nearest 10^e whose shortest form is "1e<e>" (Java's digits vary). */
const powerOfTenCache = new Map<number, string>();

function powerOfTenText(e10: number, c: Scaled): string {
  let text = powerOfTenCache.get(e10);
  if (text === undefined) {
    digitLoopBig(c);
    text = layout();
    powerOfTenCache.set(e10, text);
  }
  return text;
}

/**
 * Whether the float v lies exactly halfway between two decimals with unit 10^−a (2·v·10^a is an
 * odd integer). Only 0 ≤ a ≤ 12 can be ties: a tie at n ≤ 9 digits is a float F1·2^−j (F1 odd,
 * ≥ 3) whose exact expansion F1·5^j has n + 1 ≤ 10 digits, so j = a + 1 ≤ 13; a < 0 would be an
 * integer, and integer floats reaching this code are ≥ 2^63, too coarse for a tie at 9 digits.
 * For 0 ≤ a ≤ 12 the product (24 + 28 significant bits) is exact.
 */
function isDecimalTie(v: number, a: number): boolean {
  if (a < 0 || a > 12) return false;
  const y = 2 * v * POW10[a]!;
  return Number.isInteger(y) && y % 2 === 1;
}

/**
 * Floats: Java's digits decided with JS's correctly rounded `toExponential(n − 1)`. Fills the
 * digit buffer and returns true, or returns false if not proven equal.
 *
 * Why this is exact for floats that are not powers of two (N > 1):
 * - v and the interval ends lo = v − h, hi = v + h (Java's symmetric half gap) are exact doubles.
 * - Java stops at the first length n (≥ 2 in E-notation) where the truncation t or t + 1 unit
 *   lies in the interval. As the interval is symmetric, that holds iff the closer of the two,
 *   c = toExponential(n − 1), lies in it; c < lo ⇒ Number(c) ≤ lo and c > hi ⇒ Number(c) ≥ hi,
 *   so `lo < Number(c) < hi` decides it, and equality (where Java's strict/inclusive end-point
 *   tests would matter) bails out. The property grows with n, so n is found by bisection; at
 *   n = 9 it always holds for floats.
 * - Java keeps the closer candidate, on a tie the even one, where `toExponential` takes the
 *   larger: ties are detected exactly (`isDecimalTie`) and corrected.
 * - The first digit: if the estimate K is one too high, Java drops the leading 0 unless 10^K is
 *   itself inside (then it prints odd texts: bail out). Comparing v with the double nearest 10^K
 *   decides which case applies, except for v equal to it when 10^K is not exact (bail out).
 */
function floatDigits(F1: number, N: number, X: number, P: number, c: Scaled): boolean {
  if (N === 1) return false;
  const v = F1 * 2 ** (X - N + 1);
  const h = 2 ** (X - P);
  const lo = v - h;
  const hi = v + h;
  let K = c.K;
  const pow10 = FLOAT_POW10[K + FLOAT_POW10_BIAS]!;
  if (v < pow10) {
    if (pow10 <= hi) return false; // 10^K may be inside: Java keeps a leading 0
    K--;
  } else if (v === pow10 && (K < 0 || K > 22)) {
    return false;
  }

  let best: string | undefined; // toExponential text of the smallest n known to be inside
  let lowN = needsSecondDigit(K) ? 2 : 1;
  let highN = 9;
  while (lowN < highN) {
    const mid = (lowN + highN) >> 1;
    const candidate = v.toExponential(mid - 1);
    const x = Number(candidate);
    if (x === lo || x === hi) return false;
    if (lo < x && x < hi) {
      highN = mid;
      best = candidate;
    } else {
      lowN = mid + 1;
    }
  }
  const n = lowN;
  if (!cannotWrap(c, n + (c.K - K))) return false;
  setDigitsFromExponential(best ?? v.toExponential(n - 1));
  if (isDecimalTie(v, n - 1 - K) && (digits[n - 1]! & 1) !== 0) digits[n - 1]! -= 1;
  return true;
}

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
// Layout (§11): plain for 1 ≤ E ≤ 7 and −2 ≤ E ≤ 0, else d.ddd E<E−1>.

function layout(): string {
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
