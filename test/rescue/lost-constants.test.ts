import { describe, expect, it } from 'vitest';
import { allMemberValues, layoutEntity } from '../../src/format/entity-layout.js';
import type { ReferenceReplacement } from '../../src/rescue/reference-replacement.js';
import { constantsAnew, leaveOutLostRootEntries, rootEntries, type RootEntries } from '../../src/rescue/lost-constants.js';
import { builtinObjects } from '../../src/writer/builtins.js';
import { ByteSink } from '../../src/writer/byte-sink.js';
import { encodeRecord } from '../../src/writer/entity-encoder.js';
import { ROOT_IDENTIFIER, ROOTS_TYPE_NAME } from '../../src/writer/roots-registry.js';
import { WriterDictionary } from '../../src/writer/writer-dictionary.js';
import { ECLIPSESTORE_WRITER, MICROSTREAM_WRITER } from '../../src/writer/writer-family.js';

/**
 * What `rescue` does with the roots entity when objects it lists are lost: built-in constants
 * written anew under the ids this storage gave them (their references mapped by entry name, a
 * reference to no entry null), every other lost entry left out of the roots record.
 */

const dictionary = WriterDictionary.base(MICROSTREAM_WRITER);
const roots = dictionary.require(ROOTS_TYPE_NAME);
const OWNER = 1_000_000_000_000_000_001n;

function rootsRecord(objectIds: readonly bigint[], identifiers: readonly string[]): Buffer {
  const sink = new ByteSink(256);
  encodeRecord(sink, roots, OWNER, [BigInt64Array.from(objectIds), [...identifiers]]);
  return Buffer.from(sink.bytes());
}

const layoutOf = (record: Buffer) => layoutEntity(dictionary.byTypeId(record.readBigInt64LE(8))!, record.subarray(24));

describe('the entries of a roots entity', () => {
  it('are its instances with their identifiers, in order', () => {
    const record = rootsRecord([5n, 0n, 1_000_000_000_000_000_123n], ['JDK.BigDecimal:ZERO', 'ROOT', 'enum 1000123']);
    expect(rootEntries(layoutOf(record))).toEqual({ objectIds: [5n, 0n, 1_000_000_000_000_000_123n], identifiers: ['JDK.BigDecimal:ZERO', 'ROOT', 'enum 1000123'] });
  });

  it('are none in a record of another shape (no member, one list, fixed members)', () => {
    const layout = (typeName: string, content: Buffer) => layoutEntity(dictionary.require(typeName), content);
    const chars = Buffer.alloc(16 + 4);
    chars.writeBigInt64LE(20n, 0);
    chars.writeBigInt64LE(2n, 8);
    expect(rootEntries(layout('java.util.Collections$EmptyList', Buffer.alloc(0)))).toEqual({ objectIds: [], identifiers: [] });
    expect(rootEntries(layout('java.math.BigDecimal', chars))).toEqual({ objectIds: [], identifiers: [] });
    expect(rootEntries(layout('java.util.OptionalInt', Buffer.alloc(5)))).toEqual({ objectIds: [], identifiers: [] });
  });

  it('are none when the two lists disagree in length', () => {
    expect(rootEntries(layoutOf(rootsRecord([5n, 6n], ['one'])))).toEqual({ objectIds: [], identifiers: [] });
    expect(rootEntries(layoutOf(rootsRecord([], [])))).toEqual({ objectIds: [], identifiers: [] });
  });
});

describe('leaving lost entries out of the roots record', () => {
  it('keeps the others (and entries without an object) in order, tells each one left out, and writes consistent lengths', () => {
    const record = rootsRecord([11n, 0n, 12n, 13n], ['A', 'ROOT', 'B', 'C']);
    const told: [ReferenceReplacement, string][] = [];
    const out = leaveOutLostRootEntries(record, layoutOf(record), (id) => id === 12n || id === 0n, (r, identifier) => told.push([r, identifier]))!;
    expect(out.readBigInt64LE(0)).toBe(BigInt(out.length));
    expect(out.readBigInt64LE(8)).toBe(roots.typeId);
    expect(out.readBigInt64LE(16)).toBe(OWNER);
    expect(rootEntries(layoutOf(out))).toEqual({ objectIds: [11n, 0n, 13n], identifiers: ['A', 'ROOT', 'C'] });
    expect(told).toEqual([[{ owner: OWNER, ownerType: ROOTS_TYPE_NAME, member: 'instances[2] (B)', lost: 12n, action: 'entry-left-out' }, 'B']]);
  });

  it('is undefined when no entry is lost', () => {
    const record = rootsRecord([11n, 0n], ['A', 'ROOT']);
    expect(leaveOutLostRootEntries(record, layoutOf(record), (id) => id === 99n, () => undefined)).toBeUndefined();
  });
});

describe('built-in constants written anew', () => {
  const builtins = builtinObjects(dictionary);
  /** This storage's roots: every built-in entry, under ids of its own (1000 above the planned ones). */
  const here = (leaveOut: readonly string[] = []): RootEntries => {
    const kept = builtins.roots.entries.filter((e) => !leaveOut.includes(e.identifier));
    return { objectIds: kept.map((e) => e.objectId + 1000n), identifiers: kept.map((e) => e.identifier) };
  };
  const idHere = (identifier: string): bigint => builtins.roots.get(identifier)! + 1000n;
  const valuesOf = (record: Buffer): unknown[] => allMemberValues(layoutOf(record));

  it('under the id and type they had, with the values the library stores, references mapped by entry name', () => {
    const entries = here();
    const naturalOrder = entries.identifiers.find((i) => i.startsWith('enum '))!;
    const lost = new Set([idHere('JDK.BigDecimal:TEN'), idHere('XEmpty:Table'), idHere(naturalOrder), idHere(ROOT_IDENTIFIER)]);
    const written = constantsAnew(dictionary, MICROSTREAM_WRITER, entries, (id) => lost.has(id));
    expect([...written.keys()]).toEqual([idHere('XEmpty:Table'), idHere('JDK.BigDecimal:TEN'), idHere(naturalOrder)]);
    const ten = written.get(idHere('JDK.BigDecimal:TEN'))!;
    expect({ ...ten, record: undefined }).toEqual({ identifier: 'JDK.BigDecimal:TEN', objectId: idHere('JDK.BigDecimal:TEN'), typeName: 'java.math.BigDecimal', record: undefined });
    expect(ten.record.readBigInt64LE(0)).toBe(BigInt(ten.record.length));
    expect(ten.record.readBigInt64LE(8)).toBe(dictionary.require('java.math.BigDecimal').typeId);
    expect(ten.record.readBigInt64LE(16)).toBe(idHere('JDK.BigDecimal:TEN'));
    expect(valuesOf(ten.record)).toEqual([['1', '0']]); // the chars of "10"
    // EmptyTable's keys and values views are no root entries: their ids are unknown, so null.
    expect(valuesOf(written.get(idHere('XEmpty:Table'))!.record)).toEqual([0n, 0n]);
    // The enum's Object[] names the natural order comparator by this storage's id.
    expect(valuesOf(written.get(idHere(naturalOrder))!.record)).toEqual([[idHere('JDK.Comparator:naturalOrder')]]);
  });

  it('only for lost entries with an object, and not an enum array one of whose constants has no entry', () => {
    const entries = here(['JDK.Comparator:naturalOrder']);
    const naturalOrder = entries.identifiers.find((i) => i.startsWith('enum '))!;
    const everything = constantsAnew(dictionary, MICROSTREAM_WRITER, entries, () => true);
    expect(everything.has(idHere(naturalOrder))).toBe(false);
    expect(everything.has(idHere(ROOT_IDENTIFIER))).toBe(false);
    expect(everything.size).toBe(entries.identifiers.length - 2);
    expect(constantsAnew(dictionary, MICROSTREAM_WRITER, entries, () => false).size).toBe(0);
    const withoutObject: RootEntries = { objectIds: [0n], identifiers: ['JDK.BigDecimal:ZERO'] };
    expect(constantsAnew(dictionary, MICROSTREAM_WRITER, withoutObject, () => true).size).toBe(0);
    const unknown: RootEntries = { objectIds: [77n], identifiers: ['app:something'] };
    expect(constantsAnew(dictionary, MICROSTREAM_WRITER, unknown, () => true).size).toBe(0);
  });

  it('none from a dictionary without the library\'s types, or of another library', () => {
    expect(constantsAnew(new WriterDictionary([]), MICROSTREAM_WRITER, here(), () => true).size).toBe(0);
    expect(constantsAnew(dictionary, ECLIPSESTORE_WRITER, here(), () => true).size).toBe(0);
  });
});
