import { describe, expect, it } from 'vitest';
import { parseTypeDictionary, type TypeEntry } from '../../src/format/type-dictionary.js';
import { differingMembers, plainMemberChanges, plainRecordChanges } from '../../src/diff/differing-members.js';
import { memberChanges } from '../../src/diff/member-changes.js';
import { describeObjectView, type ReferenceInfo } from '../../src/inspect/object-view.js';
import { UTC } from '../../src/javatext/java-time-zones.js';

/**
 * A changed object is described from the members whose bytes differ, and read straight from the
 * records when those are primitives or texts: the answer must be the one the typed views of both
 * records give (every member decoded and compared), member names qualified where the type repeats
 * a name, one NaN's different bits no change. Read in place from whole records (no layout), the
 * same answer, or none where the layout would refuse a record or a differing member needs a view.
 */

const DICTIONARY = parseTypeDictionary(`00000000000000000030 java.lang.String{
	[char] value,
}
00000000000000001000 com.acme.Sub{
	int com.acme.Base#count,
	int com.acme.Sub#count,
	float com.acme.Sub#ratio,
	long com.acme.Sub#big,
	java.lang.Object com.acme.Sub#other,
	[char] com.acme.Sub#label,
}
`);
const SUB = DICTIONARY.byId.get(1000n)!;

interface Values {
  readonly baseCount: number;
  readonly count: number;
  readonly ratioBits: number;
  readonly big: bigint;
  readonly other: bigint;
  readonly label: string;
}

const START: Values = { baseCount: 1, count: 2, ratioBits: 0x3fc00000, big: 1n << 40n, other: 1_000_000_000_000_000_001n, label: 'first' };

/** A record's content for SUB, written member by member in the dictionary's order. */
function content(v: Values): Uint8Array {
  const bytes = new Uint8Array(4 + 4 + 4 + 8 + 8 + 16 + 2 * v.label.length);
  const view = new DataView(bytes.buffer);
  view.setInt32(0, v.baseCount, true);
  view.setInt32(4, v.count, true);
  view.setUint32(8, v.ratioBits, true);
  view.setBigInt64(12, v.big, true);
  view.setBigInt64(20, v.other, true);
  view.setBigInt64(28, BigInt(16 + 2 * v.label.length), true);
  view.setBigInt64(36, BigInt(v.label.length), true);
  for (let i = 0; i < v.label.length; i++) view.setUint16(44 + 2 * i, v.label.charCodeAt(i), true);
  return bytes;
}

const summaries = async (ids: readonly bigint[]): Promise<Map<bigint, ReferenceInfo>> => new Map(ids.map((id) => [id, { objectId: String(id), typeName: 'com.acme.Other' }]));

/** The answer of the typed views of both records, every member decoded (or those asked for). */
async function byViews(entry: TypeEntry, before: Uint8Array, after: Uint8Array, onlySlots?: ReadonlySet<number>): Promise<unknown> {
  const view = (c: Uint8Array) =>
    describeObjectView({ objectId: 1_000_000_000_000_000_500n, typeId: entry.typeId, content: c, file: 'x', offset: 0 }, DICTIONARY, {
      offset: 0,
      limit: 100,
      timeZone: UTC,
      resolve: summaries,
      ...(onlySlots === undefined ? {} : { onlySlots }),
    });
  return memberChanges(await view(before), await view(after), 100);
}

/** A whole record: a header (not read here) and the content, at an odd byte offset. */
function record(content: Uint8Array): Buffer {
  const bytes = Buffer.alloc(content.length + 24 + 1, 0xee).subarray(1);
  bytes.set(content, 24);
  return bytes;
}

function direct(before: Uint8Array, after: Uint8Array) {
  const comparison = differingMembers(SUB, before, {}, SUB, after, {})!;
  const changes = plainMemberChanges(comparison);
  // Read in place from the whole records: the same answer (none where a view is needed).
  expect(plainRecordChanges(SUB, record(before), SUB, record(after))).toEqual(changes);
  return { differing: [...comparison.differing], changes };
}

describe('members compared byte by byte', () => {
  it('names a repeated member by its declaring class, as the views do', async () => {
    const before = content(START);
    const after = content({ ...START, baseCount: 7 });
    const { differing, changes } = direct(before, after);
    expect(differing).toEqual([0]);
    expect(changes).toEqual([{ member: 'com.acme.Base#count', before: 1, after: 7 }]);
    expect(changes).toEqual(await byViews(SUB, before, after));
    const other = content({ ...START, count: 9 });
    expect(direct(before, other).changes).toEqual([{ member: 'com.acme.Sub#count', before: 2, after: 9 }]);
    expect(direct(before, other).changes).toEqual(await byViews(SUB, before, other));
  });

  it('reads primitives and texts straight from the records, a NaN in other bits no change', async () => {
    const before = content({ ...START, ratioBits: 0x7fc00000 });
    const after = content({ ...START, ratioBits: 0x7fc00001, big: -5n, label: 'second!' });
    const { differing, changes } = direct(before, after);
    expect(differing).toEqual([2, 3, 5]);
    expect(changes).toEqual([
      { member: 'big', before: String(1n << 40n), after: '-5' },
      { member: 'label', before: 'first', after: 'second!' },
    ]);
    expect(changes).toEqual(await byViews(SUB, before, after));
  });

  it('reads texts straight from the records as the views decode them: lone surrogates, pairs, empty, long, at odd byte offsets', async () => {
    const texts = ['\ud800', 'a\udfffb', '\u{1f600}é\u0000', '', 'x'.repeat(9000) + '\ud83d', '\ufffe\uffff'];
    for (const [k, label] of texts.entries()) {
      const plain = content({ ...START, label: texts[(k + 1) % texts.length]! });
      const changed = content({ ...START, label });
      // The same bytes one past an even address: the decoder must not assume 2-byte alignment.
      const odd = new Uint8Array(changed.length + 1).subarray(1);
      odd.set(changed);
      for (const after of [changed, odd]) {
        const { differing, changes } = direct(plain, after);
        expect(differing).toEqual([5]);
        expect(changes).toEqual([{ member: 'label', before: texts[(k + 1) % texts.length], after: label }]);
        expect(changes).toEqual(await byViews(SUB, plain, after));
      }
    }
  });

  it('leaves a changed reference to views of the differing members, which find what views of all members find', async () => {
    const before = content(START);
    const after = content({ ...START, other: 1_000_000_000_000_000_002n, count: 3 });
    const { differing, changes } = direct(before, after);
    expect(differing).toEqual([1, 4]);
    expect(changes).toBeUndefined();
    const expected = await byViews(SUB, before, after);
    expect(await byViews(SUB, before, after, new Set(differing))).toEqual(expected);
    expect(expected).toEqual([
      { member: 'com.acme.Sub#count', before: 2, after: 3 },
      { member: 'other', before: { objectId: '1000000000000000001', typeName: 'com.acme.Other' }, after: { objectId: '1000000000000000002', typeName: 'com.acme.Other' } },
    ]);
  });

  it('reads nothing in place from a record the layout refuses, or through a list of elements of different sizes', () => {
    const good = content(START);
    const changed = content({ ...START, count: 5 });
    const longer = new Uint8Array(good.length + 2);
    longer.set(good);
    const claimsMore = Uint8Array.from(good);
    new DataView(claimsMore.buffer).setBigInt64(28, BigInt(16 + 2 * START.label.length + 2), true);
    const tooMany = Uint8Array.from(good);
    new DataView(tooMany.buffer).setBigInt64(36, BigInt(START.label.length + 1), true);
    for (const bad of [longer, claimsMore, tooMany, good.subarray(0, 30)]) {
      expect(() => differingMembers(SUB, good, {}, SUB, bad, {})).toThrow();
      expect(plainRecordChanges(SUB, record(good), SUB, record(bad))).toBeUndefined();
      expect(plainRecordChanges(SUB, record(bad), SUB, record(changed))).toBeUndefined();
    }
    const nested = parseTypeDictionary(`00000000000000002000 com.acme.Named{
	int count,
	[list] names(
		[char] name,
	),
}
`).byId.get(2000n)!;
    const named = (count: number) => {
      const bytes = new Uint8Array(4 + 16 + 16 + 2);
      const view = new DataView(bytes.buffer);
      view.setInt32(0, count, true);
      view.setBigInt64(4, 34n, true);
      view.setBigInt64(12, 1n, true);
      view.setBigInt64(20, 18n, true);
      view.setBigInt64(28, 1n, true);
      view.setUint16(36, 0x61, true);
      return bytes;
    };
    expect(plainMemberChanges(differingMembers(nested, named(1), {}, nested, named(2), {})!)).toEqual([{ member: 'count', before: 1, after: 2 }]);
    expect(plainRecordChanges(nested, record(named(1)), nested, record(named(2)))).toBeUndefined();
    // A differing [byte] member needs a view (elements compared): none in place either.
    const blob = parseTypeDictionary(`00000000000000003000 com.acme.Blob{
	int count,
	[byte] data,
}
`).byId.get(3000n)!;
    const blobOf = (byte: number) => Uint8Array.of(1, 0, 0, 0, 17, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, byte);
    expect(plainMemberChanges(differingMembers(blob, blobOf(1), {}, blob, blobOf(2), {})!)).toBeUndefined();
    expect(plainRecordChanges(blob, record(blobOf(1)), blob, record(blobOf(2)))).toBeUndefined();
    expect(plainRecordChanges(blob, record(blobOf(1)), blob, record(blobOf(1)))).toEqual([]);
  });

  it('reads a type of many members in place as the layouts do', () => {
    const names = Array.from({ length: 24 }, (_, i) => `m${i}`);
    const wide = parseTypeDictionary(`00000000000000004000 com.acme.Wide{\n${names.map((n) => `\tint ${n},\n`).join('')}}\n`).byId.get(4000n)!;
    const ints = (changed: number) => Uint8Array.from(Buffer.from(Int32Array.from(names, (_, i) => (i === changed ? 1000 + i : i)).buffer));
    for (const changed of [0, 17, 23]) {
      const expected = plainMemberChanges(differingMembers(wide, ints(-1), {}, wide, ints(changed), {})!);
      expect(expected).toEqual([{ member: `m${changed}`, before: changed, after: 1000 + changed }]);
      expect(plainRecordChanges(wide, record(ints(-1)), wide, record(ints(changed)))).toEqual(expected);
    }
  });

  it('compares nothing member by member where the two entries lay records out differently', () => {
    const older = parseTypeDictionary(`00000000000000001000 com.acme.Sub{
	int com.acme.Base#count,
}
`).byId.get(1000n)!;
    expect(differingMembers(older, new Uint8Array(4), {}, SUB, content(START), {})).toBeUndefined();
    expect(plainRecordChanges(older, record(new Uint8Array(4)), SUB, record(content(START)))).toBeUndefined();
  });
});
