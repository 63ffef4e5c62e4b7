/**
 * Shortcuts for the values that would take the `bigint` digit loop of java-float-digits.ts: doubles
 * take JS's shortest round-trip form, floats are decided with JS's correctly rounded
 * `toExponential(n)`, each only where it is provably Java's text (see the comments), bailing out to
 * the faithful loop when unsure.
 */

import {
  FLOAT_POW10,
  FLOAT_POW10_BIAS,
  POW10,
  POW5,
  TWO_POW_63,
  digitLoopBig,
  digits,
  isInt64Mode,
  layout,
  needsSecondDigit,
  setDigitsFromExponential,
  type Scaled,
} from './java-float-digits.js';

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
export function shortestDoubleText(F: number, F1: number, N: number, X: number, c: Scaled): string | undefined {
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
export function floatDigits(F1: number, N: number, X: number, P: number, c: Scaled): boolean {
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

