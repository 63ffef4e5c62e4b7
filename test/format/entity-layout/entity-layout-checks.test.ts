import { describe, expect, it } from 'vitest';
import { charsText, layoutEntity, primitiveText, variableElements, type VariableSlot } from '../../../src/format/entity-layout.js';
import { parseTypeDictionary } from '../../../src/format/type-dictionary.js';
import { bytes } from '../../helpers/corpora/bytes.js';

/**
 * The record checks and decoders of entity-layout.ts that the mutation run found untested (issue
 * 48): each list header is checked before its elements are read, with a message naming the list,
 * and the offset in the file; every primitive is decoded as Java's toString writes it; `[char]`
 * and `[byte]` lists page their elements; a long text is decoded whole across its chunks.
 */

const entry = (body: string) => parseTypeDictionary(`1000100 x.T{\n${body}}\n`).byId.get(1000100n)!;
const WHERE = { file: 'channel_0_1.dat', offset: 1000 };

describe('layoutEntity: list headers', () => {
  const texts = entry('\t[char] text,\n');

  it('refuses content that ends inside a list header, at the header', () => {
    expect(() => layoutEntity(texts, bytes().int64(16n).build(), WHERE)).toThrow(/channel_0_1\.dat at offset 1000: x\.T \(type id 1000100\): content ends inside the list header of text$/);
  });

  it('refuses a negative or oversized length or count, naming which', () => {
    expect(() => layoutEntity(texts, bytes().int64(-1n).int64(0n).build())).toThrow(/invalid list length of text: -1$/);
    expect(() => layoutEntity(texts, bytes().int64(16n).int64(-2n).build())).toThrow(/invalid element count of text: -2$/);
    expect(() => layoutEntity(texts, bytes().int64(2n ** 53n).int64(0n).build())).toThrow(/invalid list length of text: 9007199254740992$/);
  });

  it('refuses a list shorter than its header or longer than the record', () => {
    expect(() => layoutEntity(texts, bytes().int64(15n).int64(0n).build())).toThrow(/list text claims 15 bytes, 16 available$/);
    expect(() => layoutEntity(texts, bytes().int64(20n).int64(2n).uint16(65).build(), WHERE)).toThrow(/at offset 1000: .*list text claims 20 bytes, 18 available$/);
  });

  it('accepts a list of exactly the bytes it claims, and checks char and byte counts against them', () => {
    expect(layoutEntity(texts, bytes().chars('ab').build()).slots[0]).toMatchObject({ count: 2, elementsOffset: 16, end: 20, elementSize: 2 });
    expect(() => layoutEntity(texts, bytes().int64(20n).int64(1n).uint16(65).uint16(66).build())).toThrow(/list text has 1 elements of 2 bytes but 4 bytes$/);
    const raw = entry('\t[byte] raw,\n');
    expect(layoutEntity(raw, bytes().list(3, new Uint8Array([1, 2, 3])).build()).slots[0]).toMatchObject({ count: 3, elementSize: 1, end: 19 });
    expect(() => layoutEntity(raw, bytes().list(2, new Uint8Array([1, 2, 3])).build())).toThrow(/list raw has 2 elements of 1 bytes but 3 bytes$/);
  });

  it('refuses elements of different sizes that do not fill their list exactly, naming the bytes', () => {
    const names = entry('\t[list] names(\n\t\t[char] name,\n\t),\n');
    const two = bytes().chars('a').chars('bc').build();
    expect(layoutEntity(names, bytes().list(2, two).build()).slots[0]).toMatchObject({ count: 2, elementSize: undefined });
    expect(() => layoutEntity(names, bytes().list(1, two).build())).toThrow(/the 1 elements of list names take 18 of its 38 bytes$/);
  });
});

describe('primitiveText', () => {
  const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
  it("writes each primitive as Java's toString does", () => {
    expect(primitiveText('boolean', view(bytes().int8(0).build()), 0)).toBe('false');
    expect(primitiveText('boolean', view(bytes().int8(2).build()), 0)).toBe('true');
    expect(primitiveText('short', view(bytes().int16(-2).build()), 0)).toBe('-2');
    expect(primitiveText('char', view(bytes().uint16(0x263a).build()), 0)).toBe('☺');
    expect(primitiveText('float', view(bytes().float32(1.5).build()), 0)).toBe('1.5');
    expect(primitiveText('byte', view(bytes().int8(-128).build()), 0)).toBe('-128');
  });
});

describe('variableElements and charsText', () => {
  it('pages a [char] list as one-character texts and a [byte] list as numbers', () => {
    const texts = layoutEntity(entry('\t[char] text,\n'), bytes().chars('abcd').build());
    expect(variableElements(texts.view, texts.slots[0] as VariableSlot, 1, 3)).toEqual(['b', 'c']);
    expect(variableElements(texts.view, texts.slots[0] as VariableSlot, 2, 2)).toEqual([]);
    const raw = layoutEntity(entry('\t[byte] raw,\n'), bytes().list(3, new Uint8Array([1, 255, 3])).build());
    expect(variableElements(raw.view, raw.slots[0] as VariableSlot, 0, 3)).toEqual(['1', '-1', '3']);
  });

  it('decodes a text longer than one chunk of 8192 code units whole, in order', () => {
    const text = Array.from({ length: 20_000 }, (_, i) => String.fromCharCode(0x41 + (i % 26))).join('');
    const content = bytes().chars(text).build();
    expect(charsText(new DataView(content.buffer), 16, text.length)).toBe(text);
    expect(charsText(new DataView(content.buffer), 16, 0)).toBe('');
  });
});
