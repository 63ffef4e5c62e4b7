import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  javaDoubleBitsToString,
  javaDoubleToString,
  javaFloatBitsToString,
} from '../../src/javatext/java-float-text.js';

const scratch = new DataView(new ArrayBuffer(8));

function doubleFromBits(bits: bigint): number {
  scratch.setBigUint64(0, BigInt.asUintN(64, bits));
  return scratch.getFloat64(0);
}

function floatFromBits(bits: number): number {
  scratch.setUint32(0, bits >>> 0);
  return scratch.getFloat32(0);
}

function floatBits(value: number): number {
  scratch.setFloat32(0, value);
  return scratch.getUint32(0);
}

/** Significant digits of a Java or JS number text: no sign, point, exponent, outer zeros. */
function significantDigits(text: string): string {
  return text
    .replace(/[eE].*$/, '')
    .replace(/[-.]/g, '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
}

/** Fewest significant digits that read back (as a float) to the float value v > 0. */
function shortestFloatDigitCount(v: number): number {
  for (let n = 1; n <= 9; n++) {
    if (Math.fround(Number(v.toPrecision(n))) === v) return significantDigits(v.toPrecision(n)).length;
  }
  throw new Error(`no float text for ${v}`);
}

/** Deterministic 32-bit generator (mulberry32). */
function random32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

const JAVA_PATTERN = /^-?(\d+\.\d+|\d\.\d+E-?\d+)$/;
const SPECIALS = new Set(['NaN', 'Infinity', '-Infinity', '0.0', '-0.0']);

describe('special values', () => {
  it('prints NaN (any payload), infinities and signed zeros', () => {
    expect(javaDoubleToString(Number.NaN)).toBe('NaN');
    expect(javaDoubleToString(Infinity)).toBe('Infinity');
    expect(javaDoubleToString(-Infinity)).toBe('-Infinity');
    expect(javaDoubleToString(0)).toBe('0.0');
    expect(javaDoubleToString(-0)).toBe('-0.0');
    for (const bits of [0x7ff8000000000000n, 0xfff8000000000000n, 0x7ff0000000000001n, 0xffffffffffffffffn, 0x7ff4000000000000n]) {
      expect(javaDoubleBitsToString(bits)).toBe('NaN');
    }
    expect(javaDoubleBitsToString(0x7ff0000000000000n)).toBe('Infinity');
    expect(javaDoubleBitsToString(0xfff0000000000000n)).toBe('-Infinity');
    expect(javaDoubleBitsToString(0n)).toBe('0.0');
    expect(javaDoubleBitsToString(0x8000000000000000n)).toBe('-0.0');
    expect(javaDoubleBitsToString(-0x8000000000000000n)).toBe('-0.0'); // signed getBigInt64 form
    for (const bits of [0x7fc00000, 0xffc00000, 0x7f800001, 0xffffffff, 0x7fbfffff, -1]) {
      expect(javaFloatBitsToString(bits)).toBe('NaN');
    }
    expect(javaFloatBitsToString(0x7f800000)).toBe('Infinity');
    expect(javaFloatBitsToString(0xff800000)).toBe('-Infinity');
    expect(javaFloatBitsToString(0)).toBe('0.0');
    expect(javaFloatBitsToString(0x80000000)).toBe('-0.0');
    expect(javaFloatBitsToString(-0x80000000)).toBe('-0.0'); // signed getInt32 form
  });
});

describe('javaDoubleToString: §11 layout vectors', () => {
  it.each([
    [100, '100.0'],
    [0.5, '0.5'],
    [1234567, '1234567.0'],
    [0.001, '0.001'],
    [9.99e-4, '9.99E-4'],
    [9999999.999, '9999999.999'],
    [1e7, '1.0E7'],
    [1e21, '1.0E21'],
    [1e-5, '1.0E-5'],
    [9.999999e-4, '9.999999E-4'],
    [4.9e-324, '4.9E-324'],
    [1.7976931348623157e308, '1.7976931348623157E308'],
    [-1.7976931348623157e308, '-1.7976931348623157E308'],
    [2.2250738585072014e-308, '2.2250738585072014E-308'],
    [0.1, '0.1'],
    [0.3, '0.3'],
    [1 / 3, '0.3333333333333333'],
    [Math.PI, '3.141592653589793'],
    [-2.5, '-2.5'],
    [1, '1.0'],
    [-1, '-1.0'],
    [9999999, '9999999.0'],
    [123456789, '1.23456789E8'],
    [1e16, '1.0E16'],
    [1e22, '1.0E22'],
    [5e-4, '5.0E-4'],
    [0.01, '0.01'],
    [1e-4, '1.0E-4'],
    [1.5e-323, '1.5E-323'],
  ])('%s -> %s', (value, text) => {
    expect(javaDoubleToString(value)).toBe(text);
  });
});

describe('javaDoubleToString: Java 8-18 digits longer or other than the shortest form', () => {
  // §11 and §11.1 vectors (corpus values), then further answers of OpenJDK 17.0.15 that cover
  // the other code paths (64-bit wrap-around, powers of two, subnormals, ties, big integers).
  it.each([
    ['438f67ea69ed3795', '2.82879384806159008E17'],
    ['43965f3cb98819bb', '4.0301848979298272E17'],
    ['436a36c9e45467c8', '5.9028721132322368E16'],
    ['0000000000000001', '4.9E-324'],
    ['8000000000000001', '-4.9E-324'],
    ['44b52d02c7e14af6', '9.999999999999999E22'], // 1.0E23
    ['c4b52d02c7e14af6', '-9.999999999999999E22'],
    ['447c7e83209e90b2', '8.409999999999999E21'],
    ['44c52d02c7e14af6', '1.9999999999999998E23'], // 2.0E23
    ['c539fcce98faba5e', '-3.1416992896656014E25'], // long wrap-around changes the last digit
    ['4537bbeb918ef9b7', '2.8692721856885562E25'],
    ['c3ea7104f882f624', '-1.5242476662000001E19'],
    ['441933a6e8d82ea2', '1.1622263000000001E20'],
    ['4480069efb362cda', '9.459999999999999E21'],
    ['43d7333dfa2b7845', '6.6869921254600264E18'], // integer path above 2^53
    ['c3a42d3d6fb64dee', '-7.2694290235988147E17'],
    ['c5a0000000000000', '-2.4758800785707605E27'], // powers of two
    ['c570000000000000', '-3.0948500982134507E26'],
    ['7200000000000000', '1.3336028865759709E241'],
    ['3900000000000000', '3.8518598887744717E-34'],
    ['b060000000000000', '-1.1054295750520889E-75'],
    ['0000000000000012', '8.9E-323'], // subnormals: forced second digit
    ['000000000000000a', '4.9E-323'],
    ['000000000000000e', '6.9E-323'],
    ['0000000000000002', '1.0E-323'],
    ['0000000000000781', '9.49E-321'],
    ['4310000000000001', '1.1258999068426242E15'], // exact tie: even last digit
    ['4310000000000003', '1.1258999068426248E15'],
    ['c415af1d78b58c40', '-1.0E20'],
    ['1f8b758d848fac55', '1.0E-156'],
    ['43e56a95319d63e1', '1.2345678901234567E19'],
    ['3f720e948ec9ded2', '0.0044084361112408255'],
  ])('%s -> %s', (hex, text) => {
    const bits = BigInt('0x' + hex);
    expect(javaDoubleBitsToString(bits)).toBe(text);
    expect(javaDoubleToString(doubleFromBits(bits))).toBe(text);
  });
});

describe('javaFloatBitsToString', () => {
  it.each([
    [0.1, '0.1'],
    [1.5, '1.5'],
    [1e10, '1.0E10'],
    [1e-4, '1.0E-4'],
    [3, '3.0'],
    [9999999, '9999999.0'],
    [33554432, '3.3554432E7'],
    [1e7, '1.0E7'],
    [100, '100.0'],
    [1234567, '1234567.0'],
    [0.001, '0.001'],
    [9.99e-4, '9.99E-4'],
    [0.3, '0.3'],
    [1 / 3, '0.33333334'],
    [16777216, '1.6777216E7'],
    [1e-5, '1.0E-5'],
    [3.4e38, '3.4E38'],
    [-2.5, '-2.5'],
  ])('float(%s) -> %s', (value, text) => {
    expect(javaFloatBitsToString(floatBits(value))).toBe(text);
  });

  it.each([
    ['00000001', '1.4E-45'], // Float.MIN_VALUE, forced second digit
    ['80000001', '-1.4E-45'],
    ['7f7fffff', '3.4028235E38'], // Float.MAX_VALUE
    ['00800000', '1.17549435E-38'], // Float.MIN_NORMAL, power of two
    ['69000000', '9.6714065E24'], // 2^83: long wrap-around
    ['50000026', '8.5899735E9'], // integer path keeps digits
    ['5db6a036', '1.64494719E18'],
    ['4f50cb57', '3.50298701E9'],
    ['552bea7a', '1.18139723E13'],
    ['cf715da0', '-4.04944486E9'],
    ['d340d406', '-8.2819088E11'],
    ['d3ec3236', '-2.02890936E12'],
    ['d0d01a31', '-2.79310193E10'],
    ['58189c7b', '6.7119138E14'],
    // Further answers of OpenJDK 17.0.15 (other code paths).
    ['ea1d3e77', '-4.7524083E25'], // long wrap-around changes the last digit
    ['6a467c94', '5.9988903E25'],
    ['ad000000', '-7.2759576E-12'],
    ['60000000', '3.6893488E19'],
    ['b2000000', '-7.4505806E-9'],
    ['b9800000', '-2.4414062E-4'],
    ['00000006', '8.4E-45'],
    ['00000007', '9.8E-45'],
    ['80000010', '-2.24E-44'],
    ['00000008', '1.1E-44'],
    ['4a000001', '2097152.2'], // exact tie: even last digit
    ['4a000003', '2097152.8'],
    ['c9ac64d2', '-1412250.2'],
    ['5bae153e', '9.8000004E16'],
    ['ded6409d', '-7.7192561E18'],
    ['4e13d1cc', '6.2E8'],
    ['2d1122b2', '8.25E-12'],
    ['f2fbd685', '-9.9763297E30'],
    ['be2e147b', '-0.17'],
    ['3dcccccd', '0.1'],
  ])('%s -> %s', (hex, text) => {
    expect(javaFloatBitsToString(parseInt(hex, 16))).toBe(text);
    expect(javaFloatBitsToString(parseInt(hex, 16) | 0)).toBe(text); // signed getInt32 form
  });
});

describe('properties over seeded random bit patterns', () => {
  function checkLayout(text: string): void {
    expect(text).toMatch(JAVA_PATTERN);
    const magnitude = Math.abs(Number(text));
    const plain = !text.includes('E');
    expect(plain).toBe(magnitude >= 1e-3 && magnitude < 1e7);
  }

  it('doubles: read back exactly, Java layout, never fewer digits than the shortest form', () => {
    const next = random32(0x5eed1);
    for (let i = 0; i < 6000; i++) {
      let hi = next();
      const lo = next();
      // Every other value in a narrower exponent range (typical magnitudes, integers, fractions).
      if (i % 2 === 1) hi = (hi & 0x800fffff) | ((1023 - 40 + (next() % 110)) << 20);
      const bits = (BigInt(hi >>> 0) << 32n) | BigInt(lo);
      const value = doubleFromBits(bits);
      const text = javaDoubleBitsToString(bits);
      if (Number.isNaN(value) || value === 0 || !Number.isFinite(value)) {
        expect(SPECIALS.has(text)).toBe(true);
        continue;
      }
      expect(javaDoubleToString(value)).toBe(text);
      checkLayout(text);
      expect(Number(text)).toBe(value);
      expect(significantDigits(text).length).toBeGreaterThanOrEqual(significantDigits(String(value)).length);
    }
  });

  it('floats: read back exactly, Java layout, never fewer digits than the shortest form', () => {
    const next = random32(0x5eed2);
    for (let i = 0; i < 6000; i++) {
      let bits = next();
      if (i % 2 === 1) bits = ((bits & 0x807fffff) | ((127 - 30 + (next() % 70)) << 23)) >>> 0;
      const value = floatFromBits(bits);
      const text = javaFloatBitsToString(bits);
      if (Number.isNaN(value) || value === 0 || !Number.isFinite(value)) {
        expect(SPECIALS.has(text)).toBe(true);
        continue;
      }
      checkLayout(text);
      expect(Math.fround(Number(text))).toBe(value);
      expect(significantDigits(text).length).toBeGreaterThanOrEqual(shortestFloatDigitCount(Math.abs(value)));
    }
  });

  it('integers below 10^7 print all their digits plus ".0"', () => {
    const next = random32(0x5eed3);
    for (let i = 0; i < 2000; i++) {
      const n = (next() % 10_000_000) * (i % 2 === 0 ? 1 : -1);
      if (n === 0) continue;
      expect(javaDoubleToString(n)).toBe(`${n}.0`);
      if (Math.abs(n) <= 16_777_216) expect(javaFloatBitsToString(floatBits(n))).toBe(`${n}.0`);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Conformance corpus: compare with the texts the Java 4.1 REST service answered.

const CONFORMANCE = join(import.meta.dirname, '..', 'fixtures', 'conformance');

const TYPE_FLOAT_ARRAY = 106n; // [F
const TYPE_DOUBLE_ARRAY = 108n; // [D
const TYPE_FLOAT = 16n; // java.lang.Float
const TYPE_DOUBLE = 18n; // java.lang.Double

interface StoredRecord {
  typeId: bigint;
  body: Buffer; // the bytes after the 24-byte header
}

/**
 * The newest record of every object id in a storage: data files channel_N/channel_N_M.dat hold
 * records back to back (8-byte LE length including the header, 8-byte type id, 8-byte object
 * id); later records and higher file numbers supersede earlier ones.
 */
function readNewestRecords(storageDir: string): Map<bigint, StoredRecord> {
  const files: { path: string; number: number }[] = [];
  for (const channel of readdirSync(storageDir).filter((name) => /^channel_\d+$/.test(name))) {
    for (const name of readdirSync(join(storageDir, channel))) {
      const match = /^channel_\d+_(\d+)\.dat$/.exec(name);
      if (match) files.push({ path: join(storageDir, channel, name), number: Number(match[1]) });
    }
  }
  files.sort((a, b) => a.number - b.number);
  const records = new Map<bigint, StoredRecord>();
  for (const file of files) {
    const data = readFileSync(file.path);
    let offset = 0;
    while (offset < data.length) {
      const length = Number(data.readBigInt64LE(offset));
      if (length < 24) throw new Error(`bad record length ${length} at ${file.path}:${offset}`);
      records.set(data.readBigInt64LE(offset + 16), {
        typeId: data.readBigInt64LE(offset + 8),
        body: data.subarray(offset + 24, offset + length),
      });
      offset += length;
    }
  }
  return records;
}

/** Java's texts of the stored float/double values of one record, or undefined for other types. */
function decodeFloatingRecord(record: StoredRecord): string[] | undefined {
  const { typeId, body } = record;
  if (typeId === TYPE_FLOAT_ARRAY || typeId === TYPE_DOUBLE_ARRAY) {
    // Primitive array: 8-byte total list byte length, 8-byte element count, elements (LE).
    const count = Number(body.readBigInt64LE(8));
    const texts: string[] = [];
    for (let i = 0; i < count; i++) {
      texts.push(
        typeId === TYPE_FLOAT_ARRAY
          ? javaFloatBitsToString(body.readUInt32LE(16 + 4 * i))
          : javaDoubleBitsToString(body.readBigUInt64LE(16 + 8 * i)),
      );
    }
    return texts;
  }
  if (typeId === TYPE_FLOAT) return [javaFloatBitsToString(body.readUInt32LE(0))];
  if (typeId === TYPE_DOUBLE) return [javaDoubleBitsToString(body.readBigUInt64LE(0))];
  return undefined;
}

interface ObjectCase {
  objectId: bigint;
  typeId: bigint;
  texts: string[];
}

/** The successful plain `"kind":"object"` answers for objects of the given types. */
function readObjectCases(storage: string, typeIds: readonly bigint[]): ObjectCase[] {
  const lines = readFileSync(join(CONFORMANCE, 'cases', `${storage}.jsonl`), 'utf8').split('\n');
  const cases: ObjectCase[] = [];
  for (const line of lines) {
    if (!line.includes('"kind":"object"')) continue;
    const entry = JSON.parse(line) as { kind?: string; status?: number; body?: string };
    if (entry.kind !== 'object' || entry.status !== 200 || entry.body === undefined) continue;
    const body = JSON.parse(entry.body) as { objectId: string; typeId: string; data: unknown[] };
    const typeId = BigInt(body.typeId);
    if (!typeIds.includes(typeId)) continue;
    const first = body.data[0];
    cases.push({ objectId: BigInt(body.objectId), typeId, texts: Array.isArray(first) ? first : [first as string] });
  }
  return cases;
}

describe('conformance corpus (texts recorded from the Java service)', () => {
  it('float[] and double[] objects of the arrays storage', () => {
    const records = readNewestRecords(join(CONFORMANCE, 'storages', 'arrays'));
    const cases = readObjectCases('arrays', [TYPE_FLOAT_ARRAY, TYPE_DOUBLE_ARRAY]);
    let compared = 0;
    for (const expected of cases) {
      const record = records.get(expected.objectId);
      expect(record, `record of ${expected.objectId}`).toBeDefined();
      expect(record!.typeId).toBe(expected.typeId);
      expect(decodeFloatingRecord(record!), `object ${expected.objectId}`).toEqual(expected.texts);
      compared += expected.texts.length;
    }
    // 8 arrays (2 of them empty) with 165 values in total.
    expect(cases.length).toBe(8);
    expect(compared).toBe(165);
  });

  it('java.lang.Float and java.lang.Double objects of every storage', () => {
    let compared = 0;
    for (const storage of readdirSync(join(CONFORMANCE, 'storages'))) {
      const records = readNewestRecords(join(CONFORMANCE, 'storages', storage));
      for (const expected of readObjectCases(storage, [TYPE_FLOAT, TYPE_DOUBLE])) {
        const record = records.get(expected.objectId);
        expect(record, `record of ${expected.objectId}`).toBeDefined();
        expect(decodeFloatingRecord(record!), `${storage} object ${expected.objectId}`).toEqual(expected.texts);
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(0);
  });
});
