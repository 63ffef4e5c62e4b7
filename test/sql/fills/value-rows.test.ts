import { describe, expect, it } from 'vitest';
import { layoutEntity } from '../../../src/format/entity-layout.js';
import { parseTypeDictionary } from '../../../src/format/type-dictionary.js';
import { appendPlainText, appendText, appendValue } from '../../../src/sql/fills/value-fill.js';
import { SYSTEM_TABLES } from '../../../src/sql/fills/table-build.js';
import { ChunkAppender } from '../../../src/sql/tables/chunk-appender.js';
import { memoryDuck } from '../memory-duck.js';

/**
 * A text value's row (a String, a big number) goes into `_values` and into a table of its first
 * three columns alike: the base pass stages the big numbers in such a table (table-build.ts), the
 * typed columns, always NULL for a text, left out; an Integer still gets its typed column.
 */

const DICTIONARY = parseTypeDictionary(`00000000000000000030 java.lang.String{
	[char] value,
}
00000000000000000031 java.lang.Integer{
	int value,
}
`);

const db = memoryDuck();

/** A `[char]` list record content: its 16-byte header, then UTF-16 code units. */
function charsContent(text: string): Uint8Array {
  const bytes = new Uint8Array(16 + 2 * text.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, bytes.length, true);
  view.setUint32(8, text.length, true);
  for (let i = 0; i < text.length; i++) view.setUint16(16 + 2 * i, text.charCodeAt(i), true);
  return bytes;
}

const TEXTS = ['12.50', '-0.001', 'a text longer than twelve bytes', 'äöü', ''];

describe('text rows of _values', () => {
  it('are the same in `_values` and in a table of its first three columns', async () => {
    await db.connection.run(SYSTEM_TABLES.split('\n').filter((line) => line.startsWith('CREATE TABLE _values')).join('\n'));
    await db.connection.run('CREATE TABLE narrow AS SELECT oid, type_id, text FROM _values LIMIT 0');
    const wide = new ChunkAppender(db.duck, await db.connection.createAppender('_values'));
    const narrow = new ChunkAppender(db.duck, await db.connection.createAppender('narrow'));
    const string = DICTIONARY.byId.get(30n)!;
    let oid = 1_000_000_000_000_000_001n;
    // More rows than a chunk holds, each way of appending a text in turn.
    for (let n = 0; n < 5_000; n++) {
      const text = `${TEXTS[n % TEXTS.length]}${n % 3 === 0 ? '' : String(n)}`;
      const content = charsContent(text);
      const low = Number(BigInt.asIntN(32, oid));
      const high = Number(oid >> 32n);
      for (const appender of [wide, narrow]) {
        if (n % 3 === 0) appendValue(appender, { objectId: oid, typeId: 30n }, layoutEntity(string, content), 'text', DICTIONARY);
        else if (n % 3 === 1 && /^[\x20-\x7e]*$/.test(text)) appendPlainText(appender, low, high, 30, 0, new DataView(content.buffer), 16, text.length);
        else appendText(appender, low, high, 30, 0, text);
      }
      oid += 7n;
    }
    const integer = DICTIONARY.byId.get(31n)!;
    const four = new Uint8Array([42, 0, 0, 0]);
    appendValue(wide, { objectId: 5n, typeId: 31n }, layoutEntity(integer, four), 'integer', DICTIONARY);
    wide.closeSync();
    narrow.closeSync();
    const rows = async (sql: string): Promise<string> => JSON.stringify((await db.connection.runAndReadAll(sql)).getRowsJson());
    const want = await rows('SELECT oid, type_id, text FROM narrow ORDER BY oid');
    expect(JSON.parse(want)).toHaveLength(5_000);
    expect(JSON.parse(want)[1]).toEqual(['1000000000000000008', '30', '-0.0011']);
    expect(await rows('SELECT oid, type_id, text FROM _values WHERE oid <> 5 ORDER BY oid')).toBe(want);
    expect(await rows('SELECT count(*) FROM _values WHERE int IS NOT NULL OR num IS NOT NULL OR bool IS NOT NULL OR ts IS NOT NULL OR dt IS NOT NULL OR tm IS NOT NULL')).toBe('[["1"]]');
    expect(await rows('SELECT oid, text, int FROM _values WHERE oid = 5')).toBe('[["5","42","42"]]');
  });
});
