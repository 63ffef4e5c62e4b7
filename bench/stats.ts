/** Medians with their spread: every benchmark figure is a few repeated runs, never one. */

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly runs: number;
}

export function spread(values: readonly number[]): Spread {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, runs: 0 };
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted.at(-1) as number, runs: sorted.length };
}

/** `12.3` with the given digits, `-` for a missing figure. */
export function fmt(n: number | undefined, digits = 1): string {
  return n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits);
}

/** `median [min–max]`, or just the median for one run. */
export function fmtSpread(s: Spread, digits = 1, unit = ''): string {
  if (s.runs === 0) return '-';
  if (s.runs === 1 || s.min === s.max) return `${fmt(s.median, digits)}${unit}`;
  return `${fmt(s.median, digits)}${unit} [${fmt(s.min, digits)}–${fmt(s.max, digits)}]`;
}

/** Relative spread (max − min) / median, the noise of a set of runs. */
export function relativeSpread(s: Spread): number {
  return s.runs < 2 || s.median === 0 ? 0 : (s.max - s.min) / s.median;
}
