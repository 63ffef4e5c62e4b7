import { describe, expect, it } from 'vitest';
import { layoutEntity } from '../../../src/format/entity-layout.js';
import { forEachReference } from '../../../src/format/entity-references.js';
import { parseTypeDictionary } from '../../../src/format/type-dictionary.js';
import { bytes } from '../../helpers/corpora/bytes.js';

/**
 * Every reference an entity holds, as the graph index walks them (issue 48: no test of its own).
 * What it guards: references in fields, in list elements beside primitives and texts, in lists
 * nested inside list elements, null references included, in storage order, with both 32-bit
 * halves of each id; primitives, texts and lists without references yield none.
 */

/**
 * The type, parsed anew for each walk: forEachReference remembers per field descriptor whether a
 * list holds references, so descriptors shared between walks would answer from that memory.
 */
const holder = () =>
  parseTypeDictionary(`
1000100 x.Holder{
	java.lang.Object ref    ,
	int              n      ,
	[list]           pairs  (
		java.lang.Object key  ,
		int              count,
		[list]           inner(
			java.lang.Object item,
		),
		[char]           label,
		java.lang.Object value,
	),
	[list]           numbers(
		int v,
	),
	[char]           name   ,
	[byte]           raw    ,
	long             stamp  ,
	java.lang.Object last   ,
}
`).byId.get(1000100n)!;

const HIGH = 0x0de0b6b3_a7640000n + 139n;

function referencesOf(content: Uint8Array): bigint[] {
  const out: bigint[] = [];
  forEachReference(layoutEntity(holder(), content), (low, high) => out.push((BigInt(high) << 32n) | BigInt(low >>> 0)));
  return out;
}

describe('forEachReference', () => {
  it('visits fields, list members beside primitives and texts, and lists nested in elements, in order', () => {
    const first = bytes().int64(11n).int32(-1).list(2, bytes().int64(12n).int64(HIGH).build()).chars('one').int64(13n).build();
    const second = bytes().int64(0n).int32(5).list(0, new Uint8Array()).chars('').int64(14n).build();
    const numbers = bytes().int32(1000).int32(2000).build();
    const content = bytes()
      .int64(10n)
      .int32(0x7fffffff)
      .list(2, bytes().bytes(first).bytes(second).build())
      .list(2, numbers)
      .chars('name')
      .list(3, new Uint8Array([1, 2, 3]))
      .int64(-1n)
      .int64(15n)
      .build();
    expect(referencesOf(content)).toEqual([10n, 11n, 12n, HIGH, 13n, 0n, 14n, 15n]);
  });

  it('gives both halves of a 64-bit id, the low one as a signed 32-bit number', () => {
    const seen: [number, number][] = [];
    const content = bytes().int64(0xffffffffn + 0x0000000500000000n).int32(0).list(0, new Uint8Array()).list(0, new Uint8Array()).chars('').list(0, new Uint8Array()).int64(0n).int64(0n).build();
    forEachReference(layoutEntity(holder(), content), (low, high) => seen.push([low, high]));
    expect(seen).toEqual([
      [-1, 5],
      [0, 0],
    ]);
  });
});
