/**
 * Java `toString()` texts of the `java.time` value types that later generations store through
 * built-in handlers: `LocalDate`, `YearMonth`, `MonthDay`, `Period` and `ZoneOffset`.
 *
 * EclipseStore's REST adapter (and MicroStream's from 5 on, for `ZoneOffset`) rebuilds these
 * with the JDK factories (`LocalDate.of`, `ZoneOffset.ofTotalSeconds`, ...) and shows their
 * `toString()`. The factories validate their arguments; where Java would throw a
 * `DateTimeException` the adapter answers 500, reproduced here by throwing `JavaValueError`.
 * Reference: OpenJDK 17. Pure: ECMAScript built-ins only.
 */

import { pad2 } from './java-text-util.js';
import { JavaValueError } from './java-value-error.js';

const MIN_YEAR = -999_999_999;
const MAX_YEAR = 999_999_999;
const MAX_OFFSET_SECONDS = 18 * 3600;
const MONTH_NAMES = [
  'JANUARY', 'FEBRUARY', 'MARCH', 'APRIL', 'MAY', 'JUNE',
  'JULY', 'AUGUST', 'SEPTEMBER', 'OCTOBER', 'NOVEMBER', 'DECEMBER',
] as const;
/** `Month.maxLength()`: February may have 29 days. */
const MAX_MONTH_LENGTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function checkRange(value: number, min: number, max: number, field: string): void {
  if (value < min || value > max) {
    throw new JavaValueError(`Invalid value for ${field} (valid values ${min} - ${max}): ${value}`);
  }
}

function isLeapYear(year: number): boolean {
  return (year & 3) === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/**
 * The year as `LocalDate`/`YearMonth` print it: at least four digits with the sign in front
 * (`-0044`, `0000`); `LocalDate` adds `+` above 9999, `YearMonth` does not.
 */
function yearText(year: number, plusAbove9999: boolean): string {
  const abs = Math.abs(year);
  if (abs < 1000) return `${year < 0 ? '-' : ''}${String(abs).padStart(4, '0')}`;
  return plusAbove9999 && year > 9999 ? `+${year}` : String(year);
}

/** `LocalDate.of(year, month, day).toString()`, e.g. `2024-02-29`, `-0999-01-01`, `+10000-01-01`. */
export function javaLocalDateText(year: number, month: number, day: number): string {
  checkRange(year, MIN_YEAR, MAX_YEAR, 'Year');
  checkRange(month, 1, 12, 'MonthOfYear');
  checkRange(day, 1, 31, 'DayOfMonth');
  if (day > 28) {
    const length = month === 2 ? (isLeapYear(year) ? 29 : 28) : MAX_MONTH_LENGTH[month - 1]!;
    if (day > length) {
      throw new JavaValueError(
        day === 29
          ? `Invalid date 'February 29' as '${year}' is not a leap year`
          : `Invalid date '${MONTH_NAMES[month - 1]} ${day}'`,
      );
    }
  }
  return `${yearText(year, true)}-${pad2(month)}-${pad2(day)}`;
}

/** `YearMonth.of(year, month).toString()`, e.g. `2000-12`, `0000-06`. */
export function javaYearMonthText(year: number, month: number): string {
  checkRange(year, MIN_YEAR, MAX_YEAR, 'Year');
  checkRange(month, 1, 12, 'MonthOfYear');
  return `${yearText(year, false)}-${pad2(month)}`;
}

/** `MonthDay.of(month, day).toString()`, e.g. `--02-29`. */
export function javaMonthDayText(month: number, day: number): string {
  if (month < 1 || month > 12) throw new JavaValueError(`Invalid value for MonthOfYear: ${month}`);
  checkRange(day, 1, 31, 'DayOfMonth');
  if (day > MAX_MONTH_LENGTH[month - 1]!) {
    throw new JavaValueError(`Illegal value for DayOfMonth field, value ${day} is not valid for month ${MONTH_NAMES[month - 1]}`);
  }
  return `--${pad2(month)}-${pad2(day)}`;
}

/** `Period.of(years, months, days).toString()`: `P0D`, `P1Y-2M3D` (zero parts left out). */
export function javaPeriodText(years: number, months: number, days: number): string {
  if (years === 0 && months === 0 && days === 0) return 'P0D';
  return `P${years !== 0 ? `${years}Y` : ''}${months !== 0 ? `${months}M` : ''}${days !== 0 ? `${days}D` : ''}`;
}

/** `ZoneOffset.ofTotalSeconds(s).toString()`: `Z`, `+05:30`, `-03:25:07`. */
export function javaZoneOffsetText(totalSeconds: number): string {
  if (Math.abs(totalSeconds) > MAX_OFFSET_SECONDS) {
    throw new JavaValueError('Zone offset not in valid range: -18:00 to +18:00');
  }
  if (totalSeconds === 0) return 'Z';
  const abs = Math.abs(totalSeconds);
  const seconds = abs % 60;
  const text = `${totalSeconds < 0 ? '-' : '+'}${pad2(Math.floor(abs / 3600))}:${pad2(Math.floor(abs / 60) % 60)}`;
  return seconds === 0 ? text : `${text}:${pad2(seconds)}`;
}
