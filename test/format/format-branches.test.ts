import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { completeSwapContent } from '../../src/format/compaction-swap.js';
import { formatTypeId } from '../../src/format/dictionary-text.js';
import { resolveJdkConstant } from '../../src/format/ids.js';
import { parseLockFile } from '../../src/format/lock-file.js';
import { detectFamily, ECLIPSESTORE, familyByName, MICROSTREAM } from '../../src/format/storage-family.js';
import { parseTypeDictionary } from '../../src/format/type-dictionary.js';
import { bytes } from '../helpers/corpora/bytes.js';

/**
 * Branches of the small decoders that the mutation run of `src/format` found untested (issue 48):
 * each test names the decision it guards.
 */

const CID = 9_000_000_000_000_000_000n;

describe('resolveJdkConstant: the JDK value caches Java references by constant id', () => {
  it('tells Boolean.FALSE (index 0) from Boolean.TRUE (index 1), and has no third Boolean', () => {
    expect(resolveJdkConstant(CID + 2000n)).toEqual({ typeName: 'java.lang.Boolean', text: 'false' });
    expect(resolveJdkConstant(CID + 2001n)).toEqual({ typeName: 'java.lang.Boolean', text: 'true' });
    expect(resolveJdkConstant(CID + 2002n)).toBeUndefined();
  });

  it('maps the Short cache (group 3) to -128..127 and nothing past index 255', () => {
    expect(resolveJdkConstant(CID + 3000n)).toEqual({ typeName: 'java.lang.Short', text: '-128' });
    expect(resolveJdkConstant(CID + 3255n)).toEqual({ typeName: 'java.lang.Short', text: '127' });
    expect(resolveJdkConstant(CID + 3256n)).toBeUndefined();
  });

  it('ends the Integer and Long caches at index 255', () => {
    expect(resolveJdkConstant(CID + 5255n)).toEqual({ typeName: 'java.lang.Integer', text: '127' });
    expect(resolveJdkConstant(CID + 5256n)).toBeUndefined();
    expect(resolveJdkConstant(CID + 6255n)).toEqual({ typeName: 'java.lang.Long', text: '127' });
    expect(resolveJdkConstant(CID + 6256n)).toBeUndefined();
  });
});

describe('parseLockFile: the lock file read as Java reads it', () => {
  it('refuses a file without a first or without a second timestamp', () => {
    expect(() => parseLockFile(';5;1@h')).toThrow('no timestamps in the lock file');
    expect(() => parseLockFile('5;;1@h')).toThrow('no timestamps in the lock file');
  });

  it('refuses either timestamp beyond a safe integer', () => {
    expect(() => parseLockFile('99999999999999999999;5;1@h')).toThrow('lock file timestamps out of range');
    expect(() => parseLockFile('5;99999999999999999999;1@h')).toThrow('lock file timestamps out of range');
  });

  it('reads both timestamps and the pid@host identity', () => {
    expect(parseLockFile('1700000000000;1700000010000;4242@db-host')).toEqual({
      lastWriteMillis: 1700000000000,
      expirationMillis: 1700000010000,
      processIdentity: '4242@db-host',
      processId: 4242,
      host: 'db-host',
    });
  });

  it('ends each number at any non-digit, also one below "0" in ASCII', () => {
    expect(parseLockFile('5/6 7@h')).toMatchObject({ lastWriteMillis: 5, expirationMillis: 6, processIdentity: '7@h' });
  });

  it('drops only the NULs at the end of the identity, all of them', () => {
    expect(parseLockFile('1;2;7@a\u0000b\u0000\u0000').processIdentity).toBe('7@a\u0000b');
    expect(parseLockFile('1;2;7@h\u0000\u0000\u0000').host).toBe('h');
  });

  it('takes an identity as pid@host only when it starts with the digits', () => {
    const parsed = parseLockFile('1;2;x12@h');
    expect(parsed.processIdentity).toBe('x12@h');
    expect(parsed.processId).toBeUndefined();
    expect(parsed.host).toBeUndefined();
  });
});

describe('storage family', () => {
  const entry = (id: number, name: string): string => `${String(id).padStart(19, '0')} ${name}{}\n`;

  it('names each family by its name', () => {
    expect(familyByName('eclipsestore')).toBe(ECLIPSESTORE);
    expect(familyByName('microstream')).toBe(MICROSTREAM);
  });

  it('takes the newer roots type also when it is MicroStream’s (EclipseStore’s roots type older)', () => {
    const text = entry(1000052, ECLIPSESTORE.rootsTypeName) + entry(1000090, MICROSTREAM.rootsTypeName);
    expect(detectFamily(parseTypeDictionary(text))).toBe(MICROSTREAM);
  });

  it('lets a roots type decide over a newer entry of the other family’s packages', () => {
    const text = entry(1000052, MICROSTREAM.rootsTypeName) + entry(1000090, 'org.eclipse.serializer.reference.Lazy$Default');
    expect(detectFamily(parseTypeDictionary(text))).toBe(MICROSTREAM);
  });
});

describe('completeSwapContent', () => {
  it('refuses a swap file whose length field is wrong even when its checksum matches the content', () => {
    const content = new Uint8Array([1, 2, 3, 4, 5]);
    const swap = bytes().int64(6n).int64(BigInt(crc32(content))).bytes(content).build();
    expect(completeSwapContent(swap)).toBeUndefined();
  });
});

describe('formatTypeId', () => {
  it('pads type id 0 to 19 zeros without a sign, and keeps the sign of a negative id in front', () => {
    expect(formatTypeId(0n)).toBe('0'.repeat(19));
    expect(formatTypeId(-5n)).toBe(`-${'0'.repeat(17)}5`);
  });
});
