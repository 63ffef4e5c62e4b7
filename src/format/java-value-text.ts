/**
 * Java `toString()` texts of JDK value types, rebuilt from their stored form.
 *
 * The MicroStream 4.1 REST service renders some JDK value types as a single string: Java's
 * `toString()` of the value that Java rebuilds from the stored bytes (rest-rendering.md §10.4,
 * stored layouts in storage-format.md §8.3). This module reproduces those strings without a JVM.
 * The reference is OpenJDK 17 (the conformance corpus was recorded on Java 17, JVM time zone UTC);
 * every rule below was checked against a Java 17.0.15 JVM.
 *
 * Pure: no `node:*` imports, only ECMAScript built-ins (`BigInt`, `Intl.DateTimeFormat`), so the
 * module also runs in a browser.
 */

/** Thrown when Java itself would fail to rebuild the value (the service answers 500). */
export class JavaValueError extends Error {
  /** Stable error code; messages may change. */
  readonly code = 'FORMAT_JAVA_VALUE' as const;
  override readonly name = 'JavaValueError';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/**
 * A time zone as Java's `Date.toString()` needs it.
 *
 * `id` is a Java time zone id (an IANA id such as `Europe/Berlin`, one of Java's own aliases such
 * as `PST` or `SystemV/EST5`, or a custom id such as `GMT+05:30`). Offsets come from
 * `Intl.DateTimeFormat` (except for fixed-offset zones and the Java-specific rules documented at
 * {@link javaDateToString}); the short display names come from a table of Java 17's
 * `TimeZone.getDisplayName(daylight, SHORT, Locale.US)` values. `standardName` / `daylightName`
 * override the names from that table (useful for ids the table does not know).
 */
export interface JavaTimeZone {
  readonly id: string;
  readonly standardName?: string;
  readonly daylightName?: string;
}

/** The UTC zone (the default: the conformance corpus was recorded with the JVM in UTC). */
export const UTC: JavaTimeZone = Object.freeze({ id: 'UTC' });

// ---------------------------------------------------------------------------------------------
// Dates
// ---------------------------------------------------------------------------------------------

const MS_PER_DAY = 86_400_000n;
/** `GregorianCalendar.DEFAULT_GREGORIAN_CUTOVER`: 1582-10-15T00:00:00Z. */
const GREGORIAN_CUTOVER_MS = -12_219_292_800_000n;
/** `ZoneInfoFile.UTC1900`: Java's zone data starts here; earlier instants use the raw offset. */
const UTC_1900_MS = -2_208_988_800_000n;
/** Largest instant `Intl.DateTimeFormat` accepts (ECMAScript time value range). */
const INTL_MAX_MS = 8_640_000_000_000_000n;
/** 2038-01-01T00:00:00Z: Java's zone data has explicit transitions only before this instant. */
const JAVA_TRANSITIONS_END_MS = 2_145_916_800_000n;
/** 292278994-01-01T00:00:00Z: the last year a Java long reaches. */
const LAST_JAVA_YEAR_MS = 9_223_372_017_129_600_000n;
/** 400 Gregorian years: weekdays and DST rules repeat exactly. */
const GREGORIAN_CYCLE_MS = 146_097n * MS_PER_DAY;
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

// ---------------------------------------------------------------------------------------------
// Time zones
// ---------------------------------------------------------------------------------------------

/**
 * Java 17.0.15 (tzdata 2025a) short display names and raw offsets, from
 * `TimeZone.getDisplayName(false|true, TimeZone.SHORT, Locale.US)` and `getRawOffset()` for every
 * id of `TimeZone.getAvailableIDs()`. Entries: standard name, daylight name, raw offset in
 * minutes, space-separated ids.
 */
const JAVA_ZONES: readonly (readonly [standard: string, daylight: string, rawMinutes: number, ids: string])[] = [
  ['GMT-12:00', 'GMT-12:00', -720, 'Etc/GMT+12'],
  ['GMT-11:00', 'GMT-11:00', -660, 'Etc/GMT+11'],
  ['NUT', 'NUST', -660, 'Pacific/Niue'],
  ['SST', 'SDT', -660, 'Pacific/Midway Pacific/Pago_Pago Pacific/Samoa US/Samoa'],
  ['CKT', 'CKHST', -600, 'Pacific/Rarotonga'],
  ['GMT-10:00', 'GMT-10:00', -600, 'Etc/GMT+10'],
  ['HAST', 'HADT', -600, 'America/Adak America/Atka Pacific/Johnston US/Aleutian'],
  ['HST', 'HDT', -600, 'Pacific/Honolulu SystemV/HST10 US/Hawaii'],
  ['HST', 'HST', -600, 'HST'],
  ['TAHT', 'TAHST', -600, 'Pacific/Tahiti'],
  ['MART', 'MARST', -570, 'Pacific/Marquesas'],
  ['AKST', 'AKDT', -540,
    'America/Anchorage America/Juneau America/Metlakatla America/Nome America/Sitka ' +
    'America/Yakutat SystemV/YST9YDT US/Alaska AST'],
  ['AKST', 'AKST', -540, 'SystemV/YST9'],
  ['GAMT', 'GAMST', -540, 'Pacific/Gambier'],
  ['GMT-09:00', 'GMT-09:00', -540, 'Etc/GMT+9'],
  ['GMT-08:00', 'GMT-08:00', -480, 'Etc/GMT+8'],
  ['PST', 'PDT', -480,
    'America/Ensenada America/Los_Angeles America/Santa_Isabel America/Tijuana ' +
    'America/Vancouver Canada/Pacific Mexico/BajaNorte PST8PDT Pacific/Pitcairn ' +
    'SystemV/PST8PDT US/Pacific PST'],
  ['PST', 'PST', -480, 'SystemV/PST8'],
  ['GMT-07:00', 'GMT-07:00', -420, 'Etc/GMT+7'],
  ['MST', 'MDT', -420,
    'America/Boise America/Cambridge_Bay America/Ciudad_Juarez America/Creston ' +
    'America/Dawson America/Dawson_Creek America/Denver America/Edmonton ' +
    'America/Fort_Nelson America/Hermosillo America/Inuvik America/Mazatlan ' +
    'America/Phoenix America/Shiprock America/Whitehorse America/Yellowknife ' +
    'Canada/Mountain Canada/Yukon MST7MDT Mexico/BajaSur Navajo SystemV/MST7 ' +
    'SystemV/MST7MDT US/Arizona US/Mountain PNT'],
  ['MST', 'MST', -420, 'MST'],
  ['CST', 'CDT', -360,
    'America/Bahia_Banderas America/Belize America/Chicago America/Chihuahua ' +
    'America/Costa_Rica America/El_Salvador America/Guatemala America/Indiana/Knox ' +
    'America/Indiana/Tell_City America/Knox_IN America/Managua America/Matamoros ' +
    'America/Menominee America/Merida America/Mexico_City America/Monterrey ' +
    'America/North_Dakota/Beulah America/North_Dakota/Center ' +
    'America/North_Dakota/New_Salem America/Ojinaga America/Rainy_River ' +
    'America/Rankin_Inlet America/Regina America/Resolute America/Swift_Current ' +
    'America/Tegucigalpa America/Winnipeg CST6CDT Canada/Central Canada/Saskatchewan ' +
    'Mexico/General SystemV/CST6 SystemV/CST6CDT US/Central US/Indiana-Starke CST'],
  ['EAST', 'EASST', -360, 'Chile/EasterIsland Pacific/Easter'],
  ['GALT', 'GALST', -360, 'Pacific/Galapagos'],
  ['GMT-06:00', 'GMT-06:00', -360, 'Etc/GMT+6'],
  ['ACT', 'ACST', -300, 'America/Eirunepe America/Porto_Acre America/Rio_Branco Brazil/Acre'],
  ['COT', 'COST', -300, 'America/Bogota'],
  ['CST', 'CDT', -300, 'America/Havana Cuba'],
  ['ECT', 'ECST', -300, 'America/Guayaquil'],
  ['EST', 'EDT', -300,
    'America/Atikokan America/Cancun America/Cayman America/Coral_Harbour America/Detroit ' +
    'America/Fort_Wayne America/Grand_Turk America/Indiana/Indianapolis ' +
    'America/Indiana/Marengo America/Indiana/Petersburg America/Indiana/Vevay ' +
    'America/Indiana/Vincennes America/Indiana/Winamac America/Indianapolis ' +
    'America/Iqaluit America/Jamaica America/Kentucky/Louisville ' +
    'America/Kentucky/Monticello America/Louisville America/Montreal America/Nassau ' +
    'America/New_York America/Nipigon America/Panama America/Pangnirtung ' +
    'America/Port-au-Prince America/Thunder_Bay America/Toronto Canada/Eastern EST5EDT ' +
    'Jamaica SystemV/EST5 SystemV/EST5EDT US/East-Indiana US/Eastern US/Michigan IET'],
  ['EST', 'EST', -300, 'EST'],
  ['GMT-05:00', 'GMT-05:00', -300, 'Etc/GMT+5'],
  ['PET', 'PEST', -300, 'America/Lima'],
  ['AMT', 'AMST', -240,
    'America/Boa_Vista America/Campo_Grande America/Cuiaba America/Manaus ' +
    'America/Porto_Velho Brazil/West'],
  ['AST', 'ADT', -240,
    'America/Anguilla America/Antigua America/Aruba America/Barbados America/Blanc-Sablon ' +
    'America/Curacao America/Dominica America/Glace_Bay America/Goose_Bay America/Grenada ' +
    'America/Guadeloupe America/Halifax America/Kralendijk America/Lower_Princes ' +
    'America/Marigot America/Martinique America/Moncton America/Montserrat ' +
    'America/Port_of_Spain America/Puerto_Rico America/Santo_Domingo ' +
    'America/St_Barthelemy America/St_Kitts America/St_Lucia America/St_Thomas ' +
    'America/St_Vincent America/Thule America/Tortola America/Virgin Atlantic/Bermuda ' +
    'Canada/Atlantic SystemV/AST4 SystemV/AST4ADT PRT'],
  ['BOT', 'BOST', -240, 'America/La_Paz'],
  ['CLT', 'CLST', -240, 'America/Santiago Chile/Continental'],
  ['GMT-04:00', 'GMT-04:00', -240, 'Etc/GMT+4'],
  ['GYT', 'GYST', -240, 'America/Guyana'],
  ['VET', 'VEST', -240, 'America/Caracas'],
  ['NST', 'NDT', -210, 'America/St_Johns Canada/Newfoundland CNT'],
  ['ART', 'ARST', -180,
    'America/Argentina/Buenos_Aires America/Argentina/Catamarca ' +
    'America/Argentina/ComodRivadavia America/Argentina/Cordoba America/Argentina/Jujuy ' +
    'America/Argentina/La_Rioja America/Argentina/Mendoza America/Argentina/Rio_Gallegos ' +
    'America/Argentina/Salta America/Argentina/San_Juan America/Argentina/San_Luis ' +
    'America/Argentina/Tucuman America/Argentina/Ushuaia America/Buenos_Aires ' +
    'America/Catamarca America/Cordoba America/Jujuy America/Mendoza America/Rosario AGT'],
  ['BRT', 'BRST', -180,
    'America/Araguaina America/Bahia America/Belem America/Fortaleza America/Maceio ' +
    'America/Recife America/Santarem America/Sao_Paulo Brazil/East BET'],
  ['CLT', 'CLST', -180, 'Antarctica/Palmer'],
  ['FKT', 'FKST', -180, 'Atlantic/Stanley'],
  ['GFT', 'GFST', -180, 'America/Cayenne'],
  ['GMT-03:00', 'GMT-03:00', -180, 'America/Punta_Arenas Etc/GMT+3'],
  ['PMST', 'PMDT', -180, 'America/Miquelon'],
  ['PYT', 'PYST', -180, 'America/Asuncion'],
  ['ROTT', 'ROTST', -180, 'Antarctica/Rothera'],
  ['SRT', 'SRST', -180, 'America/Paramaribo'],
  ['UYT', 'UYST', -180, 'America/Montevideo'],
  ['EGT', 'EGST', -120, 'America/Scoresbysund'],
  ['FNT', 'FNST', -120, 'America/Noronha Brazil/DeNoronha'],
  ['GMT-02:00', 'GMT-02:00', -120, 'Etc/GMT+2'],
  ['GST', 'GDT', -120, 'Atlantic/South_Georgia'],
  ['WGT', 'WGST', -120, 'America/Godthab America/Nuuk'],
  ['AZOT', 'AZOST', -60, 'Atlantic/Azores'],
  ['CVT', 'CVST', -60, 'Atlantic/Cape_Verde'],
  ['GMT-01:00', 'GMT-01:00', -60, 'Etc/GMT+1'],
  ['GMT', 'BST', 0,
    'Europe/Belfast Europe/Guernsey Europe/Isle_of_Man Europe/Jersey Europe/London GB ' +
    'GB-Eire'],
  ['GMT', 'CEST', 0, 'Antarctica/Troll'],
  ['GMT', 'GHST', 0, 'Africa/Accra'],
  ['GMT', 'GMT', 0,
    'Africa/Abidjan Africa/Bamako Africa/Banjul Africa/Bissau Africa/Conakry Africa/Dakar ' +
    'Africa/Freetown Africa/Lome Africa/Monrovia Africa/Nouakchott Africa/Ouagadougou ' +
    'Africa/Sao_Tome Africa/Timbuktu America/Danmarkshavn Atlantic/Reykjavik ' +
    'Atlantic/St_Helena Etc/GMT Etc/GMT+0 Etc/GMT-0 Etc/GMT0 Etc/Greenwich GMT GMT0 ' +
    'Greenwich Iceland'],
  ['GMT', 'IST', 0, 'Eire Europe/Dublin'],
  ['UTC', 'UTC', 0, 'Etc/UCT Etc/UTC Etc/Universal Etc/Zulu UCT UTC Universal Zulu'],
  ['WET', 'WEST', 0,
    'Africa/Casablanca Africa/El_Aaiun Atlantic/Canary Atlantic/Faeroe Atlantic/Faroe ' +
    'Atlantic/Madeira Europe/Lisbon Portugal WET'],
  ['CAT', 'WAT', 60, 'Africa/Windhoek'],
  ['CET', 'CEST', 60,
    'Africa/Algiers Africa/Ceuta Africa/Tunis Arctic/Longyearbyen Atlantic/Jan_Mayen CET ' +
    'Europe/Amsterdam Europe/Andorra Europe/Belgrade Europe/Berlin Europe/Bratislava ' +
    'Europe/Brussels Europe/Budapest Europe/Busingen Europe/Copenhagen Europe/Gibraltar ' +
    'Europe/Ljubljana Europe/Luxembourg Europe/Madrid Europe/Malta Europe/Monaco ' +
    'Europe/Oslo Europe/Paris Europe/Podgorica Europe/Prague Europe/Rome ' +
    'Europe/San_Marino Europe/Sarajevo Europe/Skopje Europe/Stockholm Europe/Tirane ' +
    'Europe/Vaduz Europe/Vatican Europe/Vienna Europe/Warsaw Europe/Zagreb Europe/Zurich ' +
    'Poland ECT'],
  ['GMT+01:00', 'GMT+01:00', 60, 'Etc/GMT-1'],
  ['MET', 'MEST', 60, 'MET'],
  ['WAT', 'WAST', 60,
    'Africa/Bangui Africa/Brazzaville Africa/Douala Africa/Kinshasa Africa/Lagos ' +
    'Africa/Libreville Africa/Luanda Africa/Malabo Africa/Ndjamena Africa/Niamey ' +
    'Africa/Porto-Novo'],
  ['CAT', 'CAST', 120,
    'Africa/Blantyre Africa/Bujumbura Africa/Gaborone Africa/Harare Africa/Juba ' +
    'Africa/Khartoum Africa/Kigali Africa/Lubumbashi Africa/Lusaka Africa/Maputo CAT'],
  ['EET', 'EEST', 120,
    'Africa/Cairo Africa/Tripoli Asia/Beirut Asia/Famagusta Asia/Gaza Asia/Hebron ' +
    'Asia/Nicosia EET Egypt Europe/Athens Europe/Bucharest Europe/Chisinau ' +
    'Europe/Helsinki Europe/Kaliningrad Europe/Kiev Europe/Kyiv Europe/Mariehamn ' +
    'Europe/Nicosia Europe/Riga Europe/Sofia Europe/Tallinn Europe/Tiraspol ' +
    'Europe/Uzhgorod Europe/Vilnius Europe/Zaporozhye Libya ART'],
  ['GMT+02:00', 'GMT+02:00', 120, 'Etc/GMT-2'],
  ['IST', 'IDT', 120, 'Asia/Jerusalem Asia/Tel_Aviv Israel'],
  ['SAST', 'SAST', 120, 'Africa/Johannesburg Africa/Maseru Africa/Mbabane'],
  ['AST', 'ADT', 180, 'Asia/Aden Asia/Baghdad Asia/Bahrain Asia/Kuwait Asia/Qatar Asia/Riyadh'],
  ['EAT', 'EAST', 180,
    'Africa/Addis_Ababa Africa/Asmara Africa/Asmera Africa/Dar_es_Salaam Africa/Djibouti ' +
    'Africa/Kampala Africa/Mogadishu Africa/Nairobi Indian/Antananarivo Indian/Comoro ' +
    'Indian/Mayotte EAT'],
  ['EET', 'EEST', 180, 'Asia/Amman Asia/Damascus'],
  ['GMT+03:00', 'GMT+03:00', 180, 'Etc/GMT-3'],
  ['MSK', 'MSD', 180,
    'Europe/Kirov Europe/Minsk Europe/Moscow Europe/Simferopol Europe/Volgograd W-SU'],
  ['SYOT', 'SYOST', 180, 'Antarctica/Syowa'],
  ['TRT', 'TRST', 180, 'Asia/Istanbul Europe/Istanbul Turkey'],
  ['IRST', 'IRDT', 210, 'Asia/Tehran Iran'],
  ['AMT', 'AMST', 240, 'Asia/Yerevan NET'],
  ['AZT', 'AZST', 240, 'Asia/Baku'],
  ['GET', 'GEST', 240, 'Asia/Tbilisi'],
  ['GMT+04:00', 'GMT+04:00', 240, 'Etc/GMT-4 Europe/Astrakhan Europe/Saratov Europe/Ulyanovsk'],
  ['GST', 'GDT', 240, 'Asia/Dubai Asia/Muscat'],
  ['MUT', 'MUST', 240, 'Indian/Mauritius'],
  ['RET', 'REST', 240, 'Indian/Reunion'],
  ['SAMT', 'SAMST', 240, 'Europe/Samara'],
  ['SCT', 'SCST', 240, 'Indian/Mahe'],
  ['AFT', 'AFST', 270, 'Asia/Kabul'],
  ['ALMT', 'ALMST', 300, 'Asia/Almaty'],
  ['AQTT', 'AQTST', 300, 'Asia/Aqtau Asia/Aqtobe'],
  ['GMT+05:00', 'GMT+05:00', 300, 'Asia/Atyrau Etc/GMT-5'],
  ['MAWT', 'MAWST', 300, 'Antarctica/Mawson'],
  ['MVT', 'MVST', 300, 'Indian/Maldives'],
  ['ORAT', 'ORAST', 300, 'Asia/Oral'],
  ['PKT', 'PKST', 300, 'Asia/Karachi PLT'],
  ['QOST', 'QOSST', 300, 'Asia/Qostanay'],
  ['QYZT', 'QYZST', 300, 'Asia/Qyzylorda'],
  ['TFT', 'TFST', 300, 'Indian/Kerguelen'],
  ['TJT', 'TJST', 300, 'Asia/Dushanbe'],
  ['TMT', 'TMST', 300, 'Asia/Ashgabat Asia/Ashkhabad'],
  ['UZT', 'UZST', 300, 'Asia/Samarkand Asia/Tashkent'],
  ['VOST', 'VOSST', 300, 'Antarctica/Vostok'],
  ['YEKT', 'YEKST', 300, 'Asia/Yekaterinburg'],
  ['IST', 'IDT', 330, 'Asia/Calcutta Asia/Colombo Asia/Kolkata IST'],
  ['NPT', 'NPST', 345, 'Asia/Kathmandu Asia/Katmandu'],
  ['BDT', 'BDST', 360, 'Asia/Dacca Asia/Dhaka BST'],
  ['BTT', 'BTST', 360, 'Asia/Thimbu Asia/Thimphu'],
  ['GMT+06:00', 'GMT+06:00', 360, 'Etc/GMT-6'],
  ['IOT', 'IOST', 360, 'Indian/Chagos'],
  ['KGT', 'KGST', 360, 'Asia/Bishkek'],
  ['OMST', 'OMSST', 360, 'Asia/Omsk'],
  ['XJT', 'XJDT', 360, 'Asia/Kashgar Asia/Urumqi'],
  ['CCT', 'CCST', 390, 'Indian/Cocos'],
  ['MMT', 'MMST', 390, 'Asia/Rangoon Asia/Yangon'],
  ['CXT', 'CXST', 420, 'Indian/Christmas'],
  ['DAVT', 'DAVST', 420, 'Antarctica/Davis'],
  ['GMT+07:00', 'GMT+07:00', 420, 'Asia/Barnaul Asia/Tomsk Etc/GMT-7'],
  ['HOVT', 'HOVST', 420, 'Asia/Hovd'],
  ['ICT', 'ICST', 420,
    'Asia/Bangkok Asia/Ho_Chi_Minh Asia/Phnom_Penh Asia/Saigon Asia/Vientiane VST'],
  ['KRAT', 'KRAST', 420, 'Asia/Krasnoyarsk Asia/Novokuznetsk'],
  ['NOVT', 'NOVST', 420, 'Asia/Novosibirsk'],
  ['WIB', 'WIST', 420, 'Asia/Jakarta Asia/Pontianak'],
  ['AWST', 'AWDT', 480, 'Antarctica/Casey Australia/Perth Australia/West'],
  ['BNT', 'BNST', 480, 'Asia/Brunei'],
  ['CHOT', 'CHOST', 480, 'Asia/Choibalsan'],
  ['CST', 'CDT', 480,
    'Asia/Chongqing Asia/Chungking Asia/Harbin Asia/Macao Asia/Macau Asia/Shanghai ' +
    'Asia/Taipei PRC CTT'],
  ['GMT+08:00', 'GMT+08:00', 480, 'Etc/GMT-8'],
  ['HKT', 'HKST', 480, 'Asia/Hong_Kong Hongkong'],
  ['IRKT', 'IRKST', 480, 'Asia/Irkutsk'],
  ['MYT', 'MYST', 480, 'Asia/Kuala_Lumpur Asia/Kuching'],
  ['PST', 'PDT', 480, 'Asia/Manila'],
  ['SGT', 'SGST', 480, 'Asia/Singapore Singapore'],
  ['ULAT', 'ULAST', 480, 'Asia/Ulaanbaatar Asia/Ulan_Bator'],
  ['WITA', 'CIST', 480, 'Asia/Makassar Asia/Ujung_Pandang'],
  ['ACWST', 'ACWDT', 525, 'Australia/Eucla'],
  ['GMT+09:00', 'GMT+09:00', 540, 'Etc/GMT-9'],
  ['JST', 'JDT', 540, 'Asia/Tokyo Japan JST'],
  ['KST', 'KDT', 540, 'Asia/Pyongyang Asia/Seoul ROK'],
  ['PWT', 'PWST', 540, 'Pacific/Palau'],
  ['TLT', 'TLST', 540, 'Asia/Dili'],
  ['WIT', 'EIST', 540, 'Asia/Jayapura'],
  ['YAKT', 'YAKST', 540, 'Asia/Chita Asia/Khandyga Asia/Yakutsk'],
  ['ACST', 'ACDT', 570,
    'Australia/Adelaide Australia/Broken_Hill Australia/Darwin Australia/North ' +
    'Australia/South Australia/Yancowinna ACT'],
  ['AEST', 'AEDT', 600,
    'Antarctica/Macquarie Australia/ACT Australia/Brisbane Australia/Canberra ' +
    'Australia/Currie Australia/Hobart Australia/Lindeman Australia/Melbourne ' +
    'Australia/NSW Australia/Queensland Australia/Sydney Australia/Tasmania ' +
    'Australia/Victoria AET'],
  ['CHUT', 'CHUST', 600, 'Pacific/Chuuk Pacific/Truk Pacific/Yap'],
  ['ChST', 'ChDT', 600, 'Pacific/Guam Pacific/Saipan'],
  ['DDUT', 'DDUST', 600, 'Antarctica/DumontDUrville'],
  ['GMT+10:00', 'GMT+10:00', 600, 'Etc/GMT-10'],
  ['PGT', 'PGST', 600, 'Pacific/Port_Moresby'],
  ['VLAT', 'VLAST', 600, 'Asia/Ust-Nera Asia/Vladivostok'],
  ['LHST', 'LHDT', 630, 'Australia/LHI Australia/Lord_Howe'],
  ['BST', 'BST', 660, 'Pacific/Bougainville'],
  ['GMT+11:00', 'GMT+11:00', 660, 'Etc/GMT-11'],
  ['KOST', 'KOSST', 660, 'Pacific/Kosrae'],
  ['MAGT', 'MAGST', 660, 'Asia/Magadan'],
  ['NCT', 'NCST', 660, 'Pacific/Noumea'],
  ['NFT', 'NFST', 660, 'Pacific/Norfolk'],
  ['PONT', 'PONST', 660, 'Pacific/Pohnpei Pacific/Ponape'],
  ['SAKT', 'SAKST', 660, 'Asia/Sakhalin'],
  ['SBT', 'SBST', 660, 'Pacific/Guadalcanal SST'],
  ['SRET', 'SREDT', 660, 'Asia/Srednekolymsk'],
  ['VUT', 'VUST', 660, 'Pacific/Efate'],
  ['ANAT', 'ANAST', 720, 'Asia/Anadyr'],
  ['FJT', 'FJST', 720, 'Pacific/Fiji'],
  ['GILT', 'GILST', 720, 'Pacific/Tarawa'],
  ['GMT+12:00', 'GMT+12:00', 720, 'Etc/GMT-12'],
  ['MHT', 'MHST', 720, 'Kwajalein Pacific/Kwajalein Pacific/Majuro'],
  ['NRT', 'NRST', 720, 'Pacific/Nauru'],
  ['NZST', 'NZDT', 720, 'Antarctica/McMurdo Antarctica/South_Pole NZ Pacific/Auckland NST'],
  ['PETT', 'PETST', 720, 'Asia/Kamchatka'],
  ['TVT', 'TVST', 720, 'Pacific/Funafuti'],
  ['WAKT', 'WAKST', 720, 'Pacific/Wake'],
  ['WFT', 'WFST', 720, 'Pacific/Wallis'],
  ['CHAST', 'CHADT', 765, 'NZ-CHAT Pacific/Chatham'],
  ['GMT+13:00', 'GMT+13:00', 780, 'Etc/GMT-13 Pacific/Kanton'],
  ['PHOT', 'PHOST', 780, 'Pacific/Enderbury'],
  ['TKT', 'TKST', 780, 'Pacific/Fakaofo'],
  ['TOT', 'TOST', 780, 'Pacific/Tongatapu'],
  ['WSST', 'WSDT', 780, 'Pacific/Apia MIT'],
  ['GMT+14:00', 'GMT+14:00', 840, 'Etc/GMT-14'],
  ['LINT', 'LINST', 840, 'Pacific/Kiritimati'],
];

interface ZoneNames {
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

interface ZoneOffset {
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

function zoneOffsetAt(timeZone: JavaTimeZone, utc: bigint): ZoneOffset {
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

// ---------------------------------------------------------------------------------------------
// BigInteger, BigDecimal
// ---------------------------------------------------------------------------------------------

/**
 * Java `BigInteger.toString()` of `new BigInteger(bytes)`: two's-complement big-endian bytes
 * (the `toByteArray()` form; non-minimal sign extension is accepted like Java does).
 * `[0x00, 0xff]` → `255`, `[0xff, 0x00]` → `-256`. Throws {@link JavaValueError} for an empty
 * array (Java: `NumberFormatException: Zero length BigInteger`).
 */
export function javaBigIntegerFromBytes(bytes: Uint8Array): string {
  if (bytes.length === 0) throw new JavaValueError('Zero length BigInteger');
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  let value = BigInt(`0x${hex}`);
  if ((bytes[0] ?? 0) >= 0x80) value -= 1n << BigInt(bytes.length * 8);
  return value.toString();
}

/**
 * Java `BigDecimal.toString()` of `new BigDecimal(text)`.
 *
 * Parsing follows Java 17's `BigDecimal(char[], int, int, MathContext)`: optional `+`/`-`,
 * digits (any Unicode decimal digit, like `Character.isDigit`) with at most one `.`, at least one
 * digit, optional exponent `e`/`E` with optional sign and at most ten significant digits; the
 * exponent must fit an `int` and so must the resulting scale. Anything else throws
 * {@link JavaValueError} (Java: `NumberFormatException`).
 *
 * Layout follows `BigDecimal.layoutChars(true)`: scale 0 → the integer; scale > 0 and adjusted
 * exponent ≥ −6 → plain notation; otherwise one digit, optional fraction, `E+n`/`E-n`.
 * `0.0000001` → `1E-7`, `123E-10` → `1.23E-8`, `0E+3` → `0E+3`, `-0.00` → `0.00`.
 */
export function javaBigDecimalToString(text: string): string {
  const { negative, unscaled, scale } = parseJavaBigDecimal(text);
  const sign = negative && unscaled !== 0n ? '-' : '';
  const coeff = unscaled.toString();
  if (scale === 0n) return sign + coeff;
  const adjusted = -scale + BigInt(coeff.length - 1);
  if (scale >= 0n && adjusted >= -6n) {
    // Here scale <= coeff.length + 5, so it is small.
    const pad = Number(scale) - coeff.length;
    if (pad >= 0) return `${sign}0.${'0'.repeat(pad)}${coeff}`;
    return `${sign}${coeff.slice(0, -pad)}.${coeff.slice(-pad)}`;
  }
  const mantissa = coeff.length > 1 ? `${coeff[0] ?? ''}.${coeff.slice(1)}` : coeff;
  return `${sign}${mantissa}E${adjusted > 0n ? '+' : ''}${adjusted}`;
}

const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;

function parseJavaBigDecimal(text: string): { negative: boolean; unscaled: bigint; scale: bigint } {
  const fail = (reason: string): never => {
    throw new JavaValueError(`invalid BigDecimal text ${JSON.stringify(text)}: ${reason}`);
  };
  const n = text.length;
  if (n === 0) fail('empty');
  let i = 0;
  let negative = false;
  if (text[0] === '-') {
    negative = true;
    i++;
  } else if (text[0] === '+') {
    i++;
  }
  let digits = '';
  let dot = false;
  let fractionDigits = 0n;
  let exponent = 0n;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    const digit = javaDecimalDigit(c);
    if (digit >= 0) {
      digits += String(digit);
      if (dot) fractionDigits++;
    } else if (c === 0x2e /* . */) {
      if (dot) fail('more than one decimal point');
      dot = true;
    } else if (c === 0x65 /* e */ || c === 0x45 /* E */) {
      exponent = parseJavaBigDecimalExponent(text, i, fail);
      // Java 17: "Next test is required for backwards compatibility"
      if (exponent < INT_MIN || exponent > INT_MAX) fail('exponent overflow');
      break;
    } else {
      fail(`unexpected character at index ${i}`);
    }
  }
  if (digits.length === 0) fail('no digits');
  const scale = fractionDigits - exponent;
  if (scale < INT_MIN || scale > INT_MAX) fail('scale out of range');
  return { negative, unscaled: BigInt(digits), scale };
}

/** Java `BigDecimal.parseExp`; `at` is the index of the `e`/`E`. */
function parseJavaBigDecimalExponent(text: string, at: number, fail: (reason: string) => never): bigint {
  let offset = at + 1;
  let len = text.length - offset;
  if (len <= 0) fail('no exponent digits');
  let c = text.charCodeAt(offset);
  const negative = c === 0x2d; /* - */
  if (negative || c === 0x2b /* + */) {
    offset++;
    len--;
    if (len <= 0) fail('no exponent digits');
    c = text.charCodeAt(offset);
  }
  while (len > 10 && javaDecimalDigit(c) === 0) {
    offset++;
    len--;
    c = text.charCodeAt(offset);
  }
  if (len > 10) fail('too many nonzero exponent digits');
  let exp = 0;
  for (; len > 0; len--, offset++) {
    const v = javaDecimalDigit(text.charCodeAt(offset));
    if (v < 0) fail('exponent is not a number');
    exp = exp * 10 + v;
  }
  return BigInt(negative ? -exp : exp);
}

const UNICODE_DECIMAL_DIGIT = /^\p{Nd}$/u;

/** Java `Character.digit(c, 10)` for a UTF-16 code unit: 0..9, or -1. */
function javaDecimalDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c < 0x80 || !UNICODE_DECIMAL_DIGIT.test(String.fromCharCode(c))) return -1;
  // Decimal digits come in runs of ten starting with zero.
  let zero = c;
  while (UNICODE_DECIMAL_DIGIT.test(String.fromCharCode(zero - 1))) zero--;
  return (c - zero) % 10;
}

// ---------------------------------------------------------------------------------------------
// Locale
// ---------------------------------------------------------------------------------------------

/** RFC 5646 grandfathered tags and their preferred mappings, as `LanguageTag.LEGACY` has them. */
const LEGACY_LANGUAGE_TAGS: ReadonlyMap<string, string> = new Map([
  ['art-lojban', 'jbo'],
  ['cel-gaulish', 'xtg-x-cel-gaulish'],
  ['en-gb-oed', 'en-GB-x-oed'],
  ['i-ami', 'ami'],
  ['i-bnn', 'bnn'],
  ['i-default', 'en-x-i-default'],
  ['i-enochian', 'und-x-i-enochian'],
  ['i-hak', 'hak'],
  ['i-klingon', 'tlh'],
  ['i-lux', 'lb'],
  ['i-mingo', 'see-x-i-mingo'],
  ['i-navajo', 'nv'],
  ['i-pwn', 'pwn'],
  ['i-tao', 'tao'],
  ['i-tay', 'tay'],
  ['i-tsu', 'tsu'],
  ['no-bok', 'nb'],
  ['no-nyn', 'nn'],
  ['sgn-be-fr', 'sfb'],
  ['sgn-be-nl', 'vgt'],
  ['sgn-ch-de', 'sgg'],
  ['zh-guoyu', 'cmn'],
  ['zh-hakka', 'hak'],
  ['zh-min', 'nan-x-zh-min'],
  ['zh-min-nan', 'nan'],
  ['zh-xiang', 'hsn'],
]);

/** Java `sun.util.locale.StringTokenIterator` over `-`-separated subtags (empty subtags included). */
class SubtagIterator {
  private readonly text: string;
  current = '';
  start = 0;
  end = 0;
  done = false;

  constructor(text: string) {
    this.text = text;
    this.end = this.nextDelimiter(0);
    this.current = text.slice(0, this.end);
  }

  hasNext(): boolean {
    return this.end < this.text.length;
  }

  next(): void {
    if (this.hasNext()) {
      this.start = this.end + 1;
      this.end = this.nextDelimiter(this.start);
      this.current = this.text.slice(this.start, this.end);
    } else {
      this.start = this.end;
      this.current = '';
      this.done = true;
    }
  }

  private nextDelimiter(from: number): number {
    const i = this.text.indexOf('-', from);
    return i < 0 ? this.text.length : i;
  }
}

const isAlpha = (s: string): boolean => /^[A-Za-z]+$/.test(s);
const isAlphaNumeric = (s: string): boolean => /^[A-Za-z0-9]+$/.test(s);
const isLanguage = (s: string): boolean => s.length >= 2 && s.length <= 8 && isAlpha(s);
const isExtlang = (s: string): boolean => s.length === 3 && isAlpha(s);
const isScript = (s: string): boolean => s.length === 4 && isAlpha(s);
const isRegion = (s: string): boolean => (s.length === 2 && isAlpha(s)) || /^[0-9]{3}$/.test(s);
const isVariant = (s: string): boolean =>
  (s.length >= 5 && s.length <= 8 && isAlphaNumeric(s)) || /^[0-9][A-Za-z0-9]{3}$/.test(s);
// Java accepts only letters as singletons (no digits), and not x/X.
const isExtensionSingleton = (s: string): boolean => s.length === 1 && isAlpha(s) && lower(s) !== 'x';
const isExtensionSubtag = (s: string): boolean => s.length >= 2 && s.length <= 8 && isAlphaNumeric(s);
const isPrivateusePrefix = (s: string): boolean => s === 'x' || s === 'X';
const isPrivateuseSubtag = (s: string): boolean => s.length >= 1 && s.length <= 8 && isAlphaNumeric(s);
const isUnicodeAttribute = (s: string): boolean => s.length >= 3 && s.length <= 8 && isAlphaNumeric(s);
const isUnicodeKey = (s: string): boolean => s.length === 2 && isAlphaNumeric(s);

/** ASCII-only case mapping, like `LocaleUtils`. */
const lower = (s: string): string => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
const upper = (s: string): string => s.replace(/[a-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 32));
const title = (s: string): string => upper(s.slice(0, 1)) + lower(s.slice(1));

interface ParsedLanguageTag {
  readonly language: string;
  readonly extlangs: readonly string[];
  readonly script: string;
  readonly region: string;
  readonly variants: readonly string[];
  /** Each with its singleton, e.g. `u-ca-japanese`, in tag order. */
  readonly extensions: readonly string[];
  /** With its `x-` prefix, or empty. */
  readonly privateuse: string;
}

/** Java `LanguageTag.parse(tag, pp, lenient = true)`: parsing stops at the first ill-formed subtag. */
function parseLanguageTag(languageTag: string): ParsedLanguageTag {
  const itr = new SubtagIterator(LEGACY_LANGUAGE_TAGS.get(lower(languageTag)) ?? languageTag);
  let parsedEnd = 0; // ParsePosition.index
  let error = false; // ParsePosition.errorIndex != -1
  const accept = (): string => {
    const s = itr.current;
    parsedEnd = itr.end;
    itr.next();
    return s;
  };

  let language = '';
  if (!itr.done && isLanguage(itr.current)) language = accept();
  const extlangs: string[] = [];
  let script = '';
  let region = '';
  const variants: string[] = [];
  const extensions: string[] = [];
  if (language !== '') {
    while (!itr.done && extlangs.length < 3 && isExtlang(itr.current)) extlangs.push(accept());
    if (!itr.done && isScript(itr.current)) script = accept();
    if (!itr.done && isRegion(itr.current)) region = accept();
    while (!itr.done && isVariant(itr.current)) variants.push(accept());
    while (!itr.done && isExtensionSingleton(itr.current)) {
      const start = itr.start;
      let extension = itr.current;
      itr.next();
      while (!itr.done && isExtensionSubtag(itr.current)) {
        extension += `-${itr.current}`;
        parsedEnd = itr.end;
        itr.next();
      }
      if (parsedEnd <= start) {
        error = true; // "Incomplete extension"
        break;
      }
      extensions.push(extension);
    }
  }
  let privateuse = '';
  if (!itr.done && !error && isPrivateusePrefix(itr.current)) {
    const start = itr.start;
    let text = itr.current;
    itr.next();
    while (!itr.done && isPrivateuseSubtag(itr.current)) {
      text += `-${itr.current}`;
      parsedEnd = itr.end;
      itr.next();
    }
    if (parsedEnd > start) privateuse = text; // else "Incomplete privateuse"
  }
  return { language, extlangs, script, region, variants, extensions, privateuse };
}

/**
 * Java `Locale.toString()` of `Locale.forLanguageTag(languageTag)` (Java 17).
 *
 * `de-DE` → `de_DE`, `de-DE-POSIX` → `de_DE_POSIX`, `und` → empty, `zh-Hans-CN` → `zh_CN_#Hans`,
 * `ja-JP-u-ca-japanese` → `ja_JP_#u-ca-japanese`, `ja-JP-x-lvariant-JP` → `ja_JP_JP_#u-ca-japanese`.
 * Reproduces the lenient parse (everything from the first ill-formed subtag on is ignored),
 * grandfathered tags (`i-klingon` → `tlh`), extlangs (`zh-yue-HK` → `yue_HK`), case
 * normalisation (language lower, script title, region upper, variant as given, extensions
 * lower), `x-lvariant-…` private use as variant, sorted extensions and Unicode locale
 * attributes/keywords, and Java 17's language codes (`iw`/`he` → `he`, `in` → `id`, `ji` → `yi`).
 * Never throws: Java's `forLanguageTag` accepts any string.
 */
export function javaLocaleToString(languageTag: string): string {
  const tag = parseLanguageTag(languageTag);

  // InternalLocaleBuilder.setLanguageTag
  let language = tag.extlangs[0] ?? (tag.language === 'und' ? '' : tag.language);
  const script = tag.script;
  const region = tag.region;
  let variant = tag.variants.join('_');

  // InternalLocaleBuilder.setExtensions: the first extension per singleton wins.
  const others = new Map<string, string>(); // lower-case singleton -> value as given
  let unicode: { attributes: Set<string>; keywords: Map<string, string> } | undefined;
  for (const extension of tag.extensions) {
    const key = lower(extension.slice(0, 1));
    if (key === 'u') {
      if (unicode === undefined) unicode = parseUnicodeLocaleExtension(extension.slice(2));
    } else if (!others.has(key)) {
      others.set(key, extension.slice(2));
    }
  }
  const privateuse = tag.privateuse === '' ? undefined : tag.privateuse.slice(2);

  // InternalLocaleBuilder.getBaseLocale: "x-…-lvariant-A-B" appends "A_B" to the variant.
  if (privateuse !== undefined) {
    const itr = new SubtagIterator(privateuse);
    let sawPrefix = false;
    let privateVariantStart = -1;
    while (!itr.done) {
      if (sawPrefix) {
        privateVariantStart = itr.start;
        break;
      }
      if (lower(itr.current) === 'lvariant') sawPrefix = true;
      itr.next();
    }
    if (privateVariantStart >= 0) {
      const extra = privateuse.slice(privateVariantStart).replaceAll('-', '_');
      variant = variant === '' ? extra : `${variant}_${extra}`;
    }
  }

  // BaseLocale.getInstance
  language = lower(language);
  if (language === 'iw') language = 'he';
  else if (language === 'ji') language = 'yi';
  else if (language === 'in') language = 'id';
  const normalizedScript = title(script);
  const normalizedRegion = upper(region);

  // LocaleExtensions
  const parts = new Map<string, string>();
  for (const [key, value] of others) parts.set(key, `${key}-${lower(value)}`);
  if (unicode !== undefined && (unicode.attributes.size > 0 || unicode.keywords.size > 0)) {
    const subtags = [...unicode.attributes].sort(compareUtf16);
    for (const key of [...unicode.keywords.keys()].sort(compareUtf16)) {
      subtags.push(key);
      const type = unicode.keywords.get(key) ?? '';
      if (type !== '') subtags.push(type);
    }
    parts.set('u', `u-${subtags.join('-')}`);
  }
  let extensionId = [...parts.keys()].sort(compareUtf16).map((k) => parts.get(k) ?? '').join('-');
  if (privateuse !== undefined) {
    const rest = removePrivateuseVariant(privateuse);
    if (rest !== undefined) extensionId += `${extensionId === '' ? '' : '-'}x-${lower(rest)}`;
  }
  // Locale.forLanguageTag: compatibility extensions for ja_JP_JP and th_TH_TH.
  if (extensionId === '' && variant !== '' && normalizedScript === '') {
    if (language === 'ja' && normalizedRegion === 'JP' && variant === 'JP') extensionId = 'u-ca-japanese';
    else if (language === 'th' && normalizedRegion === 'TH' && variant === 'TH') extensionId = 'u-nu-thai';
  }
  return formatLocale(language, normalizedScript, normalizedRegion, variant, extensionId);
}

/** Java `InternalLocaleBuilder.setUnicodeLocaleExtension` (duplicates ignored, case-insensitive). */
function parseUnicodeLocaleExtension(subtags: string): { attributes: Set<string>; keywords: Map<string, string> } {
  const attributes = new Set<string>(); // lower-cased
  const keywords = new Map<string, string>(); // lower-cased key -> lower-cased type
  const itr = new SubtagIterator(subtags);
  while (!itr.done && isUnicodeAttribute(itr.current)) {
    attributes.add(lower(itr.current));
    itr.next();
  }
  let key: string | undefined;
  let typeStart = -1;
  let typeEnd = -1;
  const emit = (k: string): void => {
    keywords.set(k, typeStart === -1 ? '' : lower(subtags.slice(typeStart, typeEnd)));
  };
  while (!itr.done) {
    if (key !== undefined) {
      if (isUnicodeKey(itr.current)) {
        emit(key);
        const next = lower(itr.current);
        key = keywords.has(next) ? undefined : next;
        typeStart = typeEnd = -1;
      } else {
        if (typeStart === -1) typeStart = itr.start;
        typeEnd = itr.end;
      }
    } else if (isUnicodeKey(itr.current)) {
      const next = lower(itr.current);
      key = keywords.has(next) ? undefined : next;
    }
    if (!itr.hasNext()) {
      if (key !== undefined) emit(key);
      break;
    }
    itr.next();
  }
  return { attributes, keywords };
}

/** Java `InternalLocaleBuilder.removePrivateuseVariant`: the private use without `lvariant-…`. */
function removePrivateuseVariant(value: string): string | undefined {
  const itr = new SubtagIterator(value);
  let prefixStart = -1;
  let sawPrivateVariant = false;
  while (!itr.done) {
    if (prefixStart !== -1) {
      sawPrivateVariant = true;
      break;
    }
    if (lower(itr.current) === 'lvariant') prefixStart = itr.start;
    itr.next();
  }
  if (!sawPrivateVariant) return value;
  return prefixStart === 0 ? undefined : value.slice(0, prefixStart - 1);
}

/** Java `Locale.toString()`. */
function formatLocale(language: string, script: string, region: string, variant: string, extensions: string): string {
  const l = language !== '';
  const s = script !== '';
  const r = region !== '';
  const v = variant !== '';
  const e = extensions !== '';
  let result = language;
  if (r || (l && (v || s || e))) result += `_${region}`;
  if (v && (l || r)) result += `_${variant}`;
  if (s && (l || r)) result += `_#${script}`;
  if (e && (l || r)) result += `_${s ? '' : '#'}${extensions}`;
  return result;
}

function compareUtf16(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Path
// ---------------------------------------------------------------------------------------------

/**
 * Java `Path.toString()` of `Paths.get(URI.create(uri))` on a Unix JVM (the stored form is
 * `Path.toUri().toString()`).
 *
 * - URIs starting with exactly `file:///` (`UnixUriUtils.fromUri`): one trailing slash is removed
 *   (not from the root), `%XX` escapes become bytes, repeated slashes (also `%2F`) are collapsed:
 *   `file:///tmp/p` → `/tmp/p`, `file:///tmp/dir/` → `/tmp/dir`, `file:///a//b//` → `/a/b/`
 *   (like Java: the second trailing slash survives). `.`/`..` stay.
 * - Other `file:` URIs (`file:/tmp/p`, `FILE:///x`) go through `new File(uri).toPath()`: the
 *   decoded path with repeated and trailing slashes removed.
 * - The bytes are decoded as UTF-8 with Java's replacement of malformed input by U+FFFD (this
 *   assumes the JVM's `sun.jnu.encoding` is UTF-8, as with a UTF-8 locale).
 *
 * Throws {@link JavaValueError} where Java throws (the service answers 500): text `URI.create`
 * rejects (a space, `%` without two hex digits, `[`, `|`, controls, …), a relative or opaque URI,
 * a scheme other than `file`, an authority (`file://host/x`), a query, a fragment, a NUL byte
 * (`%00`), a raw non-ASCII character in a `file:///` URI, or a lone surrogate.
 */
export function javaPathFromUri(uri: string): string {
  const fail = (reason: string): never => {
    throw new JavaValueError(`cannot make a Path of URI ${JSON.stringify(uri)}: ${reason}`);
  };
  // URI.Parser: scheme ":" then hierarchical part (starts with "/") or opaque part.
  const colon = uri.search(/[:/?#]/);
  if (colon < 0 || uri[colon] !== ':') fail('URI is not absolute');
  const scheme = uri.slice(0, colon);
  if (!/^[A-Za-z][A-Za-z0-9+.-]*$/.test(scheme)) fail('illegal scheme');
  const rest = uri.slice(colon + 1);
  if (!rest.startsWith('/')) fail('URI is not hierarchical'); // or not even a valid opaque URI
  let path = rest;
  if (rest.startsWith('//')) {
    const authorityEnd = rest.slice(2).search(/[/?#]/);
    if (authorityEnd < 0) fail('expected authority');
    if (authorityEnd > 0) fail('URI has an authority component');
    path = rest.slice(2);
  }
  const queryOrFragment = path.search(/[?#]/);
  if (queryOrFragment >= 0) fail('URI has a query or fragment component');
  checkUriChars(path, fail);
  if (lower(scheme) !== 'file') fail('URI scheme is not "file"');

  if (!uri.startsWith('file:///')) {
    // new File(uri).toPath(): decoded path, UnixFileSystem.normalize, UnixPath.normalizeAndCheck.
    const decoded = decodeUriPath(path);
    if (decoded.includes('\u0000')) fail('Nul character not allowed');
    if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(decoded)) {
      fail('Malformed input or input contains unmappable characters');
    }
    const normalized = decoded.replace(/\/{2,}/g, '/');
    return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
  }
  // UnixUriUtils.fromUri: raw path to bytes, one trailing slash removed first, then redundant
  // slashes (also escaped ones, %2F) skipped.
  const raw = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    let b: number;
    if (c === 0x25 /* % */) {
      b = parseInt(raw.slice(i + 1, i + 3), 16);
      if (b === 0) fail('Nul character not allowed');
      i += 2;
    } else {
      if (c === 0 || c >= 0x80) fail('Bad escape');
      b = c;
    }
    if (b === 0x2f && bytes[bytes.length - 1] === 0x2f) continue;
    bytes.push(b);
  }
  return decodeUtf8Java(bytes);
}

/** Java `URI.Parser.checkChars` for path (and opaque) characters. */
function checkUriChars(text: string, fail: (reason: string) => never): void {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x25) {
      if (!/^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) fail(`malformed escape pair at path index ${i}`);
      i += 2;
    } else if (c < 0x80) {
      if (!/[A-Za-z0-9\-_.!~*'():@&=+$,;/]/.test(text[i] ?? '')) fail(`illegal character at path index ${i}`);
    } else if (c === 0x80 || isJavaSpaceChar(c) || (c >= 0x7f && c <= 0x9f)) {
      fail(`illegal character at path index ${i}`);
    }
  }
}

/** Java `Character.isSpaceChar` (Unicode Zs, Zl, Zp) for a UTF-16 code unit. */
function isJavaSpaceChar(c: number): boolean {
  return /^[\p{Zs}\p{Zl}\p{Zp}]$/u.test(String.fromCharCode(c));
}

/** Java `URI.decode`: each run of `%XX` escapes is decoded as UTF-8 with replacement. */
function decodeUriPath(path: string): string {
  return path.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    const bytes: number[] = [];
    for (let i = 0; i < run.length; i += 3) bytes.push(parseInt(run.slice(i + 1, i + 3), 16));
    return decodeUtf8Java(bytes);
  });
}

/** Java 17 `new String(bytes, UTF_8)`: malformed input replaced with U+FFFD exactly like Java. */
function decodeUtf8Java(src: readonly number[]): string {
  const REPL = 0xfffd;
  const out: number[] = [];
  const at = (i: number): number => src[i] ?? 0;
  const notContinuation = (b: number): boolean => (b & 0xc0) !== 0x80;
  const sl = src.length;
  let sp = 0;
  while (sp < sl) {
    const b1 = at(sp++);
    if (b1 < 0x80) {
      out.push(b1);
    } else if (b1 >= 0xc2 && b1 <= 0xdf) {
      if (sp < sl) {
        const b2 = at(sp++);
        if (notContinuation(b2)) {
          out.push(REPL);
          sp--;
        } else {
          out.push(((b1 & 0x1f) << 6) | (b2 & 0x3f));
        }
        continue;
      }
      out.push(REPL);
      break;
    } else if (b1 >= 0xe0 && b1 <= 0xef) {
      const malformed32 = (b2: number): boolean => (b1 === 0xe0 && (b2 & 0xe0) === 0x80) || notContinuation(b2);
      if (sp + 1 < sl) {
        const b2 = at(sp++);
        const b3 = at(sp++);
        if (malformed32(b2) || notContinuation(b3)) {
          out.push(REPL);
          sp -= 3;
          sp += malformed32(at(sp + 1)) ? 1 : 2;
        } else {
          const c = ((b1 & 0x0f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
          out.push(c >= 0xd800 && c <= 0xdfff ? REPL : c);
        }
        continue;
      }
      if (sp < sl && malformed32(at(sp))) {
        out.push(REPL);
        continue;
      }
      out.push(REPL);
      break;
    } else if (b1 >= 0xf0 && b1 <= 0xf7) {
      if (sp + 2 < sl) {
        const b2 = at(sp++);
        const b3 = at(sp++);
        const b4 = at(sp++);
        const uc = ((b1 & 0x07) << 18) | ((b2 & 0x3f) << 12) | ((b3 & 0x3f) << 6) | (b4 & 0x3f);
        if (notContinuation(b2) || notContinuation(b3) || notContinuation(b4) || uc < 0x10000 || uc > 0x10ffff) {
          out.push(REPL);
          sp -= 4;
          // malformed4
          const m2 = at(sp + 1);
          if (b1 > 0xf4 || (b1 === 0xf0 && (m2 < 0x90 || m2 > 0xbf)) || (b1 === 0xf4 && (m2 & 0xf0) !== 0x80) || notContinuation(m2)) {
            sp += 1;
          } else if (notContinuation(at(sp + 2))) {
            sp += 2;
          } else {
            sp += 3;
          }
        } else {
          out.push(0xd800 + ((uc - 0x10000) >> 10), 0xdc00 + ((uc - 0x10000) & 0x3ff));
        }
        continue;
      }
      const b2 = at(sp);
      if (b1 > 0xf4 || (sp < sl && ((b1 === 0xf0 && (b2 < 0x90 || b2 > 0xbf)) || (b1 === 0xf4 && (b2 & 0xf0) !== 0x80) || notContinuation(b2)))) {
        out.push(REPL);
        continue;
      }
      sp++;
      out.push(REPL);
      if (sp < sl && notContinuation(at(sp))) continue;
      break;
    } else {
      out.push(REPL);
    }
  }
  let s = '';
  for (let i = 0; i < out.length; i += 8192) s += String.fromCharCode(...out.slice(i, i + 8192));
  return s;
}

// ---------------------------------------------------------------------------------------------
// Optionals, helpers
// ---------------------------------------------------------------------------------------------

/**
 * `OptionalInt` / `OptionalLong` / `OptionalDouble` `toString()`: `OptionalInt[42]` or
 * `OptionalInt.empty`. `valueText` is the value's Java text (for `OptionalDouble`
 * `Double.toString`, e.g. `1.5`); it is ignored when the optional is empty.
 */
export function javaOptionalText(
  kind: 'OptionalInt' | 'OptionalLong' | 'OptionalDouble',
  present: boolean,
  valueText: string,
): string {
  return present ? `${kind}[${valueText}]` : `${kind}.empty`;
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
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
