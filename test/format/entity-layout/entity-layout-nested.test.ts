import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../src/errors.js';
import { allMemberValues, layoutEntity, variableElements, type VariableSlot } from '../../../src/format/entity-layout.js';
import { parseTypeDictionary, type ListField } from '../../../src/format/type-dictionary.js';
import { bytes } from '../../helpers/corpora/bytes.js';

/**
 * What entity-layout.ts guards beyond the top-level list headers (issue 48, its mutation run):
 * errors carry the code FORMAT_BAD_RECORD and the record's own offsets (none without a location);
 * the lists nested in list elements are each checked against the bytes of their container (header
 * cut, length too short or too long, count negative or past the length, count against the bytes
 * for char, byte and fixed-size lists, variable elements filling their list, a fixed member past
 * the end of its list); nested values decode as texts alone and as char arrays beside other members,
 * nested byte and fixed-size lists as arrays; 4.1's quirk of reading a list of byte lists as bytes;
 * and an empty window past the end of a list answers empty without walking the list.
 */

const entry = (body: string) => parseTypeDictionary(`1000100 x.T{\n${body}}\n`).byId.get(1000100n)!;
const WHERE = { file: 'channel_0_1.dat', offset: 1000 };
const PREFIX = 'x.T (type id 1000100): ';

/** The FormatError `run` throws (fails the test when it throws nothing or something else). */
function failure(run: () => unknown): FormatError {
  try {
    run();
  } catch (error) {
    if (error instanceof FormatError) return error;
    throw error;
  }
  throw new Error('no error thrown');
}

/** Code, message and offset of the error of laying out `content` as `body`, with and without a location. */
function refusal(body: string, content: Uint8Array) {
  const at = failure(() => layoutEntity(entry(body), content, WHERE));
  const bare = failure(() => layoutEntity(entry(body), content));
  expect(bare.code).toBe('FORMAT_BAD_RECORD');
  expect(bare.offset).toBeUndefined();
  expect(bare.file).toBeUndefined();
  expect(at.code).toBe('FORMAT_BAD_RECORD');
  expect(at.file).toBe('channel_0_1.dat');
  expect(at.message).toBe(`channel_0_1.dat at offset ${at.offset}: ${bare.message}`);
  return { message: bare.message, offset: at.offset! - WHERE.offset };
}

const NAMES = '\t[list] names(\n\t\t[char] name,\n\t),\n';

describe('layoutEntity: errors name the record, its offset and the list', () => {
  it('a list after a fixed member that claims more than the record holds: FORMAT_BAD_RECORD at the list', () => {
    const content = bytes().int32(7).int64(100n).int64(0n).build();
    expect(refusal('\tint n,\n\t[char] text,\n', content)).toEqual({ message: `${PREFIX}list text claims 100 bytes, 16 available`, offset: 4 });
  });

  it('a length of exactly 2^53 - 1 is read, and refused as longer than the record', () => {
    const content = bytes().int64(2n ** 53n - 1n).int64(0n).build();
    expect(refusal('\t[char] text,\n', content).message).toBe(`${PREFIX}list text claims 9007199254740991 bytes, 16 available`);
  });

  it('elements that do not fill a list after a fixed member: the bytes they take, once, at the list', () => {
    const two = bytes().chars('a').chars('bc').build();
    const content = bytes().int32(7).list(1, two).build();
    expect(refusal(`\tint n,\n${NAMES}`, content)).toEqual({ message: `${PREFIX}the 1 elements of list names take 18 of its 38 bytes`, offset: 4 });
  });

  it('a fixed member of an element past the end of its list: the element and the offset past it', () => {
    const element = bytes().chars('').int16(0).build();
    const content = bytes().list(1, element).build();
    expect(refusal('\t[list] items(\n\t\t[char] s,\n\t\tint n,\n\t),\n', content)).toEqual({
      message: `${PREFIX}element 0 of list items runs past its end`,
      offset: 36,
    });
  });
});

describe('layoutEntity: lists nested in list elements are checked against their container', () => {
  it('a nested header cut by the end of the container', () => {
    const content = bytes().list(1, bytes().int64(16n).build()).build();
    expect(refusal(NAMES, content)).toEqual({ message: `${PREFIX}nested list name header runs past the end of its container`, offset: 16 });
  });

  it('a nested length shorter than a header or longer than the container, with the bytes available', () => {
    const short = bytes().list(1, bytes().int64(8n).int64(0n).build()).build();
    expect(refusal(NAMES, short)).toEqual({ message: `${PREFIX}nested list name claims 8 bytes, 16 available`, offset: 16 });
    const long = bytes().int32(7).list(1, bytes().int64(100n).int64(0n).build()).build();
    expect(refusal(`\tint n,\n${NAMES}`, long)).toEqual({ message: `${PREFIX}nested list name claims 100 bytes, 16 available`, offset: 20 });
    const justOver = bytes().int32(7).list(1, bytes().int64(20n).int64(0n).build()).build();
    expect(refusal(`\tint n,\n${NAMES}`, justOver)).toEqual({ message: `${PREFIX}nested list name claims 20 bytes, 16 available`, offset: 20 });
  });

  it('a nested count that is negative or larger than the nested length', () => {
    const negative = bytes().list(1, bytes().int64(16n).int64(-1n).build()).build();
    expect(refusal(NAMES, negative).message).toBe(`${PREFIX}nested list name claims -1 elements in 16 bytes`);
    const many = bytes().list(1, bytes().int64(18n).int64(20n).uint16(65).build()).build();
    expect(refusal(NAMES, many).message).toBe(`${PREFIX}nested list name claims 20 elements in 18 bytes`);
  });

  it('a nested list of zero-byte elements may count up to its length in elements, not past it (the walk stays bounded)', () => {
    const body = '\t[list] x(\n\t\t[list] y(\n\t\t),\n\t),\n';
    const sixteen = bytes().list(1, bytes().int64(16n).int64(16n).build()).build();
    expect(allMemberValues(layoutEntity(entry(body), sixteen))).toEqual([[Array.from({ length: 16 }, () => [])]]);
    const seventeen = bytes().list(1, bytes().int64(16n).int64(17n).build()).build();
    expect(refusal(body, seventeen).message).toBe(`${PREFIX}nested list y claims 17 elements in 16 bytes`);
  });

  it('nested char, byte and fixed-size lists: the count against the bytes', () => {
    const chars = bytes().list(1, bytes().int64(20n).int64(1n).uint16(65).uint16(66).build()).build();
    expect(refusal(NAMES, chars).message).toBe(`${PREFIX}nested list name has 1 elements of 2 bytes but 4 bytes`);
    const raw = bytes().list(1, bytes().list(2, new Uint8Array([1, 2, 3])).build()).build();
    expect(refusal('\t[list] blobs(\n\t\t[byte] blob,\n\t),\n', raw).message).toBe(`${PREFIX}nested list blob has 2 elements of 1 bytes but 3 bytes`);
    const cells = bytes().list(1, bytes().list(2, bytes().int32(1).int32(2).int32(3).build()).build()).build();
    expect(refusal('\t[list] rows(\n\t\t[list] cells(\n\t\t\tint v,\n\t\t),\n\t),\n', cells).message).toBe(
      `${PREFIX}nested list cells has 2 elements of 4 bytes but 12 bytes`,
    );
  });

  it('a nested list of variable elements: accepted when they fill it, refused when they do not', () => {
    const body = '\t[list] rows(\n\t\t[list] cells(\n\t\t\t[char] c,\n\t\t),\n\t),\n';
    const filled = bytes().list(1, bytes().list(2, bytes().chars('a').chars('bc').build()).build()).build();
    expect(allMemberValues(layoutEntity(entry(body), filled))).toEqual([[['a', 'bc']]]);
    const loose = bytes().list(1, bytes().list(1, bytes().chars('a').chars('bc').build()).build()).build();
    expect(refusal(body, loose)).toEqual({ message: `${PREFIX}nested list cells elements do not fill its 38 bytes`, offset: 16 });
  });
});

describe('variableElements: nested values', () => {
  it('a [char] beside another member is an array of characters, alone it is a text', () => {
    const body = '\t[list] entries(\n\t\t[char] label,\n\t\tint n,\n\t),\n';
    const layout = layoutEntity(entry(body), bytes().list(1, bytes().chars('ab').int32(5).build()).build());
    expect(allMemberValues(layout)).toEqual([[[['a', 'b'], '5']]]);
  });

  it('a nested [byte] and nested lists of fixed-size elements, alone and beside another member', () => {
    const parts = bytes().int32(5).list(2, new Uint8Array([1, 255])).int32(6).list(0, new Uint8Array()).build();
    const layout = layoutEntity(entry('\t[list] parts(\n\t\tint n,\n\t\t[byte] raw,\n\t),\n'), bytes().list(2, parts).build());
    expect(allMemberValues(layout)).toEqual([[['5', ['1', '-1']], ['6', []]]]);

    const rows = bytes().list(2, bytes().int32(1).int32(2).build()).list(1, bytes().int32(3).build()).build();
    const alone = layoutEntity(entry('\t[list] rows(\n\t\t[list] cells(\n\t\t\tint v,\n\t\t),\n\t),\n'), bytes().list(2, rows).build());
    expect(allMemberValues(alone)).toEqual([[['1', '2'], ['3']]]);

    const beside = bytes().int32(7).list(2, bytes().int32(1).int32(2).build()).build();
    const both = layoutEntity(entry('\t[list] rows(\n\t\tint n,\n\t\t[list] cells(\n\t\t\tint v,\n\t\t),\n\t),\n'), bytes().list(1, beside).build());
    expect(allMemberValues(both)).toEqual([[['7', ['1', '2']]]]);
  });

  it('a page of variable elements starts after the skipped ones, fixed members and lists each skipped by their size', () => {
    const body = '\t[list] entries(\n\t\tint n,\n\t\t[char] label,\n\t),\n';
    const elements = bytes().int32(8).chars('first').int32(9).chars('xy').int32(10).chars('').build();
    const layout = layoutEntity(entry(body), bytes().list(3, elements).build());
    const slot = layout.slots[0] as VariableSlot;
    expect(variableElements(layout.view, slot, 1, 2)).toEqual([['9', ['x', 'y']]]);
    expect(variableElements(layout.view, slot, 2, 3)).toEqual([['10', []]]);
  });

  it('an empty window, even past the end of a list of variable elements, answers empty without walking the list', () => {
    const layout = layoutEntity(entry(NAMES), bytes().list(2, bytes().chars('a').chars('bc').build()).build());
    const slot = layout.slots[0] as VariableSlot;
    expect(variableElements(layout.view, slot, 5, 5)).toEqual([]);
    expect(variableElements(layout.view, slot, 5, 3)).toEqual([]);
  });

  it('a damaged nested list met while decoding is FORMAT_BAD_LIST at its offset', () => {
    const content = bytes().list(1, bytes().int64(100n).int64(0n).build()).build();
    const view = new DataView(content.buffer);
    const field = entry(NAMES).fields[0] as ListField;
    const slot: VariableSlot = { field, variable: true, offset: 0, count: 1, elementsOffset: 16, end: content.length, elementSize: undefined };
    const error = failure(() => variableElements(view, slot, 0, 1));
    expect(error.code).toBe('FORMAT_BAD_LIST');
    expect(error.offset).toBe(16);
    expect(error.message).toBe('offset 16: nested list name claims 100 bytes, 16 available');
  });
});

describe("variableElements: 4.1's reading of a list of byte lists (rest-rendering.md, [list] x([byte] y))", () => {
  it("reads the outer count's worth of raw bytes from the start of the element area", () => {
    const blob = new Uint8Array(300).fill(9);
    const elements = bytes().list(300, blob).list(1, new Uint8Array([4])).build();
    const layout = layoutEntity(entry('\t[list] blobs(\n\t\t[byte] blob,\n\t),\n'), bytes().list(2, elements).build());
    const slot = layout.slots[0] as VariableSlot;
    // The first nested list's length, 316 = 0x013c, little-endian: 0x3c, 0x01.
    expect(variableElements(layout.view, slot, 0, 2)).toEqual(['60', '1']);
    expect(variableElements(layout.view, slot, 1, 2)).toEqual(['1']);
    expect(allMemberValues(layout)).toEqual([['60', '1']]);
  });
});
