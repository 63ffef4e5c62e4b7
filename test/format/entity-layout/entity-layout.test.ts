import { describe, expect, it } from 'vitest';
import { allMemberValues, layoutEntity, variableElements, type VariableSlot } from '../../../src/format/entity-layout.js';
import { parseTypeDictionary } from '../../../src/format/type-dictionary.js';
import { bytes } from '../../helpers/corpora/bytes.js';

const dictionary = parseTypeDictionary(`
1000082 exp.Gen$Derived{
	java.lang.String exp.Gen$Base   #baseStr ,
	java.lang.Object exp.Gen$Derived#dRef    ,
	int              exp.Gen$Base   #baseInt ,
	long             exp.Gen$Base   #baseLong,
	byte             exp.Gen$Derived#dByte   ,
	double           exp.Gen$Derived#dDouble ,
}
0000000000000000057 java.util.TreeMap{
	java.util.Comparator comparator,
	[list]               elements  (
		java.lang.Object key  ,
		java.lang.Object value,
	),
}
1000052 one.microstream.persistence.types.PersistenceRoots$Default{
	[list] instances  (
		java.lang.Object instance,
	),
	[list] identifiers(
		[char] identifier,
	),
}
1000090 x.Entries{
	[list] entries(
		int    n,
		[char] label,
	),
}
`);

describe('layoutEntity', () => {
  it('decodes a reflective entity (storage-format.md §8.2 example)', () => {
    const content = bytes()
      .int64(1000000000000000139n)
      .int64(0n)
      .int32(11)
      .int64(12n)
      .int8(1)
      .float64(3.5)
      .build();
    expect(content.length).toBe(37);
    const layout = layoutEntity(dictionary.byId.get(1000082n)!, content);
    expect(allMemberValues(layout)).toEqual([1000000000000000139n, 0n, '11', '12', '1', '3.5']);
  });

  it('pages a list of fixed-size entries without decoding the rest', () => {
    const elements = bytes().int64(1n).int64(2n).int64(3n).int64(0n).int64(5n).int64(6n).build();
    const content = bytes().int64(0n).list(3, elements).build();
    const layout = layoutEntity(dictionary.byId.get(57n)!, content);
    const slot = layout.slots[1] as VariableSlot;
    expect(slot.count).toBe(3);
    expect(variableElements(layout.view, slot, 1, 3)).toEqual([
      [3n, 0n],
      [5n, 6n],
    ]);
  });

  it('walks variable-size elements: strings of a [list] of [char], char arrays inside entries', () => {
    const ids = bytes().int64(7n).int64(8n).build();
    const names = bytes().chars('ROOT').chars('enum 1000075').build();
    const roots = layoutEntity(dictionary.byId.get(1000052n)!, bytes().list(2, ids).list(2, names).build());
    expect(allMemberValues(roots)).toEqual([[7n, 8n], ['ROOT', 'enum 1000075']]);
    expect(variableElements(roots.view, roots.slots[1] as VariableSlot, 1, 2)).toEqual(['enum 1000075']);

    const entries = bytes().int32(1).chars('ab').int32(-2).chars('').build();
    const layout = layoutEntity(dictionary.byId.get(1000090n)!, bytes().list(2, entries).build());
    expect(allMemberValues(layout)).toEqual([[['1', ['a', 'b']], ['-2', []]]]);
  });

  it('rejects content whose length does not match the type, naming file and offset', () => {
    const short = bytes().int64(1n).int64(0n).int32(1).build();
    expect(() => layoutEntity(dictionary.byId.get(1000082n)!, short, { file: 'channel_0_1.dat', offset: 124 })).toThrow(
      /channel_0_1\.dat at offset 144: exp\.Gen\$Derived \(type id 1000082\): content ends inside member baseLong/,
    );
    const badList = bytes().int64(0n).int64(40n).int64(3n).int64(1n).int64(2n).int64(3n).build();
    expect(() => layoutEntity(dictionary.byId.get(57n)!, badList)).toThrow(/list elements has 3 elements of 16 bytes but 24 bytes/);
    const extra = bytes().int64(0n).list(0, new Uint8Array()).int8(0).build();
    expect(() => layoutEntity(dictionary.byId.get(57n)!, extra)).toThrow(/content is 25 bytes but the members take 24/);
  });
});
