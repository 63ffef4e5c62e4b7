import { describe, expect, it } from 'vitest';
import { layoutEntity } from '../../../src/format/entity-layout.js';
import { parseTypeDictionary } from '../../../src/format/type-dictionary.js';
import { charsOfContent, textFromChars, valueOfObject } from '../../../src/sql/tables/value-records.js';

/**
 * Strings and BigDecimals are read where their record lies in the base pass (table-build.ts):
 * the text must be what the general path (layout, renderer) makes of the same content, and any
 * content that is not exactly one `[char]` list must be left to the general path.
 */

const DICTIONARY = parseTypeDictionary(`00000000000000000030 java.lang.String{
	[char] value,
}
00000000000000000035 java.math.BigDecimal{
	[char] value,
}
`);

/** A record content of one `[char]` list: binary length, element count, UTF-16 code units. */
function charsContent(text: string, pad = 0): Uint8Array {
  const bytes = new Uint8Array(16 + 2 * text.length + pad);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0, BigInt(16 + 2 * text.length), true);
  view.setBigUint64(8, BigInt(text.length), true);
  for (let i = 0; i < text.length; i++) view.setUint16(16 + 2 * i, text.charCodeAt(i), true);
  return bytes;
}

describe('texts read where the record lies', () => {
  it('are the texts the general path makes, for Strings and BigDecimals', () => {
    const cases: [bigint, string][] = [
      [30n, ''],
      [30n, 'Berger'],
      [30n, 'Grüße 😀 \u0000 \ud800 lone surrogate'],
      [35n, '12.50'],
      [35n, '-0.001'],
      [35n, '1E+5'],
      [35n, '123456789012345678901234567890.123'],
    ];
    for (const [typeId, text] of cases) {
      const entry = DICTIONARY.byId.get(typeId)!;
      // Inside a larger buffer at an odd offset, as in a read chunk.
      const content = charsContent(text);
      const buffer = new Uint8Array(content.length + 7);
      buffer.set(content, 3);
      const fast = textFromChars(entry)!(charsOfContent(new DataView(buffer.buffer), 3, content.length)!);
      const general = valueOfObject(layoutEntity(entry, content), typeId === 30n ? 'text' : 'decimal', DICTIONARY, 1n);
      expect(fast, JSON.stringify(text)).toBe(general.text);
    }
  });

  it('leave every other shape to the general path', () => {
    const good = charsContent('abc');
    const view = (bytes: Uint8Array): DataView => new DataView(bytes.buffer);
    expect(charsOfContent(view(good), 0, good.length)).toBe('abc');
    // Longer than the list, shorter than a header, a count that does not fit the length, high words set.
    expect(charsOfContent(view(charsContent('abc', 2)), 0, good.length + 2)).toBeUndefined();
    expect(charsOfContent(view(good), 0, 15)).toBeUndefined();
    const badCount = good.slice();
    new DataView(badCount.buffer).setUint32(8, 4, true);
    expect(charsOfContent(view(badCount), 0, badCount.length)).toBeUndefined();
    for (const at of [4, 12]) {
      const high = good.slice();
      new DataView(high.buffer).setUint32(at, 1, true);
      expect(charsOfContent(view(high), 0, high.length), `high word at ${at}`).toBeUndefined();
    }
  });

  it('are made for Strings and BigDecimals of one [char] member only', () => {
    expect(textFromChars(DICTIONARY.byId.get(30n)!)).toBeDefined();
    expect(textFromChars(DICTIONARY.byId.get(35n)!)).toBeDefined();
    const other = parseTypeDictionary(`00000000000000000040 java.lang.String{
	[char] value,
	int hash,
}
00000000000000000041 com.acme.Name{
	[char] value,
}
`);
    expect(textFromChars(other.byId.get(40n)!)).toBeUndefined();
    expect(textFromChars(other.byId.get(41n)!)).toBeUndefined();
  });
});
