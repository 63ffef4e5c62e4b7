import { describe, expect, it } from 'vitest';
import { layoutEntity } from '../../../src/format/entity-layout.js';
import { parseTypeDictionary } from '../../../src/format/type-dictionary.js';
import type { LatestRecord } from '../../../src/storage/records/latest-records.js';
import { planTypeTable } from '../../../src/sql/tables/column-model.js';
import { appendEntity, appendFixedEntity, fixedLayoutOf } from '../../../src/sql/tables/entity-rows.js';
import { createStaging, NOT_STAGED } from '../../../src/sql/tables/staging.js';
import { memoryDuck } from '../memory-duck.js';

/**
 * A record of a type whose members all have a fixed size is appended where it lies
 * (`appendFixedEntity`, type-fill.ts); its row must be the row `appendEntity` makes from the
 * record's layout, for every primitive kind, null and non-null references, ids of every size.
 */

const DICTIONARY = parseTypeDictionary(`00000000000000000030 java.lang.String{
	[char] value,
}
00000000000000001000 com.acme.Everything{
	boolean flag,
	byte b,
	short s,
	char c,
	int i,
	long l,
	float f,
	double d,
	com.acme.Everything other,
	java.lang.String name,
}
00000000000000001001 com.acme.WithText{
	int i,
	[char] inline,
}
`);

const db = memoryDuck();

function contentOf(n: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (n * 131 + i * 37 + (i >> 3) * 11) & 0xff;
  const view = new DataView(bytes.buffer);
  // Some references null, some of every size.
  if (n % 4 === 0) view.setBigInt64(length - 16, 0n, true);
  if (n % 5 === 0) view.setBigInt64(length - 8, 0n, true);
  if (n % 3 === 0) view.setBigInt64(length - 8, 1_000_000_000_000_000_051n + BigInt(n), true);
  return bytes;
}

describe('entity rows of a fixed layout', () => {
  it('are the rows the general path makes', async () => {
    const entry = DICTIONARY.byId.get(1000n)!;
    const plan = planTypeTable(entry.typeName, [entry], DICTIONARY);
    const columns = plan.fieldOfColumn.get(1000n)!;
    const fixed = fixedLayoutOf(entry)!;
    expect(fixed.length).toBe(1 + 1 + 2 + 2 + 4 + 8 + 4 + 8 + 8 + 8);
    const general = await createStaging(db.duck, db.connection, plan, 'general');
    const direct = await createStaging(db.duck, db.connection, plan, 'direct');
    const ROWS = 3_000;
    for (let n = 0; n < ROWS; n++) {
      const content = contentOf(n, fixed.length);
      const objectId = n % 7 === 0 ? (1n << 62n) + BigInt(n) : 1_000_000_000_000_000_000n + BigInt(n);
      const record: LatestRecord = { objectId, typeId: 1000n, content, file: 'f', offset: 0 };
      appendEntity(general, columns, record, layoutEntity(entry, content));
      // Inside a larger buffer at an odd offset, as in a read chunk.
      const chunk = new Uint8Array(content.length + 40);
      chunk.set(content, 29);
      appendFixedEntity(direct, columns, fixed, new DataView(chunk.buffer), 29, Number(BigInt.asIntN(32, objectId)), Number(objectId >> 32n), 1000, 0);
    }
    general.appender.closeSync();
    direct.appender.closeSync();
    const rows = async (table: string): Promise<string> =>
      JSON.stringify((await db.connection.runAndReadAll(`SELECT * FROM ${table} ORDER BY _oid`)).getRowsJson());
    const want = await rows('general');
    expect(JSON.parse(want)).toHaveLength(ROWS);
    expect(await rows('direct')).toBe(want);
  });

  it('leaves the members a fill skips out of its staging table, the other columns as the whole row has them', async () => {
    const entry = DICTIONARY.byId.get(1000n)!;
    const plan = planTypeTable(entry.typeName, [entry], DICTIONARY);
    const columns = plan.fieldOfColumn.get(1000n)!;
    const fixed = fixedLayoutOf(entry)!;
    // Kept: flag (0), l (5), other (8); every other member skipped, as type-fill.ts skips the members no statement named.
    const kept = new Set([0, 5, 8]);
    const skipped = new Set(plan.columns.map((_, i) => i).filter((i) => !kept.has(i)));
    const narrowed = columns.slice();
    for (const c of skipped) narrowed[c] = NOT_STAGED;
    const whole = await createStaging(db.duck, db.connection, plan, 'whole');
    const general = await createStaging(db.duck, db.connection, plan, 'narrow_general', false, skipped);
    const direct = await createStaging(db.duck, db.connection, plan, 'narrow_direct', false, skipped);
    const ROWS = 2_500;
    for (let n = 0; n < ROWS; n++) {
      const content = contentOf(n, fixed.length);
      const objectId = 1_000_000_000_000_000_000n + BigInt(n);
      const record: LatestRecord = { objectId, typeId: 1000n, content, file: 'f', offset: 0 };
      appendEntity(whole, columns, record, layoutEntity(entry, content));
      appendEntity(general, narrowed, record, layoutEntity(entry, content));
      appendFixedEntity(direct, narrowed, fixed, new DataView(content.buffer), 0, Number(BigInt.asIntN(32, objectId)), Number(objectId >> 32n), 1000, 0);
    }
    for (const staging of [whole, general, direct]) staging.appender.closeSync();
    const names = async (table: string): Promise<string[]> =>
      (await db.connection.runAndReadAll(`SELECT column_name FROM information_schema.columns WHERE table_name = '${table}' ORDER BY ordinal_position`)).getRows().map((r) => String(r[0]));
    expect(await names('narrow_general')).toEqual(['_oid', '_type_id', 'c0', 'c5', 'c8']);
    expect(await names('narrow_direct')).toEqual(['_oid', '_type_id', 'c0', 'c5', 'c8']);
    const rows = async (table: string): Promise<string> => JSON.stringify((await db.connection.runAndReadAll(`SELECT _oid, _type_id, c0, c5, c8 FROM ${table} ORDER BY _oid`)).getRowsJson());
    const want = await rows('whole');
    expect(JSON.parse(want)).toHaveLength(ROWS);
    expect(await rows('narrow_general')).toBe(want);
    expect(await rows('narrow_direct')).toBe(want);
  });

  it('is only had by versions whose members all have a fixed size', () => {
    expect(fixedLayoutOf(DICTIONARY.byId.get(1000n)!)).toBeDefined();
    expect(fixedLayoutOf(DICTIONARY.byId.get(1001n)!)).toBeUndefined();
    expect(fixedLayoutOf(DICTIONARY.byId.get(30n)!)).toBeUndefined();
  });
});
