import { BIGINT, BOOLEAN, DATE, DECIMAL, DOUBLE, DuckDBDateValue, DuckDBTimestampValue, DuckDBTimeValue, FLOAT, INTEGER, SMALLINT, TIME, TIMESTAMP, TINYINT, UINTEGER, USMALLINT, UTINYINT, VARCHAR } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { converterFor } from '../../../src/sql/answers/result-values.js';

/**
 * The JSON value of each DuckDB type every client relies on (docs/sql.md): small integers and
 * floats as numbers (non-finite ones by name), 64-bit and wider as decimal strings, times as ISO
 * texts at the edges where the conversion branches (before the epoch, year 0, year 9999 and
 * beyond), NULL as null.
 */

/** Microseconds since the epoch of a UTC date and time, made by Date.UTC (years 0–99 set apart from 1900–1999). */
function micros(year: number, month: number, day: number, ms = 0): bigint {
  const d = new Date(Date.UTC(2000, month - 1, day));
  d.setUTCFullYear(year);
  return BigInt(d.getTime() + ms) * 1000n;
}
const DAY_MS = 86_400_000;

describe('DuckDB values as JSON', () => {
  it('small integers and floats as numbers, each type', () => {
    for (const type of [TINYINT, SMALLINT, INTEGER, UTINYINT, USMALLINT, UINTEGER, FLOAT, DOUBLE]) {
      expect(converterFor(type)(7), type.toString()).toBe(7);
    }
    expect(converterFor(DOUBLE)(-2.5)).toBe(-2.5);
  });

  it('non-finite floats by their names', () => {
    const convert = converterFor(DOUBLE);
    expect([convert(Number.NaN), convert(Number.POSITIVE_INFINITY), convert(Number.NEGATIVE_INFINITY)]).toEqual(['NaN', 'Infinity', '-Infinity']);
    expect(converterFor(FLOAT)(Number.NEGATIVE_INFINITY)).toBe('-Infinity');
  });

  it('booleans as booleans, texts as they are, 64-bit and decimals as decimal strings, NULL as null', () => {
    expect(converterFor(BOOLEAN)(true)).toBe(true);
    expect(converterFor(BOOLEAN)(false)).toBe(false);
    expect(converterFor(VARCHAR)('a "b"')).toBe('a "b"');
    expect(converterFor(BIGINT)(9_223_372_036_854_775_807n)).toBe('9223372036854775807');
    expect(converterFor(BIGINT)(-9_223_372_036_854_775_808n)).toBe('-9223372036854775808');
    for (const type of [INTEGER, BOOLEAN, VARCHAR, BIGINT, TIMESTAMP, DATE, TIME, DECIMAL(18, 3)]) expect(converterFor(type)(null), type.toString()).toBeNull();
  });

  it('timestamps as ISO-8601 with milliseconds and Z, before the epoch rounded down to the millisecond', () => {
    const convert = converterFor(TIMESTAMP);
    expect(convert(new DuckDBTimestampValue(micros(2023, 11, 14, 80_000_123) + 456n))).toBe('2023-11-14T22:13:20.123Z');
    expect(convert(new DuckDBTimestampValue(0n))).toBe('1970-01-01T00:00:00.000Z');
    // A microsecond before the epoch is in the millisecond before it, not in the epoch's.
    expect(convert(new DuckDBTimestampValue(-1n))).toBe('1969-12-31T23:59:59.999Z');
    expect(convert(new DuckDBTimestampValue(-999n))).toBe('1969-12-31T23:59:59.999Z');
    // A whole millisecond before it is that millisecond.
    expect(convert(new DuckDBTimestampValue(-1000n))).toBe('1969-12-31T23:59:59.999Z');
    expect(convert(new DuckDBTimestampValue(-1001n))).toBe('1969-12-31T23:59:59.998Z');
  });

  it('timestamps of year 0 and 9999 in ISO form; outside those years as DuckDB writes them', () => {
    const convert = converterFor(TIMESTAMP);
    expect(convert(new DuckDBTimestampValue(micros(0, 3, 1)))).toBe('0000-03-01T00:00:00.000Z');
    expect(convert(new DuckDBTimestampValue(micros(9999, 12, 31, DAY_MS - 1)))).toBe('9999-12-31T23:59:59.999Z');
    const after = new DuckDBTimestampValue(micros(10000, 1, 1));
    expect(convert(after)).toBe(after.toString());
    expect(convert(after)).toMatch(/^10000-01-01/);
    const before = new DuckDBTimestampValue(micros(-1, 12, 31));
    expect(convert(before)).toBe(before.toString());
    expect(convert(before)).not.toMatch(/Z$/);
  });

  it('dates as YYYY-MM-DD, years before 1 with a minus and four digits, after 9999 with a plus', () => {
    const convert = converterFor(DATE);
    const days = (year: number, month: number, day: number): DuckDBDateValue => new DuckDBDateValue(Number(micros(year, month, day) / 1000n) / DAY_MS);
    expect(convert(days(2024, 3, 5))).toBe('2024-03-05');
    expect(convert(new DuckDBDateValue(-1))).toBe('1969-12-31');
    expect(convert(days(0, 1, 1))).toBe('0000-01-01');
    expect(convert(days(-44, 3, 15))).toBe('-0044-03-15');
    expect(convert(days(9999, 12, 31))).toBe('9999-12-31');
    expect(convert(days(10000, 1, 1))).toBe('+10000-01-01');
    // DuckDB's infinite date (2^31 − 1 days) is past what a JS Date holds: DuckDB's own text.
    const infinite = new DuckDBDateValue(2_147_483_647);
    expect(convert(infinite)).toBe(infinite.toString());
    expect(convert(infinite)).not.toMatch(/^\+/);
  });

  it('times as HH:MM:SS.mmm, microseconds cut', () => {
    const convert = converterFor(TIME);
    expect(convert(new DuckDBTimeValue(0n))).toBe('00:00:00.000');
    expect(convert(new DuckDBTimeValue(((13n * 60n + 4n) * 60n + 5n) * 1_000_000n + 6_999n))).toBe('13:04:05.006');
    expect(convert(new DuckDBTimeValue(86_400_000_000n - 1n))).toBe('23:59:59.999');
  });
});
