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
0000000000001000002 app.Grid{
	[list] rows(
		[list] cells(
			java.lang.Object cell,
		),
	),
}
0000000000001000003 app.Tally{
	[list] entries(
		int              count,
		java.lang.Object item ,
		long             stamp,
	),
}
0000000000001000004 app.Bag{
	java.lang.Object owner,
	int              size ,
	[list] items(
		java.lang.Object item,
	),
	[list] labels(
		[char] label,
	),
}
0000000000001000006 app.Named{
	[char]           name ,
	long             stamp,
	java.lang.Object ref  ,
}
0000000000001000007 app.Groups{
	[list] groups(
		[char] label,
		[list] pairs(
			long             n,
			java.lang.Object a,
		),
	),
}
0000000000001000005 app.ListsByKeyMap{
	[list] entries(
		java.lang.Object key,
		[list] values(
			java.lang.Object value,
		),
	),
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

function int32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(value, 0);
  return b;
}

function int64(value: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64LE(value, 0);
  return b;
}

function chars(text: string): Buffer {
  return list(Buffer.from(text, 'utf16le'), text.length);
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

  // References below the first level of a list: each test fails when nested lists, mixed
  // elements or lists after other members are skipped ("references inside nested lists not replaced").
  it('an element of a list inside a list becomes null at its position', () => {
    const rows = Buffer.concat([list(ids(KEPT, LOST), 2), list(ids(LOST), 1), list(ids(), 0), list(ids(KEPT + 1n), 1)]);
    const { values, replaced, length } = replace(1000002n, list(rows, 4));
    expect(values).toEqual([[[KEPT, 0n], [0n], [], [KEPT + 1n]]]);
    expect(length).toBe(0n);
    expect(replaced.map((r) => [r.member, r.lost, r.action])).toEqual([
      ['rows[0] [1]', LOST, 'null'],
      ['rows[1] [0]', LOST, 'null'],
    ]);
  });

  it('a reference between primitives of a list element becomes null; the primitives stay', () => {
    const entry = (count: number, item: bigint, stamp: bigint): Buffer => Buffer.concat([int32(count), ids(item), int64(stamp)]);
    const { values, replaced } = replace(1000003n, list(Buffer.concat([entry(7, LOST, -5n), entry(8, KEPT, 6n), entry(-9, LOST, 1n << 40n)]), 3));
    expect(values).toEqual([[['7', 0n, '-5'], ['8', KEPT, '6'], ['-9', 0n, String(1n << 40n)]]]);
    expect(replaced.map((r) => [r.member, r.action])).toEqual([
      ['entries[0] item', 'null'],
      ['entries[2] item', 'null'],
    ]);
  });

  it('references of a list after other members become null; the field, the int and the next list stay in place', () => {
    const content = Buffer.concat([ids(LOST), int32(3), list(ids(KEPT, LOST, LOST), 3), list(Buffer.concat([chars('ab'), chars('c')]), 2)]);
    const { values, replaced, length } = replace(1000004n, content);
    expect(values).toEqual([0n, '3', [KEPT, 0n, 0n], ['ab', 'c']]);
    expect(length).toBe(0n);
    expect(replaced.map((r) => r.member)).toEqual(['owner', 'items[1]', 'items[2]']);
  });

  it('a text and a long equal to a lost id beside a lost reference stay as they are', () => {
    const { values, replaced, length } = replace(1000006n, Buffer.concat([chars('ab'), int64(LOST), ids(LOST)]));
    expect(values).toEqual([['a', 'b'], String(LOST), 0n]);
    expect(length).toBe(0n);
    expect(replaced.map((r) => [r.member, r.action])).toEqual([['ref', 'null']]);
  });

  it('in lists of elements with a text and a list of (long, reference) pairs: each reference by its path, no long touched', () => {
    const pair = (n: bigint, a: bigint): Buffer => Buffer.concat([int64(n), ids(a)]);
    const group = (label: string, ...pairs: Buffer[]): Buffer => Buffer.concat([chars(label), list(Buffer.concat(pairs), pairs.length)]);
    const { values, replaced, length } = replace(1000007n, list(Buffer.concat([group('x', pair(LOST, KEPT), pair(2n, LOST)), group('yz', pair(3n, LOST))]), 2));
    expect(values).toEqual([
      [
        [['x'], [[String(LOST), KEPT], ['2', 0n]]],
        [['y', 'z'], [['3', 0n]]],
      ],
    ]);
    expect(length).toBe(0n);
    expect(replaced.map((r) => [r.member, r.action])).toEqual([
      ['groups[0] pairs[1].a', 'null'],
      ['groups[1] pairs[0].a', 'null'],
    ]);
  });

  it('a map entry whose list of values holds a lost reference is left out; the other entries and lengths follow', () => {
    const entry = (key: bigint, ...values: bigint[]): Buffer => Buffer.concat([ids(key), list(ids(...values), values.length)]);
    const { values, replaced, length } = replace(1000005n, list(Buffer.concat([entry(KEPT, KEPT, KEPT), entry(KEPT + 1n, KEPT, LOST), entry(KEPT + 2n)]), 3));
    expect(values).toEqual([[[KEPT, [KEPT, KEPT]], [KEPT + 2n, []]]]);
    expect(length).toBe(0n);
    expect(replaced.map((r) => [r.member, r.action])).toEqual([['entries[1] values[1]', 'entry-left-out']]);
  });
});
