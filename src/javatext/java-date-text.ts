/**
 * Java `toString()` texts of `java.util.Date`, `java.sql.Date`, `java.sql.Time` and
 * `java.sql.Timestamp`, rebuilt from the stored epoch milliseconds.
 *
 * The MicroStream 4.1 REST service renders these types as Java's `toString()` (rest-rendering.md
 * §10.4, stored layouts in storage-format.md §8.3). Java's calendar is reproduced exactly: the
 * Julian calendar before the 1582 Gregorian cutover, years of era, Java 17's year formatting and
 * its 64-bit overflows; zones come from `java-time-zones.ts`. Reference: OpenJDK 17 (the
 * conformance corpus was recorded on Java 17, JVM time zone UTC), checked against Java 17.0.15.
 * Pure: no `node:*` imports, only ECMAScript built-ins, so it also runs in a browser.
 */

import { pad2 } from './java-text-util.js';
import { UTC, zoneOffsetAt, type JavaTimeZone } from './java-time-zones.js';

const MS_PER_DAY = 86_400_000n;
/** `GregorianCalendar.DEFAULT_GREGORIAN_CUTOVER`: 1582-10-15T00:00:00Z. */
const GREGORIAN_CUTOVER_MS = -12_219_292_800_000n;
const JDN_OF_EPOCH = 2_440_588;

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const MONTHS = [
  'Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec',
] as const;

/** The calendar fields `java.util.Date` computes in its `normalize()`. */
interface JavaDateFields {
  /** `getYear() + 1900`: the Gregorian year, or the Julian year *of era* (1 BC is 1). */
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hours: number;
  readonly minutes: number;
  readonly seconds: number;
  /** 0 = Sunday. */
  readonly dayOfWeek: number;
  readonly zoneName: string;
}

/**
 * Java `java.util.Date.toString()`: `EEE MMM dd HH:mm:ss zzz yyyy`, English names, milliseconds
 * not shown. `epochMillis` is the stored Java `long` (values outside its range are wrapped to
 * 64 bits, as the date functions below do too).
 *
 * Calendar: like `java.util.Date`, instants whose local time is before 1582-10-15 (the Gregorian
 * cutover) use the Julian calendar, and the year printed is the year *of era* without padding
 * (`Fri Dec 31 23:59:59 UTC 1` is 31 Dec 1 BC; there is no era marker).
 *
 * Time zones (default {@link UTC}, the zone of the conformance corpus): the zone name is Java
 * 17's short US display name of the zone for standard or daylight time (`CET`/`CEST`,
 * `PST`/`PDT`, `GMT-05:00` for `Etc/GMT+5`, the normalised id for custom ids such as
 * `GMT+05:30`). UTC, `Etc/*`, custom ids and the other fixed-offset zones are exact and need no
 * `Intl`. For the other zones this is an approximation of Java's `ZoneInfo`:
 * - Before 1900-01-01T00:00Z Java uses the zone's raw offset without daylight saving (it ignores
 *   local mean time); so does this module.
 * - From 1900 on the offset comes from `Intl.DateTimeFormat` (`timeZoneName: 'longOffset'`), i.e.
 *   from the runtime's tz database, which may differ from the JVM's (Java 17.0.15 has 2025a).
 *   After 2037 Java follows the zone's recurring DST rule, or keeps the last offset if the zone
 *   has none (Africa/Casablanca); in year 292278994 it applies no northern-hemisphere summer time
 *   (a long overflow); both are reproduced. Beyond the `Intl` range the instant is moved by whole
 *   400-year cycles.
 * - Java takes the daylight flag from its tz data; `Intl` does not expose it. It is derived from
 *   the `Intl` long name (`…Daylight/Summer Time`) and, where `Intl` has no such name (mostly
 *   before 1970), from a comparison with the January/July offsets of the year. Compared with
 *   Java 17 over random instants 1900–2040 in all 631 Java zones, 98.6 % of the texts match; the
 *   rest are historical periods (before 1970: war time, changes of standard offset) and a few
 *   zones (Africa/Windhoek, whose Java data is unusual; London 1968–71).
 * - Ids Java does not know (ids are case-sensitive in Java) make Java use `GMT`; so does this
 *   module, except for ids that `Intl` knows but Java 17 does not: those get the `Intl` offset
 *   and a `GMT±hh:mm` name.
 */
export function javaDateToString(epochMillis: bigint, timeZone: JavaTimeZone = UTC): string {
  const f = javaDateFields(epochMillis, timeZone);
  return (
    `${WEEKDAYS[f.dayOfWeek] ?? '?'} ${MONTHS[f.month - 1] ?? '?'} ${pad2(f.day)} ` +
    `${pad2(f.hours)}:${pad2(f.minutes)}:${pad2(f.seconds)} ${f.zoneName} ${f.year}`
  );
}

/**
 * Java `java.sql.Date.toString()`: `yyyy-mm-dd` in the zone. Calendar and zone rules as in
 * {@link javaDateToString}. Like Java 17, the year is printed with exactly four digits (a year
 * above 9999 loses its leading digits: `8994-08-17` for `Long.MAX_VALUE`).
 */
export function javaSqlDateToString(epochMillis: bigint, timeZone: JavaTimeZone = UTC): string {
  const f = javaDateFields(epochMillis, timeZone);
  return `${formatDecimalInt(f.year, 4)}-${formatDecimalInt(f.month, 2)}-${formatDecimalInt(f.day, 2)}`;
}

/** Java `java.sql.Time.toString()`: `hh:mm:ss` (24 h) in the zone. */
export function javaSqlTimeToString(epochMillis: bigint, timeZone: JavaTimeZone = UTC): string {
  const f = javaDateFields(epochMillis, timeZone);
  return `${formatDecimalInt(f.hours, 2)}:${formatDecimalInt(f.minutes, 2)}:${formatDecimalInt(f.seconds, 2)}`;
}

/**
 * Java `java.sql.Timestamp.toString()` of `new Timestamp(epochMillis)`:
 * `yyyy-mm-dd hh:mm:ss.f…` in the zone; the fraction is the nanoseconds (millisecond part
 * × 10^6) with trailing zeros removed but at least one digit. The year has at least four digits
 * and is never truncated. Java's constructor arithmetic is reproduced including its 64-bit
 * overflow for the 192 smallest `long` values (e.g. `Long.MIN_VALUE` prints as a date in
 * the year 292278994).
 */
export function javaSqlTimestampToString(epochMillis: bigint, timeZone: JavaTimeZone = UTC): string {
  // new Timestamp(long time): super((time/1000)*1000); nanos = (int)((time%1000) * 1000000);
  // if (nanos < 0) { nanos += 1000000000; super.setTime(((time/1000)-1)*1000); }
  const time = BigInt.asIntN(64, epochMillis);
  const seconds = time / 1000n;
  let nanos = Number(time % 1000n) * 1_000_000;
  let dateMillis = seconds * 1000n;
  if (nanos < 0) {
    nanos += 1_000_000_000;
    dateMillis = BigInt.asIntN(64, (seconds - 1n) * 1000n);
  }
  const f = javaDateFields(dateMillis, timeZone);
  let fraction = nanos === 0 ? '0' : String(nanos).padStart(9, '0');
  if (nanos !== 0) fraction = fraction.replace(/0+$/, '');
  let yearSize = 4;
  for (let count = 10_000; f.year >= count && count < 1_000_000_000; count *= 10) yearSize++;
  return (
    `${formatDecimalInt(f.year, yearSize)}-${formatDecimalInt(f.month, 2)}-${formatDecimalInt(f.day, 2)} ` +
    `${formatDecimalInt(f.hours, 2)}:${formatDecimalInt(f.minutes, 2)}:${formatDecimalInt(f.seconds, 2)}` +
    `.${fraction}`
  );
}

function javaDateFields(epochMillis: bigint, timeZone: JavaTimeZone): JavaDateFields {
  const utc = BigInt.asIntN(64, epochMillis);
  const { offsetMs, daylight, names } = zoneOffsetAt(timeZone, utc);
  const offset = BigInt(offsetMs);
  const local = utc + offset;
  const days = floorDiv(local, MS_PER_DAY);
  const msOfDay = Number(local - days * MS_PER_DAY);
  // Date.getCalendarSystem: Gregorian if utc >= 0 || utc >= cutover - offset(utc), else Julian.
  const gregorian = utc >= 0n || utc >= GREGORIAN_CUTOVER_MS - offset;
  const dayNumber = Number(days); // |days| < 1.1e11: exact as a double
  const ymd = gregorian ? gregorianFromDays(dayNumber) : julianFromDays(dayNumber);
  const secondsOfDay = Math.floor(msOfDay / 1000);
  return {
    year: ymd.year,
    month: ymd.month,
    day: ymd.day,
    hours: Math.floor(secondsOfDay / 3600),
    minutes: Math.floor(secondsOfDay / 60) % 60,
    seconds: secondsOfDay % 60,
    dayOfWeek: mod(dayNumber + 4, 7), // 1970-01-01 was a Thursday
    zoneName: daylight ? names.daylight : names.standard,
  };
}

interface YearMonthDay {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/** Proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's algorithm). */
function gregorianFromDays(days: number): YearMonthDay {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  // Gregorian dates are only used from 1582-10-15 on, so the year is always positive.
  return { year, month, day };
}

/** Julian date of a day count since 1970-01-01; the year is the year of era (1 BC → 1). */
function julianFromDays(days: number): YearMonthDay {
  const c = days + JDN_OF_EPOCH + 32_082;
  const d = Math.floor((4 * c + 3) / 1461);
  const e = c - Math.floor((1461 * d) / 4);
  const m = Math.floor((5 * e + 2) / 153);
  const day = e - Math.floor((153 * m + 2) / 5) + 1;
  const month = m + 3 - 12 * Math.floor(m / 10);
  const year = d - 4800 + Math.floor(m / 10); // astronomical: 0 = 1 BC
  return { year: year <= 0 ? 1 - year : year, month, day };
}

/** Java 17 `java.sql.Date.formatDecimalInt`: the last `len` decimal digits, zero-padded. */
function formatDecimalInt(value: number, len: number): string {
  return String(value).padStart(len, '0').slice(-len);
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function mod(a: number, b: number): number {
  return ((a % b) + b) % b;
}
