/**
 * Expected texts in the tables below are conformance values: each was printed by OpenJDK 17.0.15
 * (`new Date(ms).toString()`, `new java.sql.Timestamp(ms).toString()`, `new BigInteger(bytes)`,
 * `new BigDecimal(text).toString()`, `Locale.forLanguageTag(tag).toString()`,
 * `Paths.get(URI.create(uri)).toString()` on Linux with a UTF-8 locale, with
 * `TimeZone.setDefault(zone)`), never generated from this module. `null` means Java threw.
 */
import { describe, expect, it } from 'vitest';
import {
  JavaValueError,
  UTC,
  javaBigDecimalToString,
  javaBigIntegerFromBytes,
  javaDateToString,
  javaLocaleToString,
  javaOptionalText,
  javaPathFromUri,
  javaSqlDateToString,
  javaSqlTimeToString,
  javaSqlTimestampToString,
  type JavaTimeZone,
} from '../../src/format/java-value-text.js';

const LONG_MAX = 9223372036854775807n;
const LONG_MIN = -9223372036854775808n;

/** Deterministic pseudo-random numbers (tests must not depend on Math.random). */
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function expectJavaValueError(run: () => unknown): void {
  let caught: unknown;
  try {
    run();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(JavaValueError);
  expect((caught as JavaValueError).code).toBe('FORMAT_JAVA_VALUE');
}

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

describe('javaBigIntegerFromBytes', () => {
  it.each([
    [[0x00], '0'],
    [[0x0a], '10'],
    [[0xff], '-1'],
    [[0x80], '-128'],
    [[0x7f], '127'],
    [[0x00, 0xff], '255'],
    [[0xff, 0x00], '-256'],
    [[0x00, 0x80], '128'],
    [[0xff, 0x7f], '-129'],
    [[0xff, 0xff, 0xff], '-1'],
    [[0x00, 0x00, 0x01], '1'],
    [[0x3b, 0x9a, 0xca, 0x00], '1000000000'],
    [[0x80, 0, 0, 0, 0, 0, 0, 0], '-9223372036854775808'],
    [[0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], '9223372036854775807'],
    [[0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], '18446744073709551615'],
    [
      [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10],
      '1339673755198158349044581307228491536',
    ],
    [
      [0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10],
      '-1512366075204170929049582354406559216',
    ],
  ])('%j -> %s', (bytes, expected) => {
    expect(javaBigIntegerFromBytes(Uint8Array.from(bytes))).toBe(expected);
  });

  it('rejects an empty array like Java', () => {
    expectJavaValueError(() => javaBigIntegerFromBytes(new Uint8Array(0)));
  });

  it('agrees with BigInt.asIntN for random 8-byte values', () => {
    const rnd = lcg(7);
    for (let i = 0; i < 500; i++) {
      const bytes = Uint8Array.from({ length: 8 }, () => Math.floor(rnd() * 256));
      const unsigned = bytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n);
      expect(javaBigIntegerFromBytes(bytes)).toBe(BigInt.asIntN(64, unsigned).toString());
    }
  });

  it('accepts views into a larger buffer', () => {
    const buffer = Uint8Array.from([0x12, 0xff, 0x00, 0x34]);
    expect(javaBigIntegerFromBytes(buffer.subarray(1, 3))).toBe('-256');
  });
});

describe('javaBigDecimalToString', () => {
  it.each([
    ['0', '0'],
    ['-0', '0'],
    ['+0', '0'],
    ['0.00', '0.00'],
    ['-0.00', '0.00'],
    ['0E+3', '0E+3'],
    ['0E-3', '0.000'],
    ['0e3', '0E+3'],
    ['1E+10', '1E+10'],
    ['1e10', '1E+10'],
    ['-1234.5678900', '-1234.5678900'],
    ['0.0000001', '1E-7'],
    ['0.000001', '0.000001'],
    ['0.0000010', '0.0000010'],
    ['123E-10', '1.23E-8'],
    ['1.23E-8', '1.23E-8'],
    ['1.', '1'],
    ['+.5', '0.5'],
    ['-.5', '-0.5'],
    ['-00012.50', '-12.50'],
    ['1E-6', '0.000001'],
    ['10E-7', '0.0000010'],
    ['0.0000000', '0E-7'],
    ['0E-7', '0E-7'],
    ['1234567E-13', '1.234567E-7'],
    ['100E-2', '1.00'],
    ['5E-1', '0.5'],
    ['0.5E1', '5'],
    ['2.50E+3', '2.50E+3'],
    ['1E+0', '1'],
    ['1.5E-0', '1.5'],
    ['12345678901234567890.123456789E-5', '123456789012345.67890123456789'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['123456789012345678901234567890', '123456789012345678901234567890'],
    ['1E2147483647', '1E+2147483647'],
    ['1E0000000000000000005', '1E+5'],
    // any Unicode decimal digit, like Character.isDigit
    ['\u0663\u0664\u0665', '345'],
    ['\u0661\u0662.\u0665E\u0663', '1.25E+4'],
    ['\uff11\uff12\uff13', '123'],
  ])('%j -> %s', (text, expected) => {
    expect(javaBigDecimalToString(text)).toBe(expected);
  });

  it.each([
    '', '-', '+', '.', 'e5', '1e', '1e+', '1e+-1', '1..2', '1.2.3', ' 1', '1 ', '1_0', '0x10', 'NaN',
    'Infinity', '1E+2e3',
    // exponent must fit an int (Java 17), and so must the scale
    '1E2147483648', '1E-2147483649', '1E-2147483648', '0.1E-2147483647', '0.1E-2147483648',
    '1E99999999999', '1E12345678901',
  ])('rejects %j like Java', (text) => {
    expectJavaValueError(() => javaBigDecimalToString(text));
  });

  it('produces text that parses back to itself', () => {
    const rnd = lcg(11);
    const pick = (s: string) => s[Math.floor(rnd() * s.length)] ?? '';
    for (let i = 0; i < 1000; i++) {
      let text = pick('  -+');
      const intDigits = Math.floor(rnd() * 22);
      for (let k = 0; k < intDigits; k++) text += pick('0012579');
      text += '.';
      const fracDigits = 1 + Math.floor(rnd() * 22);
      for (let k = 0; k < fracDigits; k++) text += pick('0037');
      if (rnd() < 0.5) text += `E${pick('+-')}${Math.floor(rnd() * 40)}`;
      const canonical = javaBigDecimalToString(text.trim());
      expect(javaBigDecimalToString(canonical)).toBe(canonical);
    }
  });
});

describe('javaLocaleToString', () => {
  it.each([
    ['de-DE', 'de_DE'],
    ['de-DE-POSIX', 'de_DE_POSIX'],
    ['und', ''],
    ['', ''],
    ['en', 'en'],
    ['EN-us', 'en_US'],
    ['UND-de', 'und_DE'], // only lower-case "und" is dropped
    ['und-DE', '_DE'],
    ['es-419', 'es_419'],
    // scripts
    ['zh-Hans-CN', 'zh_CN_#Hans'],
    ['ZH-hans-cn', 'zh_CN_#Hans'],
    ['sr-Latn', 'sr__#Latn'],
    ['und-Latn-US', '_US_#Latn'],
    // variants (case kept)
    ['en-US-1234-abcde', 'en_US_1234_abcde'],
    ['en-US-x-lvariant-POSIX', 'en_US_POSIX'],
    ['de-x-lvariant-Posix', 'de__Posix'],
    ['de-DE-1901-x-lvariant-ABC-DEF', 'de_DE_1901_ABC_DEF'],
    ['und-US-x-lvariant-POSIX', '_US_POSIX'],
    ['en-x-foo-lvariant-bar', 'en__bar_#x-foo'],
    ['en-x-abc-lvariant', 'en__#x-abc-lvariant'],
    // extensions: lower case, sorted, private use last
    ['ja-JP-u-ca-japanese', 'ja_JP_#u-ca-japanese'],
    ['en-Latn-US-variant1-u-co-phonebk-x-private', 'en_US_variant1_#Latn_u-co-phonebk-x-private'],
    ['en-u-nu-latn-ca-gregory', 'en__#u-ca-gregory-nu-latn'],
    ['en-u-attr2-attr1-ca-gregory', 'en__#u-attr1-attr2-ca-gregory'],
    ['en-u-ca-x1-ca-x2', 'en__#u-ca-x1-x2'],
    ['en-u-ca', 'en__#u-ca'],
    ['en-u-ab-cd', 'en__#u-ab-cd'],
    ['en-u-ca-japanese-japanese', 'en__#u-ca-japanese-japanese'],
    ['en-u-aaa-bbb-AAA', 'en__#u-aaa-bbb'],
    ['en-u-kk-TRUE-KK-false', 'en__#u-kk-true'],
    ['en-b-bar-a-foo', 'en__#a-foo-b-bar'],
    ['en-a-foo-A-bar', 'en__#a-foo'],
    ['en-z-zzz-y-yyy-x-xxx', 'en__#y-yyy-z-zzz-x-xxx'],
    ['en-US-t-de-DE', 'en_US_#t-de-de'],
    ['de-DE-x-Private', 'de_DE_#x-private'],
    ['de-DE-X-private', 'de_DE_#x-private'],
    // compatibility locales ja_JP_JP and th_TH_TH
    ['ja-JP-x-lvariant-JP', 'ja_JP_JP_#u-ca-japanese'],
    ['ja-JP-u-ca-japanese-x-lvariant-JP', 'ja_JP_JP_#u-ca-japanese'],
    ['th-TH-x-lvariant-TH', 'th_TH_TH_#u-nu-thai'],
    ['ja-JP-x-lvariant-jp', 'ja_JP_jp'],
    // grandfathered tags
    ['i-klingon', 'tlh'],
    ['I-KLINGON', 'tlh'],
    ['art-lojban', 'jbo'],
    ['en-GB-oed', 'en_GB_#x-oed'],
    ['i-default', 'en__#x-i-default'],
    ['i-enochian', ''],
    ['zh-min-nan', 'nan'],
    ['zh-min', 'nan__#x-zh-min'],
    ['sgn-BE-FR', 'sfb'],
    ['no-bok', 'nb'],
    ['cel-gaulish', 'xtg__#x-cel-gaulish'],
    // extlangs
    ['zh-yue-HK', 'yue_HK'],
    ['und-yue', 'yue'],
    ['en-abc-def-ghi-jkl', 'abc'],
    // Java 17 language codes
    ['he', 'he'],
    ['iw-IL', 'he_IL'],
    ['yi', 'yi'],
    ['ji', 'yi'],
    ['id', 'id'],
    ['in-ID', 'id_ID'],
    // lenient parsing: everything from the first ill-formed subtag on is ignored
    ['en_US', ''],
    ['en--US', 'en'],
    ['-en', ''],
    ['en-a', 'en'],
    ['en-a-x-foo', 'en'],
    ['en-x', 'en'],
    ['en-1-abc', 'en'],
    ['en-US-POSIX-toolongsubtag-fr', 'en_US_POSIX'],
    ['abcdefghi', ''],
    ['abcde-DE', 'abcde_DE'],
    ['a', ''],
    ['x-abc', ''],
    ['x-lvariant-POSIX', ''],
  ])('%j -> %j', (tag, expected) => {
    expect(javaLocaleToString(tag)).toBe(expected);
  });
});

describe('javaPathFromUri', () => {
  it.each([
    ['file:///tmp/p', '/tmp/p'],
    ['file:///tmp/p/', '/tmp/p'],
    ['file:///', '/'],
    ['file:////', '/'],
    ['file:///tmp//p//', '/tmp/p/'],
    ['file:////tmp', '/tmp'],
    ['file:/tmp/p', '/tmp/p'],
    ['file:/tmp//p//', '/tmp/p'],
    ['file:/', '/'],
    ['FILE:///tmp/x', '/tmp/x'],
    ['File:/tmp/x/', '/tmp/x'],
    ['file:///tmp/a%20b', '/tmp/a b'],
    ['file:///tmp/%C3%A4', '/tmp/\u00e4'],
    ['file:/tmp/%C3%A4', '/tmp/\u00e4'],
    ['file:/tmp/\u00e4', '/tmp/\u00e4'],
    ['file:///tmp/%F0%9F%98%80', '/tmp/\ud83d\ude00'],
    ['file:///tmp/a%2Fb', '/tmp/a/b'],
    ['file:///tmp/a%2F%2Fb', '/tmp/a/b'],
    ['file:///tmp/../x', '/tmp/../x'],
    ['file:///a:b@c&d=e+f$g,h;i', '/a:b@c&d=e+f$g,h;i'],
    ["file:///-_.!~*'()", "/-_.!~*'()"],
    // malformed UTF-8 becomes U+FFFD exactly like Java's decoder
    ['file:///tmp/%E2%82', '/tmp/\ufffd'],
    ['file:///tmp/%E2%82x', '/tmp/\ufffdx'],
    ['file:///tmp/%ED%A0%80', '/tmp/\ufffd'],
    ['file:///tmp/%ff', '/tmp/\ufffd'],
    ['file:/tmp/%E2a%82', '/tmp/\ufffda\ufffd'],
    ['file:///%C0%80', '/\ufffd\ufffd'],
    ['file:///%F0%9F%98', '/\ufffd'],
    ['file:///%F4%90%80%80', '/\ufffd\ufffd\ufffd\ufffd'],
  ])('%j -> %j', (uri, expected) => {
    expect(javaPathFromUri(uri)).toBe(expected);
  });

  it.each([
    'file:///tmp/a b',
    'file:///tmp/%2',
    'file:///tmp/%zz',
    'file:///tmp/%00',
    'file:/tmp/%00',
    'file:///tmp/\u00e4', // raw non-ASCII only in the java.io.File form
    'file:///tmp/\u00a0',
    'file:/tmp/\ud800',
    'file://host/tmp',
    'file://localhost/tmp',
    'file://',
    'file:',
    'file:tmp',
    'file:///tmp?q',
    'file:///tmp#f',
    'http://x/y',
    'jar:file:/x.zip!/a',
    'relative/path',
    '/tmp/x',
    'file:///[x]',
    'file:///a|b',
    '1file:///x',
  ])('rejects %j like Java', (uri) => {
    expectJavaValueError(() => javaPathFromUri(uri));
  });
});

describe('javaOptionalText', () => {
  it.each([
    ['OptionalInt', true, '42', 'OptionalInt[42]'],
    ['OptionalLong', true, '7', 'OptionalLong[7]'],
    ['OptionalDouble', true, '1.5', 'OptionalDouble[1.5]'],
    ['OptionalInt', false, '0', 'OptionalInt.empty'],
    ['OptionalLong', false, '0', 'OptionalLong.empty'],
    ['OptionalDouble', false, '0.0', 'OptionalDouble.empty'],
  ] as const)('%s present=%s value=%s -> %s', (kind, present, value, expected) => {
    expect(javaOptionalText(kind, present, value)).toBe(expected);
  });
});

describe('JavaValueError', () => {
  it('is an Error with a stable code', () => {
    const error = new JavaValueError('boom', { cause: 'x' });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('JavaValueError');
    expect(error.code).toBe('FORMAT_JAVA_VALUE');
    expect(error.message).toBe('boom');
    expect(error.cause).toBe('x');
  });
});
