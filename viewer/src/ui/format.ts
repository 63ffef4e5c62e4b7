/** Number, size and text formatting for display. */

const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** `83783` → `81.8 KiB`; byte counts arrive as decimal strings (they may exceed 2^53). */
export function humanBytes(value: string | number | bigint): string {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) return String(value);
  if (Math.abs(n) < 1024) return `${n} ${n === 1 ? 'byte' : 'bytes'}`;
  let unit = 0;
  let scaled = n;
  while (Math.abs(scaled) >= 1024 && unit < UNITS.length - 1) {
    scaled /= 1024;
    unit++;
  }
  const digits = scaled >= 100 ? 0 : scaled >= 10 ? 1 : 2;
  return `${scaled.toFixed(digits)} ${UNITS[unit] ?? ''}`;
}

const grouping = new Intl.NumberFormat('en-US');

/** `50000` → `50,000` (exact for big values given as strings). */
export function groupDigits(value: string | number | bigint): string {
  try {
    return grouping.format(typeof value === 'string' ? BigInt(value) : value);
  } catch {
    return String(value);
  }
}

export function percent(part: number, whole: number): string {
  if (whole <= 0) return '–';
  const p = (100 * part) / whole;
  return `${p >= 99.95 && p < 100 ? '99.9' : p.toFixed(1)} %`;
}

/** A Java string as a quoted literal with control characters made visible. */
export function quote(text: string, max = Number.POSITIVE_INFINITY): string {
  const cut = text.length > max;
  const shown = cut ? text.slice(0, max) : text;
  return `"${escapeControls(shown)}${cut ? '…' : ''}"`;
}

/**
 * Control characters as escapes (`\n`, `\u0007`); the invisible format characters (U+202E, U+2028…)
 * are left to the DOM helpers, which show them as styled escapes (invisible.ts).
 */
export function escapeControls(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f"\\]/g, (c) => {
    switch (c) {
      case '\n': return '\\n';
      case '\r': return '\\r';
      case '\t': return '\\t';
      case '"': return '\\"';
      case '\\': return '\\\\';
      default: return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    }
  });
}

/** Wall-clock time of day, 24 h (`14:03:07`). */
export function formatTime(date: Date): string {
  return date.toLocaleTimeString('en-GB', { hour12: false });
}
