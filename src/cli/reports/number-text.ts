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

/** Bytes in binary units as the reports print them (`512 B`, `1.50 KiB`, `23.4 MiB`). */
export function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}
