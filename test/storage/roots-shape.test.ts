import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Storage } from '../../src/storage/storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';

/**
 * The roots entity is decoded whole to find the root. A dictionary that declares its two lists with
 * elements of no members (0 bytes each: a 16-byte list may claim 2^31 - 1 of them) names no root:
 * the storage opens without one and says why, instead of decoding 2^31 - 1 empty elements.
 */

let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-roots-shape-'));
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** A storage whose root is a `t.Node`, then its roots type and entity rewritten to lists of `count` memberless elements. */
function memberlessRoots(count: bigint): { dir: string; rootsId: bigint } {
  const dir = join(work, `storage-${count}`);
  const writer = StorageWriter.create(dir, { now: () => 1_700_000_000_000 });
  const node = writer.defineType('t.Node', reflectiveMembers('t.Node', [{ name: 'n', type: 'int' }]));
  const root = writer.newObjectId();
  const store = writer.beginStore();
  store.add(node, root, [1]);
  writer.setRoot(root);
  writer.store(store);
  writer.close();
  const dictionaryFile = join(dir, readdirSync(dir).find((f) => f.endsWith('.ptd'))!);
  const dictionary = readFileSync(dictionaryFile, 'utf8');
  const declared = /^(\d+) [\w.$]*PersistenceRoots\$Default\{[^}]*\}/m.exec(dictionary)!;
  const rootsTypeId = BigInt(declared[1]!);
  writeFileSync(dictionaryFile, dictionary.replace(declared[0], `${declared[1]} ${/ ([\w.$]*PersistenceRoots\$Default)\{/.exec(declared[0])![1]}{\n\t[list] instances(\n\t),\n\t[list] identifiers(\n\t),\n}`));
  // The roots record becomes 24 + 2 × 16 bytes; the rest of its old bytes, a gap.
  const dataFile = join(dir, 'channel_0', 'channel_0_1.dat');
  const data = readFileSync(dataFile);
  let at = 0;
  while (data.readBigInt64LE(at + 8) !== rootsTypeId) at += Number(data.readBigInt64LE(at));
  const length = Number(data.readBigInt64LE(at));
  const rootsId = data.readBigInt64LE(at + 16);
  expect(length - 56).toBeGreaterThanOrEqual(8);
  data.writeBigInt64LE(56n, at);
  for (const list of [at + 24, at + 40]) {
    data.writeBigInt64LE(16n, list);
    data.writeBigInt64LE(count, list + 8);
  }
  data.writeBigInt64LE(BigInt(56 - length), at + 56);
  writeFileSync(dataFile, data);
  return { dir, rootsId };
}

describe('a roots entity whose lists hold elements of no members', () => {
  it('opens the storage without a root, with a warning naming the roots entity', async () => {
    const { dir, rootsId } = memberlessRoots(2n ** 31n - 1n);
    const storage = await Storage.open(dir);
    try {
      expect(storage.rootObjectId).toBe(0n);
      expect(storage.warnings).toContain(`the roots entity ${rootsId} does not list references and identifiers (its type ${storage.dictionary.currentByName.get(storage.family.rootsTypeName)!.typeId} declares other elements); no root found`);
    } finally {
      await storage.close();
    }
  });
});
