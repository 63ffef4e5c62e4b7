import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { plainDecimal, RecordChecker } from '../../src/check/record-checker.js';
import { javaBigDecimalToString } from '../../src/javatext/java-big-number-text.js';
import { DirectorySource } from '../../src/storage/source/directory-source.js';
import { Storage } from '../../src/storage/storage.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';

/**
 * The check's quick path for BigDecimal texts (`plainDecimal`): it may only pass texts that
 * `new BigDecimal(text)` takes, and a record with any other text still goes through the full
 * parse, which refuses the damaged ones.
 */

/** A chars member as stored: list header (total bytes, 0, count, 0), then UTF-16LE units. */
function charsMember(text: string): Buffer {
  const member = Buffer.alloc(16 + text.length * 2);
  member.writeUInt32LE(member.length, 0);
  member.writeUInt32LE(text.length, 8);
  for (let i = 0; i < text.length; i++) member.writeUInt16LE(text.charCodeAt(i), 16 + i * 2);
  return member;
}

function javaTakes(text: string): boolean {
  try {
    javaBigDecimalToString(text);
    return true;
  } catch {
    return false;
  }
}

describe('the quick BigDecimal text test', () => {
  it('passes plain decimals, leaves exponents and odd forms to the full parse', () => {
    const quick = (text: string): boolean => plainDecimal(charsMember(text), 0);
    expect(['0', '123.45', '-7', '+3.10', '00012.5000'].map(quick)).toEqual([true, true, true, true, true]);
    expect(['', '-', '.', '1.', '.5', '1E+3', '1.2.3', '12a', '١٢', ' 1', '1 '].map(quick)).toEqual(Array(11).fill(false));
    expect(quick('9'.repeat(400))).toBe(true);
    expect(quick('9'.repeat(401))).toBe(false);
  });

  it('passes nothing Java refuses (20,000 random texts of digits, signs, points and exponents)', () => {
    const alphabet = '0123456789.-+eE';
    let seed = 46;
    const random = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    let passed = 0;
    for (let i = 0; i < 20_000; i++) {
      let text = '';
      for (let k = random(8); k >= 0; k--) text += alphabet[random(alphabet.length)];
      if (plainDecimal(charsMember(text), 0)) {
        passed++;
        expect(javaTakes(text), text).toBe(true);
      }
    }
    expect(passed).toBeGreaterThan(100);
  });

  it('a record whose text is damaged is still refused, a plain one passes', async () => {
    const storage = await Storage.open(new DirectorySource(join(CONFORMANCE_DIR, 'storages', 'primitives')), { recordCacheBytes: 0 });
    try {
      const entry = storage.dictionary.currentByName.get('java.math.BigDecimal')!;
      expect(entry).toBeDefined();
      const checker = new RecordChecker(storage.dictionary, storage.channels.length);
      const objectId = 1_000_000_000_000_000_000n + BigInt(storage.channels.length); // channel 0
      const check = (text: string): string | undefined => {
        const member = charsMember(text);
        const record = Buffer.alloc(24 + member.length);
        record.writeBigInt64LE(BigInt(record.length), 0);
        record.writeBigInt64LE(entry.typeId, 8);
        record.writeBigInt64LE(objectId, 16);
        member.copy(record, 24);
        return checker.check(record, 0, record.length, 0, { file: 'f', offset: 0 })?.message;
      };
      expect(check('123.45')).toBeUndefined();
      expect(check('1E+3')).toBeUndefined();
      expect(check('1.2.3')).toMatch(/holds a value Java cannot rebuild: invalid BigDecimal text "1\.2\.3"/);
      expect(check('12a')).toMatch(/invalid BigDecimal text "12a"/);
    } finally {
      await storage.close();
    }
  });
});
