/**
 * Tests of `src/javatext/java-date-text.ts`. Expected texts in the tables below are conformance
 * values: each was printed by OpenJDK 17.0.15 (`new Date(ms).toString()`,
 * `new java.sql.Timestamp(ms).toString()` and the other `java.sql` types, with
 * `TimeZone.setDefault(zone)`), never generated from this module.
 */
import { describe, expect, it } from 'vitest';
import {
  javaDateToString,
  javaSqlDateToString,
  javaSqlTimeToString,
  javaSqlTimestampToString,
} from '../../src/javatext/java-date-text.js';
import { UTC, type JavaTimeZone } from '../../src/javatext/java-time-zones.js';
import { lcg } from '../helpers/real-systems/java-value.js';

const LONG_MAX = 9223372036854775807n;
const LONG_MIN = -9223372036854775808n;

describe('javaDateToString', () => {
  it('defaults to UTC', () => {
    expect(javaDateToString(0n)).toBe('Thu Jan 01 00:00:00 UTC 1970');
    expect(javaDateToString(1600000000000n, UTC)).toBe('Sun Sep 13 12:26:40 UTC 2020');
    expect(UTC.id).toBe('UTC');
  });

  it.each([
    [0n, 'Thu Jan 01 00:00:00 UTC 1970'],
    [-1n, 'Wed Dec 31 23:59:59 UTC 1969'],
    [1n, 'Thu Jan 01 00:00:00 UTC 1970'],
    [1600000000000n, 'Sun Sep 13 12:26:40 UTC 2020'],
    // leap day with milliseconds (not shown)
    [1582934400123n, 'Sat Feb 29 00:00:00 UTC 2020'],
    [-86400000n, 'Wed Dec 31 00:00:00 UTC 1969'],
    [-86399999n, 'Wed Dec 31 00:00:00 UTC 1969'],
    [946684799999n, 'Fri Dec 31 23:59:59 UTC 1999'],
    [-2208988800000n, 'Mon Jan 01 00:00:00 UTC 1900'],
    [-2208988800001n, 'Sun Dec 31 23:59:59 UTC 1899'],
    // Gregorian cutover: Thursday 4 October 1582 (Julian) is followed by Friday 15 October
    [-12219292800001n, 'Thu Oct 04 23:59:59 UTC 1582'],
    [-12219292800000n, 'Fri Oct 15 00:00:00 UTC 1582'],
    [-12219292799999n, 'Fri Oct 15 00:00:00 UTC 1582'],
    // before the cutover: Julian calendar, year of era without padding, no era marker
    [-30610224000000n, 'Wed Dec 27 00:00:00 UTC 999'],
    [-30610224000001n, 'Tue Dec 26 23:59:59 UTC 999'],
    [-40000000000000n, 'Sun Jun 11 00:53:20 UTC 702'],
    [-62135596800000n, 'Mon Jan 03 00:00:00 UTC 1'],
    [-62135596800001n, 'Sun Jan 02 23:59:59 UTC 1'],
    [-62135769600001n, 'Fri Dec 31 23:59:59 UTC 1'], // 31 Dec 1 BC
    [-1000000000000000n, 'Tue Nov 16 22:13:20 UTC 29720'], // 29720 BC
    [-2208988800000001n, 'Sat May 02 23:59:59 UTC 68030'],
    // far future
    [253402300799999n, 'Fri Dec 31 23:59:59 UTC 9999'],
    [253402300800000n, 'Sat Jan 01 00:00:00 UTC 10000'],
    [LONG_MAX, 'Sun Aug 17 07:12:55 UTC 292278994'],
    [LONG_MIN, 'Sun Dec 02 16:47:04 UTC 292269055'],
  ])('UTC %s -> %s', (ms, expected) => {
    expect(javaDateToString(ms)).toBe(expected);
  });

  // Offsets of non-fixed zones come from Intl; the instants are chosen where tz data is settled.
  it.each([
    [1580000000000n, 'Europe/Berlin', 'Sun Jan 26 01:53:20 CET 2020'],
    [1600000000000n, 'Europe/Berlin', 'Sun Sep 13 14:26:40 CEST 2020'],
    [1580000000000n, 'America/Los_Angeles', 'Sat Jan 25 16:53:20 PST 2020'],
    [1600000000000n, 'America/Los_Angeles', 'Sun Sep 13 05:26:40 PDT 2020'],
    [1600000000000n, 'America/New_York', 'Sun Sep 13 08:26:40 EDT 2020'],
    [1600000000000n, 'Asia/Kolkata', 'Sun Sep 13 17:56:40 IST 2020'],
    [1600000000000n, 'Asia/Kathmandu', 'Sun Sep 13 18:11:40 NPT 2020'],
    [1600000000000n, 'America/St_Johns', 'Sun Sep 13 09:56:40 NDT 2020'],
    [1580000000000n, 'Australia/Sydney', 'Sun Jan 26 11:53:20 AEDT 2020'],
    [1600000000000n, 'Australia/Sydney', 'Sun Sep 13 22:26:40 AEST 2020'],
    [1600000000000n, 'Europe/Dublin', 'Sun Sep 13 13:26:40 IST 2020'],
    [1580000000000n, 'Europe/Dublin', 'Sun Jan 26 00:53:20 GMT 2020'],
    [1600000000000n, 'Europe/London', 'Sun Sep 13 13:26:40 BST 2020'],
    [1600000000000n, 'Asia/Tokyo', 'Sun Sep 13 21:26:40 JST 2020'],
    [1600000000000n, 'Europe/Moscow', 'Sun Sep 13 15:26:40 MSK 2020'],
    [1300000000000n, 'Europe/Moscow', 'Sun Mar 13 10:06:40 MSK 2011'],
    // US war time 1942-1945 was summer time all year
    [-800000000000n, 'America/New_York', 'Fri Aug 25 13:46:40 EDT 1944'],
    // Java's own ids
    [1600000000000n, 'PST', 'Sun Sep 13 05:26:40 PDT 2020'],
    [1600000000000n, 'EST', 'Sun Sep 13 07:26:40 EST 2020'],
    [1600000000000n, 'SystemV/PST8', 'Sun Sep 13 04:26:40 PST 2020'],
    [1600000000000n, 'SystemV/PST8PDT', 'Sun Sep 13 05:26:40 PDT 2020'],
    // before 1900 Java uses the raw offset, not local mean time
    [-5364662400000n, 'Europe/Berlin', 'Wed Jan 01 01:00:00 CET 1800'],
    // the Julian/Gregorian switch happens at local midnight
    [-12219292800001n, 'Europe/Berlin', 'Fri Oct 15 00:59:59 CET 1582'],
    [-12219296400001n, 'Europe/Berlin', 'Thu Oct 04 23:59:59 CET 1582'],
    [-12219296400000n, 'Europe/Berlin', 'Fri Oct 15 00:00:00 CET 1582'],
    [-62135769600001n, 'America/New_York', 'Fri Dec 31 18:59:59 EST 1'],
    // after 2037: the recurring rule, or the last offset for zones without one
    [3000000000000n, 'America/Los_Angeles', 'Fri Jan 23 21:20:00 PST 2065'],
    [2500000000000n, 'Africa/Casablanca', 'Mon Mar 22 05:26:40 WEST 2049'],
    // in year 292278994 Java applies no northern summer time (long overflow)
    [LONG_MAX, 'America/Los_Angeles', 'Sat Aug 16 23:12:55 PST 292278994'],
    [LONG_MAX, 'Australia/Sydney', 'Sun Aug 17 17:12:55 AEST 292278994'],
  ])('%s in %s -> %s', (ms, id, expected) => {
    expect(javaDateToString(ms, { id })).toBe(expected);
  });

  it.each([
    ['Etc/GMT+5', 'Wed Dec 31 19:00:00 GMT-05:00 1969'],
    ['Etc/GMT-14', 'Thu Jan 01 14:00:00 GMT+14:00 1970'],
    ['Etc/UTC', 'Thu Jan 01 00:00:00 UTC 1970'],
    ['Zulu', 'Thu Jan 01 00:00:00 UTC 1970'],
    ['GMT', 'Thu Jan 01 00:00:00 GMT 1970'],
    // custom ids
    ['GMT+05:30', 'Thu Jan 01 05:30:00 GMT+05:30 1970'],
    ['GMT+5', 'Thu Jan 01 05:00:00 GMT+05:00 1970'],
    ['GMT-0130', 'Wed Dec 31 22:30:00 GMT-01:30 1969'],
    ['GMT+0', 'Thu Jan 01 00:00:00 GMT+00:00 1970'],
    ['GMT-00:00', 'Thu Jan 01 00:00:00 GMT-00:00 1970'],
    // ids Java does not know fall back to GMT (ids are case-sensitive in Java)
    ['GMT+24', 'Thu Jan 01 00:00:00 GMT 1970'],
    ['utc', 'Thu Jan 01 00:00:00 GMT 1970'],
    ['Foo/Bar', 'Thu Jan 01 00:00:00 GMT 1970'],
  ])('epoch in fixed zone %s -> %s', (id, expected) => {
    expect(javaDateToString(0n, { id })).toBe(expected);
  });

  it('takes overriding zone names', () => {
    const zone: JavaTimeZone = { id: 'Europe/Berlin', standardName: 'MEZ', daylightName: 'MESZ' };
    expect(javaDateToString(1580000000000n, zone)).toBe('Sun Jan 26 01:53:20 MEZ 2020');
    expect(javaDateToString(1600000000000n, zone)).toBe('Sun Sep 13 14:26:40 MESZ 2020');
    expect(javaDateToString(0n, { id: 'UTC', standardName: 'Z' })).toBe('Thu Jan 01 00:00:00 Z 1970');
  });

  it('agrees with the proleptic Gregorian calendar of JavaScript after the cutover (UTC)', () => {
    const rnd = lcg(2024);
    const weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const from = -12219292800000; // 1582-10-15
    const to = 8.64e15;
    for (let i = 0; i < 2000; i++) {
      const ms = Math.floor(from + rnd() * (to - from));
      const d = new Date(ms);
      const p2 = (n: number) => String(n).padStart(2, '0');
      const expected =
        `${weekdays[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${p2(d.getUTCDate())} ` +
        `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
      expect(javaDateToString(BigInt(ms))).toBe(expected);
    }
  });

  it('counts weekdays continuously through the Julian calendar', () => {
    const weekdays = ['Thu', 'Fri', 'Sat', 'Sun', 'Mon', 'Tue', 'Wed'];
    for (let day = -800_000; day < -700_000; day += 997) {
      const text = javaDateToString(BigInt(day) * 86400000n);
      expect(text.slice(0, 3)).toBe(weekdays[((day % 7) + 7) % 7]);
    }
  });
});

describe('javaSqlDateToString', () => {
  it.each([
    [0n, 'UTC', '1970-01-01'],
    [-1n, 'UTC', '1969-12-31'],
    [1600000000000n, 'UTC', '2020-09-13'],
    [1582934400123n, 'UTC', '2020-02-29'],
    [-2208988800001n, 'UTC', '1899-12-31'],
    [-12219292800001n, 'UTC', '1582-10-04'],
    [-62135769600001n, 'UTC', '0001-12-31'],
    // Java 17 prints exactly four year digits
    [253402300800000n, 'UTC', '0000-01-01'],
    [LONG_MAX, 'UTC', '8994-08-17'],
    [LONG_MIN, 'UTC', '9055-12-02'],
    [1580000000000n, 'Europe/Berlin', '2020-01-26'],
    [1600000000000n, 'America/Los_Angeles', '2020-09-13'],
    [-1n, 'Asia/Kolkata', '1970-01-01'],
  ])('%s in %s -> %s', (ms, id, expected) => {
    expect(javaSqlDateToString(ms, { id })).toBe(expected);
  });

  it('defaults to UTC', () => {
    expect(javaSqlDateToString(-1n)).toBe('1969-12-31');
  });
});

describe('javaSqlTimeToString', () => {
  it.each([
    [0n, 'UTC', '00:00:00'],
    [-1n, 'UTC', '23:59:59'],
    [1600000000000n, 'UTC', '12:26:40'],
    [1582934400123n, 'UTC', '00:00:00'],
    [-2208988800001n, 'UTC', '23:59:59'],
    [-62135769600001n, 'UTC', '23:59:59'],
    [LONG_MAX, 'UTC', '07:12:55'],
    [LONG_MIN, 'UTC', '16:47:04'],
    [1580000000000n, 'Europe/Berlin', '01:53:20'],
    [1600000000000n, 'America/Los_Angeles', '05:26:40'],
    [-1n, 'Asia/Kolkata', '05:29:59'],
  ])('%s in %s -> %s', (ms, id, expected) => {
    expect(javaSqlTimeToString(ms, { id })).toBe(expected);
  });

  it('defaults to UTC', () => {
    expect(javaSqlTimeToString(1600000000000n)).toBe('12:26:40');
  });
});

describe('javaSqlTimestampToString', () => {
  it.each([
    [0n, 'UTC', '1970-01-01 00:00:00.0'],
    [-1n, 'UTC', '1969-12-31 23:59:59.999'],
    [1n, 'UTC', '1970-01-01 00:00:00.001'],
    [10n, 'UTC', '1970-01-01 00:00:00.01'],
    [100n, 'UTC', '1970-01-01 00:00:00.1'],
    [1600000000000n, 'UTC', '2020-09-13 12:26:40.0'],
    [1600000000123n, 'UTC', '2020-09-13 12:26:40.123'],
    [1600000000120n, 'UTC', '2020-09-13 12:26:40.12'],
    [1600000000100n, 'UTC', '2020-09-13 12:26:40.1'],
    [1600000000010n, 'UTC', '2020-09-13 12:26:40.01'],
    [1600000000001n, 'UTC', '2020-09-13 12:26:40.001'],
    [-999n, 'UTC', '1969-12-31 23:59:59.001'],
    [-1000n, 'UTC', '1969-12-31 23:59:59.0'],
    [-1001n, 'UTC', '1969-12-31 23:59:58.999'],
    [1582934400123n, 'UTC', '2020-02-29 00:00:00.123'],
    [-62135769600001n, 'UTC', '0001-12-31 23:59:59.999'],
    [253402300800000n, 'UTC', '10000-01-01 00:00:00.0'],
    [LONG_MAX, 'UTC', '292278994-08-17 07:12:55.807'],
    // new Timestamp(long) overflows for the 192 smallest longs
    [LONG_MIN, 'UTC', '292278994-08-17 07:12:55.192'],
    [-9223372036854775617n, 'UTC', '292278994-08-17 07:12:55.383'],
    [-9223372036854775616n, 'UTC', '292278994-08-17 07:12:55.384'],
    [-9223372036854775000n, 'UTC', '292269055-12-02 16:47:05.0'],
    [1600000000123n, 'Europe/Berlin', '2020-09-13 14:26:40.123'],
    [-1n, 'America/New_York', '1969-12-31 18:59:59.999'],
  ])('%s in %s -> %s', (ms, id, expected) => {
    expect(javaSqlTimestampToString(ms, { id })).toBe(expected);
  });

  it('defaults to UTC', () => {
    expect(javaSqlTimestampToString(1600000000123n)).toBe('2020-09-13 12:26:40.123');
  });
});
