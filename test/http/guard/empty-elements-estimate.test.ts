import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetedSource, RequestBudget } from '../../../src/http/guard/limits.js';
import { INT_MAX, type DescribeOptions } from '../../../src/inspect/describe-object.js';
import { UTC } from '../../../src/javatext/java-time-zones.js';
import { Storage } from '../../../src/storage/storage.js';
import { StorageWriter } from '../../../src/writer/storage-writer.js';
import { recordOffset } from '../../helpers/corpora/bytes.js';

/**
 * A small record is not estimated before it is described (a single object of less than 64 KiB
 * cannot make a big answer), except one with a `[list]` of elements without members: 0 bytes each,
 * a 16-byte list may claim 2^31 - 1 of them, each a value of the answer. Such a list is refused by
 * the response size limit before it is described, as a big list is.
 */

let work: string;
let storage: Storage;
let bag: bigint;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'si-empty-elements-estimate-'));
  const dir = join(work, 'storage');
  const writer = StorageWriter.create(dir, { now: () => 1_700_000_000_000 });
  const bagType = writer.defineType('t.Bag', [{ kind: 'list', typeName: '[list]', name: 'marks', elements: [] }]);
  bag = writer.newObjectId();
  const store = writer.beginStore();
  store.add(bagType, bag, [[[], [], []]]);
  writer.setRoot(bag);
  writer.store(store);
  writer.close();
  // The bag's 16-byte list claims 3 elements; make that the most Java can hold.
  const file = join(dir, 'channel_0', 'channel_0_1.dat');
  const data = readFileSync(file);
  const at = recordOffset(data, bag);
  expect(data.readBigInt64LE(at + 32)).toBe(3n);
  data.writeBigInt64LE(2n ** 31n - 1n, at + 32);
  writeFileSync(file, data);
  storage = await Storage.open(dir);
});

afterAll(async () => {
  await storage?.close();
  rmSync(work, { recursive: true, force: true });
});

const WHOLE: DescribeOptions = { fixedOffset: 0, fixedLength: INT_MAX, variableOffset: 0, variableLength: INT_MAX, valueLength: INT_MAX, references: false, timeZone: UTC };

describe('a small record with a list of memberless elements', () => {
  it('is refused by the response size limit when the window holds its 2^31 - 1 elements, read when it holds ten', async () => {
    expect((await storage.readEntity(bag))!.content.length).toBe(16);
    await expect(budgetedSource(storage, new RequestBudget(64 * 1024 * 1024, 0), WHOLE).readEntity(bag)).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE', status: 413 });
    expect((await budgetedSource(storage, new RequestBudget(64 * 1024 * 1024, 0), { ...WHOLE, variableLength: 10 }).readEntity(bag))!.objectId).toBe(bag);
  });
});
