/**
 * Whole numbers with thousands separators (`7,508,508`), as the reports print them. Not
 * `toLocaleString`: its first call sets up ICU's number formatting, about 20 ms of a `check`
 * that otherwise takes 150.
 */
export function groupDigits(n: number | bigint): string {
  // Fractions and numbers past 2^53 are rare here: the locale's own form.
  if (typeof n === 'number' && !Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const text = String(n);
  const sign = text.startsWith('-') ? '-' : '';
  return sign + text.slice(sign.length).replace(/\B(?=(\d{3})+$)/g, ',');
}
