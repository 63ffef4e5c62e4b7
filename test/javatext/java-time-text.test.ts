/** Tests of `src/javatext/java-time-text.ts` (`LocalDate`, `YearMonth`, `MonthDay`, `Period`, `ZoneOffset` texts). */
import { describe, expect, it } from 'vitest';
import {
  javaLocalDateText,
  javaMonthDayText,
  javaPeriodText,
  javaYearMonthText,
  javaZoneOffsetText,
} from '../../src/javatext/java-time-text.js';
import { JavaValueError } from '../../src/javatext/java-value-error.js';

describe('javaLocalDateText', () => {
  it.each([
    [2024, 2, 29, '2024-02-29'],
    [1970, 1, 1, '1970-01-01'],
    [-999, 1, 1, '-0999-01-01'],
    [-44, 3, 15, '-0044-03-15'],
    [0, 6, 1, '0000-06-01'],
    [999, 12, 31, '0999-12-31'],
    [9999, 12, 31, '9999-12-31'],
    [10000, 1, 1, '+10000-01-01'],
    [999999999, 12, 31, '+999999999-12-31'],
    [-999999999, 1, 1, '-999999999-01-01'],
    [2000, 2, 29, '2000-02-29'],
  ])('%i-%i-%i -> %s', (y, m, d, text) => {
    expect(javaLocalDateText(y, m, d)).toBe(text);
  });

  it.each([
    [1900, 2, 29],
    [2023, 2, 29],
    [2024, 4, 31],
    [2024, 13, 1],
    [2024, 0, 1],
    [2024, 1, 0],
    [1000000000, 1, 1],
  ])('refuses %i-%i-%i like LocalDate.of', (y, m, d) => {
    expect(() => javaLocalDateText(y, m, d)).toThrow(JavaValueError);
  });
});

describe('javaYearMonthText', () => {
  it.each([
    [2000, 12, '2000-12'],
    [0, 6, '0000-06'],
    [-1, 1, '-0001-01'],
    [99999, 1, '99999-01'],
    [-999999999, 1, '-999999999-01'],
  ])('%i-%i -> %s (no + above 9999)', (y, m, text) => {
    expect(javaYearMonthText(y, m)).toBe(text);
  });

  it('refuses a month out of range', () => {
    expect(() => javaYearMonthText(2000, 13)).toThrow(JavaValueError);
  });
});

describe('javaMonthDayText', () => {
  it.each([
    [2, 29, '--02-29'],
    [1, 1, '--01-01'],
    [12, 31, '--12-31'],
  ])('%i-%i -> %s', (m, d, text) => {
    expect(javaMonthDayText(m, d)).toBe(text);
  });

  it.each([
    [2, 30],
    [4, 31],
    [0, 1],
    [13, 1],
  ])('refuses %i-%i like MonthDay.of', (m, d) => {
    expect(() => javaMonthDayText(m, d)).toThrow(JavaValueError);
  });
});

describe('javaPeriodText', () => {
  it.each([
    [0, 0, 0, 'P0D'],
    [1, -2, 3, 'P1Y-2M3D'],
    [0, 0, 400, 'P400D'],
    [2147483647, 0, -2147483648, 'P2147483647Y-2147483648D'],
    [0, 5, 0, 'P5M'],
  ])('%i %i %i -> %s', (y, m, d, text) => {
    expect(javaPeriodText(y, m, d)).toBe(text);
  });
});

describe('javaZoneOffsetText', () => {
  it.each([
    [0, 'Z'],
    [7200, '+02:00'],
    [19800, '+05:30'],
    [-64800, '-18:00'],
    [64800, '+18:00'],
    [-12307, '-03:25:07'],
    [1, '+00:00:01'],
    [-60, '-00:01'],
  ])('%i -> %s', (seconds, text) => {
    expect(javaZoneOffsetText(seconds)).toBe(text);
  });

  it('refuses offsets beyond ±18:00 like ZoneOffset.ofTotalSeconds', () => {
    expect(() => javaZoneOffsetText(64801)).toThrow(JavaValueError);
    expect(() => javaZoneOffsetText(-64801)).toThrow(JavaValueError);
  });
});
