import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../src/errors.js';
import { JAVA_MAX_ELEMENTS, layoutEntity, variableElements, type VariableSlot } from '../../../src/format/entity-layout.js';
import { parseTypeDictionary } from '../../../src/format/type-dictionary.js';
import { bytes } from '../../helpers/corpora/bytes.js';

/**
 * A top-level `[list]` whose elements have no members takes 0 bytes per element, so its byte
 * length does not bound its element count: only Java's int-indexed collections do. A count above
 * 2^31 - 1 is damage, refused at the list header with the file and offset; up to it, the list is
 * laid out and paged like any other.
 */

const entry = (body: string) => parseTypeDictionary(`1000100 x.T{\n${body}}\n`).byId.get(1000100n)!;
const WHERE = { file: 'channel_0_1.dat', offset: 1000 };
const empty = entry('\tint n,\n\t[list] marks(\n\t),\n');
/** `int n = 7`, then a 16-byte list claiming `count` elements of no members. */
const content = (count: bigint) => bytes().int32(7).int64(16n).int64(count).build();

describe('a list of elements without members', () => {
  it('refuses more elements than a Java collection holds, naming the list, file and offset of its header', () => {
    for (const count of [2n ** 31n, 2n ** 53n - 1n]) {
      let error: unknown;
      try {
        layoutEntity(empty, content(count), WHERE);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FormatError);
      expect((error as FormatError).code).toBe('FORMAT_BAD_RECORD');
      expect((error as FormatError).message).toBe(
        `channel_0_1.dat at offset 1004: x.T (type id 1000100): list marks claims ${count} elements, more than a Java collection holds (2147483647)`,
      );
    }
  });

  it('lays out and pages the most elements Java can hold, each an empty element', () => {
    const layout = layoutEntity(empty, content(BigInt(JAVA_MAX_ELEMENTS)), WHERE);
    const slot = layout.slots[1] as VariableSlot;
    expect(slot).toMatchObject({ count: 2147483647, elementsOffset: 20, end: 20, elementSize: 0 });
    expect(variableElements(layout.view, slot, JAVA_MAX_ELEMENTS - 2, JAVA_MAX_ELEMENTS)).toEqual([[], []]);
  });

  it('refuses the same count in a list of chars, bytes or sized elements too', () => {
    const texts = entry('\t[char] text,\n');
    expect(() => layoutEntity(texts, bytes().int64(16n).int64(2n ** 31n).build())).toThrow(/list text claims 2147483648 elements, more than a Java collection holds \(2147483647\)$/);
  });
});
