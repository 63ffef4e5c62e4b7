import { describe, expect, it } from 'vitest';
import { layoutEntity, primitiveText, variableElements, type VariableSlot } from '../../../src/format/entity-layout.js';
import { classifyId } from '../../../src/format/ids.js';
import { parseTypeDictionary, type PrimitiveName } from '../../../src/format/type-dictionary.js';
import { appendPrimitiveArray, appendReferenceElements, primitiveArrayTypes } from '../../../src/sql/fills/link-element-rows.js';
import { linkRecordPass, memberCodesOf, type LinkRowSink, type LinkType } from '../../../src/sql/fills/link-tables.js';
import { planTypeTable } from '../../../src/sql/tables/column-model.js';
import { bytes } from '../../helpers/corpora/bytes.js';

/**
 * The link pass's rows read straight from record bytes (primitive arrays, lists of references
 * and of reference pairs) against the rows the general decoder's values give (`variableElements`,
 * as link-tables.ts turns them into rows), and exact values: ids at the edges of the object range,
 * null references, type ids and constants (no `_references` row), every primitive's text.
 */

type Cell = bigint | number | string | null;

/** A sink that keeps its rows (BIGINTs as bigint, whatever call made them). */
class Rows implements LinkRowSink {
  readonly rows: Cell[][] = [];
  private row: Cell[] = [];
  appendNull(): void {
    this.row.push(null);
  }
  appendBigInt(value: bigint): void {
    this.row.push(value);
  }
  appendBigIntHalves(low: number, high: number): void {
    this.row.push((BigInt(high) << 32n) | BigInt(low >>> 0));
  }
  appendBigIntNumber(value: number): void {
    this.row.push(BigInt(value));
  }
  appendInteger(value: number): void {
    this.row.push(value);
  }
  appendVarchar(value: string): void {
    this.row.push(value);
  }
  endRow(): void {
    this.rows.push(this.row);
    this.row = [];
  }
}

const dictionary = parseTypeDictionary(`
1000001 [B{
	[list] value(
		byte value,
	),
}
1000002 [I{
	[list] value(
		int value,
	),
}
1000003 [D{
	[list] value(
		double value,
	),
}
1000004 [J{
	[list] value(
		long value,
	),
}
1000005 [Z{
	[list] value(
		boolean value,
	),
}
1000006 [C{
	[list] value(
		char value,
	),
}
1000007 [S{
	[list] value(
		short value,
	),
}
1000008 [F{
	[list] value(
		float value,
	),
}
1000010 x.Refs{
	[list] elements(
		java.lang.Object element,
	),
}
1000011 x.Map{
	[list] entries(
		java.lang.Object key,
		java.lang.Object value,
	),
}
1000012 x.Mixed{
	int size,
	[list] elements(
		int n,
	),
}
`);

function linkType(id: bigint): LinkType {
  const entry = dictionary.byId.get(id)!;
  const plan = planTypeTable(entry.typeName, [entry], dictionary);
  return { entry, plan, fieldOfColumn: plan.fieldOfColumn.get(id)! };
}

const OWNER = 1000000000000000123n;
const halves = (id: bigint): [number, number] => [Number(BigInt.asIntN(32, id)), Number(BigInt.asIntN(32, id >> 32n))];

/** A primitive array's content: its list of `values` written by `write`. */
function arrayContent(count: number, write: (b: ReturnType<typeof bytes>) => void, size: number): Uint8Array {
  const elements = bytes();
  write(elements);
  const content = bytes().list(count, elements.build()).build();
  expect(content.length).toBe(16 + count * size);
  return content;
}

/** The rows link-tables.ts made of a primitive array before: its general decoder's texts. */
function generalPrimitiveRows(id: bigint, content: Uint8Array, type: PrimitiveName): Cell[][] {
  const layout = layoutEntity(dictionary.byId.get(id)!, content);
  const slot = layout.slots[0] as VariableSlot;
  const texts = variableElements(layout.view, slot, 0, slot.count);
  for (const [i, text] of texts.entries()) expect(text).toBe(primitiveText(type, layout.view, slot.elementsOffset + i * slot.elementSize!));
  return texts.map((text, i) => [OWNER, BigInt(i), null, null, text as string, null, 'value']);
}

describe('primitive arrays from the record bytes', () => {
  const arrays = primitiveArrayTypes(new Map([...dictionary.byId.keys()].map((id) => [id, linkType(id)])));

  it('takes the types of one member, a list of one primitive, and no other', () => {
    expect([...arrays.keys()].sort()).toEqual([1000001, 1000002, 1000003, 1000004, 1000005, 1000006, 1000007, 1000008]);
    expect(arrays.get(1000003)).toEqual({ type: 'double', size: 8, member: 'value' });
    expect(arrays.get(1000001)).toEqual({ type: 'byte', size: 1, member: 'value' });
  });

  const cases: [bigint, PrimitiveName, number, number, (b: ReturnType<typeof bytes>) => void][] = [
    [1000001n, 'byte', 1, 5, (b) => b.int8(-128).int8(-1).int8(0).int8(1).int8(127)],
    [1000002n, 'int', 4, 4, (b) => b.int32(-2147483648).int32(-5).int32(0).int32(2147483647)],
    [1000003n, 'double', 8, 5, (b) => b.float64(1.5).float64(-0).float64(1e21).float64(Number.NaN).float64(0.1)],
    [1000004n, 'long', 8, 3, (b) => b.int64(-9223372036854775808n).int64(0n).int64(9223372036854775807n)],
    [1000005n, 'boolean', 1, 3, (b) => b.int8(0).int8(1).int8(2)],
    [1000006n, 'char', 2, 3, (b) => b.uint16(0x41).uint16(0xe9).uint16(0xd800)],
    [1000007n, 'short', 2, 2, (b) => b.int16(-32768).int16(32767)],
    [1000008n, 'float', 4, 3, (b) => b.float32(0.1).float32(-3.5).float32(Number.POSITIVE_INFINITY)],
  ];
  for (const [id, type, size, count, write] of cases) {
    it(`writes a ${type} array's rows as the general decoder's values give them`, () => {
      const content = arrayContent(count, write, size);
      // The record as the walk sees it: content inside a larger buffer, at an offset.
      const buffer = new Uint8Array(content.length + 40);
      buffer.set(content, 24);
      const sink = new Rows();
      expect(appendPrimitiveArray(sink, arrays.get(Number(id))!, ...halves(OWNER), new DataView(buffer.buffer), 24, content.length)).toBe(true);
      expect(sink.rows).toEqual(generalPrimitiveRows(id, content, type));
    });
  }

  it('writes exact texts', () => {
    const sink = new Rows();
    const bytesContent = arrayContent(3, (b) => b.int8(-128).int8(0).int8(127), 1);
    appendPrimitiveArray(sink, arrays.get(1000001)!, ...halves(-2n), new DataView(bytesContent.buffer), 0, bytesContent.length);
    const doubles = arrayContent(2, (b) => b.float64(1.5).float64(100), 8);
    appendPrimitiveArray(sink, arrays.get(1000003)!, ...halves(OWNER), new DataView(doubles.buffer), 0, doubles.length);
    expect(sink.rows).toEqual([
      [-2n, 0n, null, null, '-128', null, 'value'],
      [-2n, 1n, null, null, '0', null, 'value'],
      [-2n, 2n, null, null, '127', null, 'value'],
      [OWNER, 0n, null, null, '1.5', null, 'value'],
      [OWNER, 1n, null, null, '100.0', null, 'value'],
    ]);
  });

  it('leaves content of another shape to the general path, writing nothing', () => {
    const good = arrayContent(2, (b) => b.int32(1).int32(2), 4);
    const variants: Uint8Array[] = [
      good.subarray(0, 15),
      // One byte more than the list says; the list's length one more than the content.
      Uint8Array.from([...good, 0]),
      bytes().int64(25n).int64(2n).int32(1).int32(2).build(),
      // A count that does not fill the list; a count or length with a high word set.
      bytes().int64(24n).int64(1n).int32(1).int32(2).build(),
      bytes().int64(24n).int64((1n << 32n) | 2n).int32(1).int32(2).build(),
      bytes().int64((1n << 32n) | 24n).int64(2n).int32(1).int32(2).build(),
      bytes().int64(-1n).int64(-1n).int32(1).int32(2).build(),
    ];
    for (const content of variants) {
      const sink = new Rows();
      expect(appendPrimitiveArray(sink, arrays.get(1000002)!, 1, 0, new DataView(content.buffer), 0, content.length)).toBe(false);
      expect(sink.rows).toEqual([]);
    }
  });
});

/** The rows link-tables.ts made of a list of references (or of pairs) from the general decoder's values. */
function generalReferenceRows(content: Uint8Array, id: bigint): { staged: Cell[][]; references: Cell[][] } {
  const layout = layoutEntity(dictionary.byId.get(id)!, content);
  const slot = layout.slots[0] as VariableSlot;
  const staged: Cell[][] = [];
  const references: Cell[][] = [];
  const part = (v: bigint | undefined): Cell[] => (v === undefined ? [null, null] : [null, v === 0n ? null : v]);
  for (const [i, element] of variableElements(layout.view, slot, 0, slot.count).entries()) {
    const [key, value] = Array.isArray(element) ? (element as bigint[]) : [undefined, element as bigint];
    staged.push([OWNER, BigInt(i), ...part(key), ...part(value), 7]);
    for (const v of Array.isArray(element) ? (element as bigint[]) : [element as bigint]) if (classifyId(v) === 'object') references.push([OWNER, v, 'm']);
  }
  return { staged, references };
}

describe('lists of references from the record bytes', () => {
  // Object ids at both ends of their range and just outside, null, a type id, a constant.
  const FIRST_OBJECT = 1000000000000000001n;
  const LAST_OBJECT = 8999999999999999999n;
  const ids = [FIRST_OBJECT, 0n, 1000000000000000000n, LAST_OBJECT, 9000000000000000000n, 1000011n, 9223372036854775807n, -1n, 1234567890123456789n];

  for (const [id, pair] of [
    [1000010n, false],
    [1000011n, true],
  ] as const) {
    it(`writes ${pair ? 'pairs' : 'single references'} as the general decoder's values give them`, () => {
      const elements = bytes();
      for (const v of ids) elements.int64(v);
      if (pair) elements.int64(FIRST_OBJECT);
      const count = pair ? (ids.length + 1) / 2 : ids.length;
      const content = bytes().list(count, elements.build()).build();
      const layout = layoutEntity(dictionary.byId.get(id)!, content);
      const staged = new Rows();
      const references = new Rows();
      const slot = layout.slots[0] as VariableSlot;
      appendReferenceElements(staged, references, ...halves(OWNER), 7, 'm', layout.view, slot.elementsOffset, slot.count, slot.elementSize!, pair);
      const general = generalReferenceRows(content, id);
      expect(staged.rows).toEqual(general.staged);
      expect(references.rows).toEqual(general.references);
    });
  }

  it('writes exact rows: nulls as NULL, references only to objects', () => {
    const content = bytes()
      .list(2, bytes().int64(FIRST_OBJECT).int64(0n).int64(1000011n).int64(LAST_OBJECT).build())
      .build();
    const layout = layoutEntity(dictionary.byId.get(1000011n)!, content);
    const staged = new Rows();
    const references = new Rows();
    const slot = layout.slots[0] as VariableSlot;
    appendReferenceElements(staged, references, ...halves(-5n), 3, 'entries', layout.view, slot.elementsOffset, slot.count, slot.elementSize!, true);
    expect(staged.rows).toEqual([
      [-5n, 0n, null, FIRST_OBJECT, null, null, 3],
      [-5n, 1n, null, 1000011n, null, LAST_OBJECT, 3],
    ]);
    expect(references.rows).toEqual([
      [-5n, FIRST_OBJECT, 'entries'],
      [-5n, LAST_OBJECT, 'entries'],
    ]);
  });
});

describe('the link pass over a list of references where it lies', () => {
  const types = new Map([1000010n, 1000011n].map((id) => [id, linkType(id)]));
  const sinksOf = () => ({ direct: new Rows(), staged: new Rows(), references: new Rows() });
  const contentOf = (pair: boolean): Uint8Array => {
    const elements = bytes();
    const values = [1000000000000000001n, 0n, 1000011n, 8999999999999999999n, 1234567890123456789n, 1000000000000000077n];
    for (const v of values) elements.int64(v);
    return bytes().list(pair ? values.length / 2 : values.length, elements.build()).build();
  };

  for (const [id, pair] of [
    [1000010n, false],
    [1000011n, true],
  ] as const) {
    it(`writes a ${pair ? 'map' : 'list'}'s rows in its header's visit, the rows its record's handling writes`, () => {
      const content = contentOf(pair);
      const viaVisit = sinksOf();
      const visited = linkRecordPass(types, viaVisit, memberCodesOf(types));
      // The record as the walk sees it: content inside a larger buffer, at an offset.
      const buffer = new Uint8Array(content.length + 40);
      buffer.set(content, 24);
      expect(visited.visit(...halves(OWNER), Number(id), 0, 'f', 0, content.length + 24, new DataView(buffer.buffer), 24)).toBe(false);
      const viaRecord = sinksOf();
      const handled = linkRecordPass(types, viaRecord, memberCodesOf(types));
      handled.handle({ objectId: OWNER, typeId: id, content, file: 'f', offset: 0 });
      expect(viaRecord.staged.rows).toHaveLength(pair ? 3 : 6);
      expect(viaVisit.staged.rows).toEqual(viaRecord.staged.rows);
      expect(viaVisit.references.rows).toEqual(viaRecord.references.rows);
      expect(viaVisit.references.rows.map((r) => r[1])).toEqual([1000000000000000001n, 8999999999999999999n, 1234567890123456789n, 1000000000000000077n]);
      expect(viaVisit.direct.rows).toEqual([]);
    });
  }

  it('hands a list of another shape to the record handling, writing nothing', () => {
    const content = Uint8Array.from([...contentOf(true), 0]);
    const sinks = sinksOf();
    const pass = linkRecordPass(types, sinks, memberCodesOf(types));
    expect(pass.visit(...halves(OWNER), 1000011, 0, 'f', 0, content.length + 24, new DataView(content.buffer), 0)).toBe(true);
    expect([sinks.staged.rows, sinks.references.rows, sinks.direct.rows]).toEqual([[], [], []]);
  });
});
