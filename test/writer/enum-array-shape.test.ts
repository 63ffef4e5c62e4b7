import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { enumMembers } from '../../src/writer/type-definitions.js';

/**
 * Opening a storage to append reads each enum's constants from the `Object[]` its roots entry names.
 * A dictionary that declares that array's list with elements of no members (0 bytes each: a
 * 16-byte list may claim 2^31 - 1 of them) gives no constants, without decoding the elements.
 */

let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-enum-array-shape-'));
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('an enum constants array of memberless elements', () => {
  it('opens for appending with no constants for that enum', async () => {
    const dir = join(work, 'storage');
    const writer = StorageWriter.create(dir, { now: () => 1_700_000_000_000 });
    const tag = writer.defineType('t.Tag', enumMembers('t.Tag', ['A', 'B']));
    const store = writer.beginStore();
    const constants = writer.storeEnum(store, tag);
    writer.setRoot(constants[0]!);
    writer.store(store);
    writer.close();
    expect(constants).toHaveLength(2);
    const dictionaryFile = join(dir, readdirSync(dir).find((f) => f.endsWith('.ptd'))!);
    const dictionary = readFileSync(dictionaryFile, 'utf8');
    const declared = /^(\d+) \[Ljava\.lang\.Object;\{[^}]*\}/m.exec(dictionary)!;
    const arrayTypeId = BigInt(declared[1]!);
    writeFileSync(dictionaryFile, dictionary.replace(declared[0], `${declared[1]} [Ljava.lang.Object;{\n\t[list] elements(\n\t),\n}`));
    // Every Object[] record (the built-in enums' too: they share the type) becomes 24 + 16 bytes
    // claiming 2^31 - 1 elements; the rest of its old bytes, a gap.
    const dataFile = join(dir, 'channel_0', 'channel_0_1.dat');
    const data = readFileSync(dataFile);
    // storeEnum's ids: name and constant per constant, then the array.
    const arrayId = constants[1]! + 1n;
    const rewritten: bigint[] = [];
    for (let at = 0; at < data.length; ) {
      const length = Number(data.readBigInt64LE(at));
      if (length > 0 && data.readBigInt64LE(at + 8) === arrayTypeId) {
        expect(length).toBeGreaterThanOrEqual(40 + 8);
        rewritten.push(data.readBigInt64LE(at + 16));
        data.writeBigInt64LE(40n, at);
        data.writeBigInt64LE(16n, at + 24);
        data.writeBigInt64LE(2n ** 31n - 1n, at + 32);
        data.writeBigInt64LE(BigInt(40 - length), at + 40);
      }
      at += Math.abs(length);
    }
    expect(rewritten).toContain(arrayId);
    writeFileSync(dataFile, data);

    const again = await StorageWriter.open(dir);
    try {
      expect(again.enumConstants(again.defineType('t.Tag', enumMembers('t.Tag', ['A', 'B'])))).toEqual([]);
    } finally {
      again.close();
    }
  });
});
