/** Tests of the small EclipseStore file formats: the CRC-32C of the test helper, the compaction swap file, the lock file. */
import { describe, expect, it } from 'vitest';
import { completeSwapContent } from '../../src/format/compaction-swap.js';
import { lockHeldAt, parseLockFile } from '../../src/format/lock-file.js';
import { compactionSwapFile, crc32c } from '../helpers/corpora/eclipsestore-files.js';

const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('checksums', () => {
  it("computes the test helper's CRC-32C check value", () => {
    expect(crc32c(ascii('123456789'))).toBe(0xe3069283);
  });
});

describe('completeSwapContent', () => {
  const content = ascii('the compacted log');
  it('returns the content of a complete swap file', () => {
    expect(completeSwapContent(compactionSwapFile(content))).toEqual(content);
    expect(completeSwapContent(compactionSwapFile(new Uint8Array(0)))).toEqual(new Uint8Array(0));
  });
  it('refuses a short, cut or altered one', () => {
    const swap = compactionSwapFile(content);
    expect(completeSwapContent(swap.subarray(0, 15))).toBeUndefined();
    expect(completeSwapContent(swap.subarray(0, swap.length - 1))).toBeUndefined();
    const altered = Uint8Array.from(swap);
    altered[20]! ^= 0x20;
    expect(completeSwapContent(altered)).toBeUndefined();
  });
});

describe('parseLockFile', () => {
  it('reads the two timestamps and the JVM identity', () => {
    expect(parseLockFile('1763892000000;1763892010000;4242@build-host')).toEqual({
      lastWriteMillis: 1763892000000,
      expirationMillis: 1763892010000,
      processIdentity: '4242@build-host',
      processId: 4242,
      host: 'build-host',
    });
  });
  it('keeps an identity of another form as it is', () => {
    expect(parseLockFile('1;11;my-process')).toMatchObject({ processIdentity: 'my-process', processId: undefined, host: undefined });
  });
  it('refuses text without the two numbers, like Java', () => {
    expect(() => parseLockFile('12345')).toThrow('no separator found in the lock file');
    expect(() => parseLockFile(';;x')).toThrow('no timestamps in the lock file');
  });
  it("applies Java's expiry rule: abandoned after one more interval", () => {
    const lock = parseLockFile('1000;11000;1@h');
    expect(lockHeldAt(lock, 21000)).toBe(true);
    expect(lockHeldAt(lock, 21001)).toBe(false);
  });
});
