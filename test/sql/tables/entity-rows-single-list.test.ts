import { describe, expect, it } from 'vitest';
import { layoutEntity } from '../../../src/format/entity-layout.js';
import { parseTypeDictionary } from '../../../src/format/type-dictionary.js';
import { planTypeTable } from '../../../src/sql/tables/column-model.js';
import { appendEntity, appendSingleListEntity, singleListElementSize } from '../../../src/sql/tables/entity-rows.js';
import { createStaging, NOT_STAGED } from '../../../src/sql/tables/staging.js';
import { bytes } from '../../helpers/corpora/bytes.js';
import { memoryDuck } from '../memory-duck.js';

/**
 * A record of a version whose one member is a list of fixed-size elements (a primitive array, a
 * HashMap's entries) is appended from its list header where it lies (`appendSingleListEntity`,
 * type-fill.ts); its row must be the row `appendEntity` makes from the record's layout, and a
 * content of any other shape must be left to the general path with nothing appended.
 */

const DICTIONARY = parseTypeDictionary(`1000001 [I{
	[list] value(
		int value,
	),
}
1000002 x.Map{
	[list] entries(
		java.lang.Object key,
		java.lang.Object value,
	),
}
1000003 x.Mixed{
	int size,
	[list] elements(
		int n,
	),
}
1000004 x.Nested{
	[list] elements(
		[list] inner(
			int n,
		),
	),
}
`);

const db = memoryDuck();

function versionOf(id: bigint) {
  const entry = DICTIONARY.byId.get(id)!;
  const plan = planTypeTable(entry.typeName, [entry], DICTIONARY);
  return { entry, plan, columns: plan.fieldOfColumn.get(id)! };
}

const ints = (count: number): Uint8Array => {
  const elements = bytes();
  for (let i = 0; i < count; i++) elements.int32(i * 7 - 3);
  return bytes().list(count, elements.build()).build();
};

describe('entity rows of one list', () => {
  it('are had by versions of one list of fixed-size elements only', () => {
    expect(singleListElementSize(versionOf(1000001n).entry, versionOf(1000001n).plan, versionOf(1000001n).columns)).toBe(4);
    expect(singleListElementSize(versionOf(1000002n).entry, versionOf(1000002n).plan, versionOf(1000002n).columns)).toBe(16);
    expect(singleListElementSize(versionOf(1000003n).entry, versionOf(1000003n).plan, versionOf(1000003n).columns)).toBeUndefined();
    expect(singleListElementSize(versionOf(1000004n).entry, versionOf(1000004n).plan, versionOf(1000004n).columns)).toBeUndefined();
  });

  for (const skip of [false, true]) {
    it(`are the rows the general path makes${skip ? ', the list column skipped' : ''}`, async () => {
      const { entry, plan, columns } = versionOf(1000001n);
      const size = singleListElementSize(entry, plan, columns)!;
      const skipped = skip ? new Set([0]) : undefined;
      const narrowed = columns.slice();
      if (skip) narrowed[0] = NOT_STAGED;
      const general = await createStaging(db.duck, db.connection, plan, `general_${skip}`, false, skipped);
      const direct = await createStaging(db.duck, db.connection, plan, `direct_${skip}`, false, skipped);
      const ROWS = 2_500;
      for (let n = 0; n < ROWS; n++) {
        const content = ints(n % 37);
        const objectId = n % 7 === 0 ? (1n << 62n) + BigInt(n) : 1_000_000_000_000_000_000n + BigInt(n);
        appendEntity(general, narrowed, { objectId, typeId: 1000001n, content, file: 'f', offset: 0 }, layoutEntity(entry, content));
        // Inside a larger buffer at an odd offset, as in a read chunk.
        const chunk = new Uint8Array(content.length + 40);
        chunk.set(content, 29);
        const appended = appendSingleListEntity(direct, narrowed, size, new DataView(chunk.buffer), 29, content.length, Number(BigInt.asIntN(32, objectId)), Number(objectId >> 32n), 1000001, 0);
        expect(appended).toBe(true);
      }
      general.appender.closeSync();
      direct.appender.closeSync();
      const rows = async (table: string): Promise<string> => JSON.stringify((await db.connection.runAndReadAll(`SELECT * FROM ${table} ORDER BY _oid`)).getRowsJson());
      const want = await rows(general.table);
      expect(JSON.parse(want)).toHaveLength(ROWS);
      if (!skip) expect(JSON.parse(want)[0]).toEqual(['1000000000000000001', '1000001', '1']);
      expect(await rows(direct.table)).toBe(want);
    });
  }

  it('leaves content of another shape to the general path, appending nothing', async () => {
    const { entry, plan, columns } = versionOf(1000002n);
    const size = singleListElementSize(entry, plan, columns)!;
    const good = bytes().list(1, bytes().int64(1000000000000000001n).int64(0n).build()).build();
    expect(() => layoutEntity(entry, good)).not.toThrow();
    const variants: Uint8Array[] = [
      good.subarray(0, 15),
      Uint8Array.from([...good, 0]),
      bytes().int64(33n).int64(1n).int64(1n).int64(2n).build(),
      bytes().int64(32n).int64(2n).int64(1n).int64(2n).build(),
      bytes().int64(32n).int64((1n << 32n) | 1n).int64(1n).int64(2n).build(),
      bytes().int64((1n << 32n) | 32n).int64(1n).int64(1n).int64(2n).build(),
      bytes().int64(-1n).int64(-1n).int64(1n).int64(2n).build(),
    ];
    const staging = await createStaging(db.duck, db.connection, plan, 'malformed');
    for (const content of variants) {
      // The general path finds each malformed.
      expect(() => layoutEntity(entry, content)).toThrow();
      expect(appendSingleListEntity(staging, columns, size, new DataView(content.buffer, content.byteOffset, content.byteLength), 0, content.length, 5, 0, 1000002, 0)).toBe(false);
    }
    staging.appender.closeSync();
    const count = await db.connection.runAndReadAll(`SELECT count(*) FROM ${staging.table}`);
    expect(Number(count.getRows()[0]![0])).toBe(0);
  });
});
