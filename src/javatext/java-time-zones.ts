/**
 * Java time zones as `java.util.Date.toString()` and the `java.sql` date types see them.
 *
 * Java prints dates in the JVM's default zone with the zone's short name (`CET`/`CEST`). This
 * module reproduces Java 17's `TimeZone.getTimeZone(id)` without a JVM: the zone lookup (Java's
 * ids and aliases, custom `GMT+hh:mm` ids, the `GMT` fallback for unknown ids), the offset at an
 * instant (exact for fixed zones, from `Intl.DateTimeFormat` otherwise, with Java's raw offset
 * before 1900 and its rules after 2037) and the daylight flag that picks the display name.
 * Pure: no `node:*` imports, only ECMAScript built-ins, so it also runs in a browser.
 */

import { pad2 } from './java-text-util.js';
import { JAVA_ZONES } from './java-time-zone-names.js';

/**
 * A time zone as Java's `Date.toString()` needs it.
 *
 * `id` is a Java time zone id (an IANA id such as `Europe/Berlin`, one of Java's own aliases such
 * as `PST` or `SystemV/EST5`, or a custom id such as `GMT+05:30`). Offsets come from
 * `Intl.DateTimeFormat` (except for fixed-offset zones and the Java-specific rules documented at
 * `javaDateToString` in `java-date-text.ts`); the short display names come from a table of
 * Java 17's `TimeZone.getDisplayName(daylight, SHORT, Locale.US)` values. `standardName` /
 * `daylightName` override the names from that table (useful for ids the table does not know).
 */
export interface JavaTimeZone {
  readonly id: string;
  readonly standardName?: string;
  readonly daylightName?: string;
}

/** The UTC zone (the default: the conformance corpus was recorded with the JVM in UTC). */
export const UTC: JavaTimeZone = Object.freeze({ id: 'UTC' });

/** `ZoneInfoFile.UTC1900`: Java's zone data starts here; earlier instants use the raw offset. */
const UTC_1900_MS = -2_208_988_800_000n;
/** Largest instant `Intl.DateTimeFormat` accepts (ECMAScript time value range). */
const INTL_MAX_MS = 8_640_000_000_000_000n;
/** 2038-01-01T00:00:00Z: Java's zone data has explicit transitions only before this instant. */
const JAVA_TRANSITIONS_END_MS = 2_145_916_800_000n;
/** 292278994-01-01T00:00:00Z: the last year a Java long reaches. */
const LAST_JAVA_YEAR_MS = 9_223_372_017_129_600_000n;
/** 400 Gregorian years (146,097 days of 86,400,000 ms): weekdays and DST rules repeat exactly. */
const GREGORIAN_CYCLE_MS = 146_097n * 86_400_000n;

/** Java's short display names of a zone for standard and for daylight saving time. */
export interface ZoneNames {
  readonly standard: string;
  readonly daylight: string;
}

/** How offsets of one zone id are obtained. */
type ZoneRule =
  /** Never changes (UTC, `Etc/GMT-5`, `EST`, `SystemV/PST8`, custom `GMT+05:30`, unknown ids). */
  | { readonly kind: 'fixed'; readonly offsetMs: number; readonly names: ZoneNames }
  /** A zone of Java's table, offsets from `Intl`, Java's raw offset before 1900. */
  | { readonly kind: 'java'; readonly rawOffsetMs: number; readonly names: ZoneNames }
  /** An `Intl` zone Java 17 does not know; names are `GMT±hh:mm` of the offset. */
  | { readonly kind: 'intl' };

/** The offset of a zone at one instant, whether it is daylight saving time, and the zone's names. */
export interface ZoneOffset {
  readonly offsetMs: number;
  readonly daylight: boolean;
  readonly names: ZoneNames;
}

interface JavaZoneEntry {
  readonly names: ZoneNames;
  readonly rawOffsetMs: number;
}

let javaZoneIndex: Map<string, JavaZoneEntry> | undefined;
let javaZoneIdsLowerCase: Set<string> | undefined;

function javaZone(id: string): JavaZoneEntry | undefined {
  if (javaZoneIndex === undefined) {
    javaZoneIndex = new Map();
    for (const [standard, daylight, rawMinutes, ids] of JAVA_ZONES) {
      const entry: JavaZoneEntry = { names: { standard, daylight }, rawOffsetMs: rawMinutes * 60_000 };
      for (const zoneId of ids.split(' ')) javaZoneIndex.set(zoneId, entry);
    }
    javaZoneIdsLowerCase = new Set([...javaZoneIndex.keys()].map((k) => k.toLowerCase()));
  }
  return javaZoneIndex.get(id);
}

/** Zones of Java's table whose offset never changes in Java's data. */
const FIXED_JAVA_ZONE = /^(?:Etc\/.*|SystemV\/[A-Z]{3}\d+|EST|MST|HST|UTC|UCT|GMT0?|Greenwich|Universal|Zulu)$/;

const GMT_NAMES: ZoneNames = { standard: 'GMT', daylight: 'GMT' };
const zoneRules = new Map<string, ZoneRule>();

function zoneRule(timeZone: JavaTimeZone): ZoneRule {
  const cached = zoneRules.get(timeZone.id);
  if (cached !== undefined) return cached;
  const rule = resolveZoneRule(timeZone.id);
  zoneRules.set(timeZone.id, rule);
  return rule;
}

function resolveZoneRule(id: string): ZoneRule {
  const entry = javaZone(id);
  if (entry !== undefined) {
    return FIXED_JAVA_ZONE.test(id)
      ? { kind: 'fixed', offsetMs: entry.rawOffsetMs, names: entry.names }
      : { kind: 'java', rawOffsetMs: entry.rawOffsetMs, names: entry.names };
  }
  const custom = parseCustomTimeZone(id);
  if (custom !== undefined) return custom;
  // Java: TimeZone.getTimeZone(unknown id) is GMT. Ids Java knows in another case ("utc") too.
  if (javaZoneIdsLowerCase?.has(id.toLowerCase()) === true) {
    return { kind: 'fixed', offsetMs: 0, names: GMT_NAMES };
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: id });
    return { kind: 'intl' };
  } catch {
    return { kind: 'fixed', offsetMs: 0, names: GMT_NAMES };
  }
}

/** Java `TimeZone.parseCustomTimeZone`: `GMT+h`, `GMT+hh`, `GMT+hmm`, `GMT+hhmm`, `GMT+h:mm`, `GMT+hh:mm`. */
function parseCustomTimeZone(id: string): ZoneRule | undefined {
  const m = /^GMT([+-])(?:(\d{1,2}):(\d{2})|(\d{1,4}))$/.exec(id);
  if (m === null) return undefined;
  const negative = m[1] === '-';
  let hours: number;
  let minutes: number;
  if (m[4] !== undefined) {
    const num = Number(m[4]);
    if (m[4].length <= 2) {
      hours = num;
      minutes = 0;
    } else {
      hours = Math.floor(num / 100);
      minutes = num % 100;
    }
  } else {
    hours = Number(m[2]);
    minutes = Number(m[3]);
  }
  if (hours > 23 || minutes > 59) return undefined;
  const offsetMs = (hours * 60 + minutes) * 60_000 * (negative ? -1 : 1);
  const name = `GMT${negative ? '-' : '+'}${pad2(hours)}:${pad2(minutes)}`;
  return { kind: 'fixed', offsetMs, names: { standard: name, daylight: name } };
}

/**
 * Offset from UTC, daylight flag and display names of `timeZone` at the instant `utc` (epoch
 * milliseconds, within the Java `long` range), as Java's `ZoneInfo` gives them to
 * `java.util.Date`. Fixed-offset and custom zones are exact; the other zones follow `Intl` with
 * Java's rules before 1900 and after 2037 (see `javaDateToString` in `java-date-text.ts`).
 * `standardName` / `daylightName` of the zone override the names.
 */
export function zoneOffsetAt(timeZone: JavaTimeZone, utc: bigint): ZoneOffset {
  const rule = zoneRule(timeZone);
  let result: ZoneOffset;
  switch (rule.kind) {
    case 'fixed':
      result = { offsetMs: rule.offsetMs, daylight: false, names: rule.names };
      break;
    case 'java':
      if (utc < UTC_1900_MS) {
        // ZoneInfo.getOffsets: "prior to the transition table, returns the raw offset".
        result = { offsetMs: rule.rawOffsetMs, daylight: false, names: rule.names };
      } else {
        const { offsetMs, daylight } = intlOffsetAt(timeZone.id, utc, rule.rawOffsetMs);
        result = { offsetMs, daylight, names: rule.names };
      }
      break;
    case 'intl': {
      const { offsetMs, daylight } = intlOffsetAt(timeZone.id, utc, undefined);
      const name = gmtOffsetName(offsetMs);
      result = { offsetMs, daylight, names: { standard: name, daylight: name } };
      break;
    }
  }
  if (timeZone.standardName === undefined && timeZone.daylightName === undefined) return result;
  return {
    ...result,
    names: {
      standard: timeZone.standardName ?? result.names.standard,
      daylight: timeZone.daylightName ?? result.names.daylight,
    },
  };
}

/** Java `ZoneInfoFile.toCustomID`: `GMT+hh:mm` (seconds dropped). */
function gmtOffsetName(offsetMs: number): string {
  const minutesTotal = Math.trunc(Math.abs(offsetMs) / 60_000);
  return `GMT${offsetMs < 0 ? '-' : '+'}${pad2(Math.floor(minutesTotal / 60))}:${pad2(minutesTotal % 60)}`;
}

interface IntlZoneFormatters {
  readonly offset: Intl.DateTimeFormat;
  readonly longName: Intl.DateTimeFormat;
  /** Year -> smaller of the offsets on 1 January and 1 July. */
  readonly januaryJulyMinimum: Map<number, number>;
}

const intlFormatters = new Map<string, IntlZoneFormatters>();

function intlZoneFormatters(id: string): IntlZoneFormatters {
  let f = intlFormatters.get(id);
  if (f === undefined) {
    f = {
      offset: new Intl.DateTimeFormat('en-US', { timeZone: id, timeZoneName: 'longOffset' }),
      longName: new Intl.DateTimeFormat('en-US', { timeZone: id, timeZoneName: 'long' }),
      januaryJulyMinimum: new Map(),
    };
    intlFormatters.set(id, f);
  }
  return f;
}

function timeZoneNamePart(format: Intl.DateTimeFormat, ms: number): string {
  return format.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value ?? '';
}

/** Offset from a `longOffset` name: `GMT`, `GMT+01:00`, `GMT-03:30`, `GMT+00:53:28`. */
function intlOffsetMs(format: Intl.DateTimeFormat, ms: number): number {
  const text = timeZoneNamePart(format, ms);
  const m = /^GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(text);
  if (m === null) throw new Error(`unexpected Intl.DateTimeFormat longOffset text ${JSON.stringify(text)}`);
  if (m[1] === undefined) return 0;
  const abs = (Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4] ?? 0)) * 1000;
  return m[1] === '-' ? -abs : abs;
}

/** Moves an instant by whole 400-year cycles into the range `Intl` accepts. */
function intoIntlRange(utc: bigint): number {
  let t = utc;
  if (t > INTL_MAX_MS) t -= ((t - INTL_MAX_MS) / GREGORIAN_CYCLE_MS + 1n) * GREGORIAN_CYCLE_MS;
  else if (t < -INTL_MAX_MS) t += ((-INTL_MAX_MS - t) / GREGORIAN_CYCLE_MS + 1n) * GREGORIAN_CYCLE_MS;
  return Number(t);
}

function intlOffsetAt(id: string, utc: bigint, rawOffsetMs: number | undefined): { offsetMs: number; daylight: boolean } {
  const formats = intlZoneFormatters(id);
  if (utc < JAVA_TRANSITIONS_END_MS || rawOffsetMs === undefined) {
    return intlDaylightAt(formats, intoIntlRange(utc), rawOffsetMs);
  }
  // Java keeps explicit transitions only up to 2037. After that a zone with a recurring DST rule
  // follows the rule; any other zone (e.g. Africa/Casablanca, whose tz data lists transitions
  // until 2087) keeps its last offset. Either way the raw offset is the standard offset.
  const inJanuary2037 = intlOffsetMs(formats.offset, Date.UTC(2037, 0, 15));
  const inJuly2037 = intlOffsetMs(formats.offset, Date.UTC(2037, 6, 15));
  const hasRule = inJanuary2037 !== inJuly2037;
  const ms = hasRule ? intoIntlRange(utc) : Number(JAVA_TRANSITIONS_END_MS) - 1;
  const offsetMs = intlOffsetMs(formats.offset, ms);
  if (hasRule && utc >= LAST_JAVA_YEAR_MS && offsetMs !== rawOffsetMs) {
    // In year 292278994 the end of summer time overflows a Java long, so Java applies no
    // daylight saving there, except in zones whose summer time spans the new year.
    const january = intlOffsetMs(formats.offset, Date.UTC(new Date(ms).getUTCFullYear(), 0, 15));
    if (january === rawOffsetMs) return { offsetMs: rawOffsetMs, daylight: false };
  }
  return { offsetMs, daylight: offsetMs !== rawOffsetMs };
}

function januaryJulyMinimum(formats: IntlZoneFormatters, year: number): number {
  let min = formats.januaryJulyMinimum.get(year);
  if (min === undefined) {
    min = Math.min(intlOffsetMs(formats.offset, Date.UTC(year, 0, 1)), intlOffsetMs(formats.offset, Date.UTC(year, 6, 1)));
    formats.januaryJulyMinimum.set(year, min);
  }
  return min;
}

/** Offset and daylight flag at an instant in `Intl` range. */
function intlDaylightAt(formats: IntlZoneFormatters, ms: number, rawOffsetMs: number | undefined): { offsetMs: number; daylight: boolean } {
  const offsetMs = intlOffsetMs(formats.offset, ms);
  const longName = timeZoneNamePart(formats.longName, ms);
  let daylight: boolean;
  if (/\b(?:Daylight|Summer)\b/.test(longName) || longName === 'Irish Standard Time') {
    // Java's tz data is in "rearguard" form: Irish summer time is daylight saving time.
    daylight = true;
  } else if (/^GMT(?:[+-]|$)/.test(longName)) {
    // No metazone name for this period (mostly before 1970): summer time if the offset is larger
    // than the offset in January or July of the year. Java's raw offset is taken as a standard
    // offset too during World War II (war time was summer time all year, e.g. in the US) and
    // since 2015 (Morocco is on summer time except during Ramadan). Checked against Java 17 for
    // every zone: a wider window or the raw offset in other years gives more mismatches.
    const year = new Date(ms).getUTCFullYear();
    const useRaw = rawOffsetMs !== undefined && ((year >= 1940 && year <= 1946) || year >= 2015);
    const standard = Math.min(januaryJulyMinimum(formats, year), useRaw ? rawOffsetMs : Number.POSITIVE_INFINITY);
    daylight = offsetMs > standard;
  } else {
    daylight = false;
  }
  return { offsetMs, daylight };
}
