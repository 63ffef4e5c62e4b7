import { describe, expect, it } from 'vitest';
import { allMemberValues, layoutEntity } from '../../src/format/entity-layout.js';
import { parseTypeDictionary } from '../../src/format/type-dictionary.js';
import { leavesEntriesOut, replaceMissingReferences, type ReferenceReplacement } from '../../src/rescue/reference-replacement.js';

/** The rules `rescue` replaces references to lost objects by, on hand-built records. */

const DICTIONARY = parseTypeDictionary(`
0000000000000000043 java.util.ArrayList{
	[list] elements(
		java.lang.Object element,
	),
}
0000000000000000046 java.util.HashMap{
	[list] elements(
		java.lang.Object key  ,
		java.lang.Object value,
	),
}
0000000000000010000 one.microstream.reference.Lazy$Default{
	java.lang.Object subject,
}
0000000000001000001 app.Holder{
	java.lang.Object first ,
	int              number,
	java.lang.Object second,
}
`);

const LOST = 1000000000000000099n;
const KEPT = 1000000000000000010n;
const missing = (low: number, high: number): boolean => ((BigInt(high) << 32n) | BigInt(low >>> 0)) === LOST;

function record(typeId: bigint, objectId: bigint, content: Buffer): Buffer {
  const head = Buffer.alloc(24);
  head.writeBigInt64LE(BigInt(24 + content.length), 0);
  head.writeBigInt64LE(typeId, 8);
  head.writeBigInt64LE(objectId, 16);
  return Buffer.concat([head, content]);
}

function ids(...values: bigint[]): Buffer {
  const b = Buffer.alloc(8 * values.length);
  values.forEach((v, i) => b.writeBigInt64LE(v, 8 * i));
  return b;
}

function list(elementBytes: Buffer, count: number): Buffer {
  const head = Buffer.alloc(16);
  head.writeBigInt64LE(BigInt(16 + elementBytes.length), 0);
  head.writeBigInt64LE(BigInt(count), 8);
  return Buffer.concat([head, elementBytes]);
}

function replace(typeId: bigint, content: Buffer): { values: unknown; replaced: ReferenceReplacement[]; length: bigint } {
  const entry = DICTIONARY.byId.get(typeId)!;
  const original = record(typeId, 1000000000000000001n, content);
  const replaced: ReferenceReplacement[] = [];
  const out = replaceMissingReferences(original, layoutEntity(entry, original.subarray(24)), missing, (r) => replaced.push(r));
  expect(out).toBeDefined();
  return { values: allMemberValues(layoutEntity(entry, out!.subarray(24))), replaced, length: out!.readBigInt64LE(0) - BigInt(out!.length) };
}

describe('replacing references to lost objects', () => {
  it('a field becomes null; the other members stay', () => {
    const content = Buffer.concat([ids(LOST), Buffer.from([7, 0, 0, 0]), ids(KEPT)]);
    const { values, replaced, length } = replace(1000001n, content);
    expect(values).toEqual([0n, '7', KEPT]);
    expect(length).toBe(0n);
    expect(replaced).toEqual([{ owner: 1000000000000000001n, ownerType: 'app.Holder', member: 'first', lost: LOST, action: 'null' }]);
  });

  it('a list element becomes null at its position', () => {
    const { values, replaced } = replace(43n, list(ids(KEPT, LOST, KEPT), 3));
    expect(values).toEqual([[KEPT, 0n, KEPT]]);
    expect(replaced.map((r) => [r.member, r.action])).toEqual([['elements[1]', 'null']]);
  });

  it('a map entry whose key or value is lost is left out, and the lengths follow', () => {
    const { values, replaced, length } = replace(46n, list(ids(KEPT, KEPT, LOST, KEPT, KEPT + 1n, LOST, KEPT + 2n, KEPT), 4));
    expect(values).toEqual([[[KEPT, KEPT], [KEPT + 2n, KEPT]]]);
    expect(length).toBe(0n);
    expect(replaced.map((r) => [r.member, r.action])).toEqual([
      ['elements[1] key', 'entry-left-out'],
      ['elements[2] value', 'entry-left-out'],
    ]);
  });

  it('a Lazy becomes an empty lazy reference', () => {
    const { values, replaced } = replace(10000n, ids(LOST));
    expect(values).toEqual([0n]);
    expect(replaced.map((r) => [r.member, r.action])).toEqual([['subject', 'empty-lazy']]);
  });

  it('leaves nothing to do when nothing is lost', () => {
    const entry = DICTIONARY.byId.get(43n)!;
    const original = record(43n, 1000000000000000001n, list(ids(KEPT), 1));
    expect(replaceMissingReferences(original, layoutEntity(entry, original.subarray(24)), missing, () => undefined)).toBeUndefined();
  });

  it('leaves entries out of sets, maps, queues and deques only', () => {
    for (const name of ['java.util.HashMap', 'java.util.TreeSet', 'java.util.Hashtable', 'java.util.Properties', 'java.util.ArrayDeque', 'java.util.concurrent.ConcurrentHashMap', 'one.microstream.collections.EqHashTable', 'org.eclipse.serializer.collections.HashEnum']) {
      expect(leavesEntriesOut(name), name).toBe(true);
    }
    for (const name of ['java.util.ArrayList', 'java.util.LinkedList', '[Ljava.lang.Object;', 'one.microstream.collections.BulkList', 'one.microstream.persistence.types.PersistenceRoots$Default']) {
      expect(leavesEntriesOut(name), name).toBe(false);
    }
  });
});
