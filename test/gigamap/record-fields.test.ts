import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatError } from '../../src/errors.js';
import {
  bytesMember,
  hasMember,
  intMember,
  keyText,
  longMember,
  readRecord,
  referenceColumn,
  referenceMember,
  requireRecord,
  type ReadRecord,
} from '../../src/gigamap/record-fields.js';
import { GIGAMAP, GIGA_LEVEL3 } from '../../src/gigamap/gigamap-type-names.js';
import { Storage } from '../../src/storage/storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';
import { GIGAMAP_STORAGE, loadApiDump } from './gigamap-corpus.js';

/**
 * Members of GigaMap records by name (record-fields.ts), on the storage EclipseStore 4.1.0 wrote:
 * each accessor on a member of its kind (values from EclipseStore's dump) and refusing one of
 * another kind, naming the member, the type and the object; key objects as their Java text.
 */

const dump = loadApiDump();
const persons = dump.find((m) => m.label === 'persons')!;
const first = persons.entities[0]!;
let storage: Storage;
let person: ReadRecord;
let map: ReadRecord;
let level3: ReadRecord;

beforeAll(async () => {
  storage = await Storage.open(GIGAMAP_STORAGE);
  person = (await readRecord(storage, BigInt(first.objectId)))!;
  map = (await readRecord(storage, BigInt(persons.objectId)))!;
  level3 = (await readRecord(storage, referenceMember(map, 'level3')))!;
});
afterAll(async () => {
  await storage.close();
});

/** The FormatError `f` throws: its code and message. */
function refusal(f: () => unknown): [string, string] {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(FormatError);
    return [(error as FormatError).code, (error as FormatError).message];
  }
  throw new Error('expected a FormatError');
}

describe('readRecord and requireRecord', () => {
  it('read a stored record with its type name, place and size; none for id 0 or an id not stored', async () => {
    // Read here, not in a hook: mutation testing (npm run mutate) credits only code a test runs.
    const person = (await readRecord(storage, BigInt(first.objectId)))!;
    expect([person.objectId, person.typeName, level3.typeName, map.typeName]).toEqual([BigInt(first.objectId), 'conformance.gigamap.Person', GIGA_LEVEL3, GIGAMAP]);
    const stored = (await storage.readEntity(BigInt(first.objectId)))!;
    expect([person.file, person.contentOffset, person.bytes]).toEqual([stored.file, stored.offset + 24, stored.content.length + 24]);
    expect(await readRecord(storage, 0n)).toBeUndefined();
    expect(await readRecord(storage, 999_999_999_999n)).toBeUndefined();
  });

  it('requireRecord refuses an id not stored and a record of another type, naming what was wanted', async () => {
    await expect(requireRecord(storage, 999_999_999_999n, 'GigaLevel3')).rejects.toThrow(new FormatError('FORMAT_BAD_RECORD', 'GigaLevel3 999999999999 is not stored'));
    await expect(requireRecord(storage, person.objectId, 'GigaMap', [GIGAMAP, GIGA_LEVEL3])).rejects.toThrow(
      `GigaMap ${person.objectId} is a conformance.gigamap.Person, not ${GIGAMAP} or ${GIGA_LEVEL3}`,
    );
    const refused = await requireRecord(storage, person.objectId, 'GigaMap', [GIGAMAP]).then(
      () => undefined,
      (e: unknown) => e as FormatError,
    );
    expect([refused?.code, refused?.file, refused?.offset]).toEqual(['FORMAT_BAD_RECORD', person.file, person.contentOffset]);
    expect((await requireRecord(storage, person.objectId, 'Person', ['conformance.gigamap.Person'])).objectId).toBe(person.objectId);
    expect((await requireRecord(storage, person.objectId, 'anything')).typeName).toBe('conformance.gigamap.Person');
  });
});

describe('members by name', () => {
  it('reads a long, an int and a reference of the kind asked for', async () => {
    expect(longMember(person, 'id')).toBe(BigInt(first.id as number));
    expect(longMember(map, 'size')).toBe(BigInt(persons.size));
    expect(intMember(map, 'level1LengthExponent')).toBeGreaterThan(0);
    expect(await keyText(storage, referenceMember(person, 'city'))).toBe(first.city);
    expect([hasMember(person, 'city'), hasMember(person, 'town')]).toEqual([true, false]);
  });

  it('refuses a member that is not there or not of the kind asked for, naming member, type and object', () => {
    const of = `of conformance.gigamap.Person ${person.objectId}`;
    const at = `${person.file} at offset ${person.contentOffset}: `;
    expect(refusal(() => longMember(person, 'town'))).toEqual(['FORMAT_BAD_RECORD', `${at}conformance.gigamap.Person ${person.objectId} has no member town`]);
    expect(refusal(() => referenceMember(person, 'id'))).toEqual(['FORMAT_BAD_RECORD', `${at}member id ${of} is not a reference`]);
    expect(refusal(() => intMember(person, 'id'))).toEqual(['FORMAT_BAD_RECORD', `${at}member id ${of} is not an int`]);
    expect(refusal(() => longMember(person, 'score'))).toEqual(['FORMAT_BAD_RECORD', `${at}member score ${of} is not a long`]);
    expect(refusal(() => intMember(person, 'name'))).toEqual(['FORMAT_BAD_RECORD', `${at}member name ${of} is not an int`]);
    expect(refusal(() => longMember(person, 'name'))).toEqual(['FORMAT_BAD_RECORD', `${at}member name ${of} is not a long`]);
    expect(refusal(() => bytesMember(person, 'name'))).toEqual(['FORMAT_BAD_RECORD', `${at}member name ${of} is not a list`]);
    expect(refusal(() => referenceColumn(person, 'name'))).toEqual(['FORMAT_BAD_RECORD', `${at}member name ${of} is not a list`]);
    const l3 = `of ${GIGA_LEVEL3} ${level3.objectId}`;
    const at3 = `${level3.file} at offset ${level3.contentOffset}: `;
    expect(refusal(() => bytesMember(level3, 'segments'))).toEqual(['FORMAT_BAD_RECORD', `${at3}member segments ${l3} is not a [byte] list`]);
    expect(refusal(() => referenceColumn(level3, 'segments', 1))).toEqual(['FORMAT_BAD_RECORD', `${at3}member segments ${l3} is not a list of references`]);
  });

  it('reads a column of a list of references', async () => {
    const segments = referenceColumn(level3, 'segments');
    expect(segments).toBeInstanceOf(BigInt64Array);
    expect(segments.length).toBeGreaterThan(0);
    // Each non-null segment reference names a stored GigaLevel2 (or its Lazy), none a Person.
    for (const id of segments) if (id !== 0n) expect((await readRecord(storage, id))?.typeName).not.toBe('conformance.gigamap.Person');
    expect(referenceColumn(level3, 'segments', 0)).toEqual(segments);
  });
});

describe('keyText', () => {
  it('reads a key object as its Java text: null, a JDK constant, a String, a LocalDate; a missing id and a non-value type by name', async () => {
    expect(await keyText(storage, 0n)).toBe('null');
    expect(await keyText(storage, 9_000_000_000_000_002_000n)).toBe('false');
    expect(await keyText(storage, referenceMember(person, 'birthday'))).toBe(first.birthday);
    expect(await keyText(storage, 999_999_999_999n)).toBe('missing@999999999999');
    expect(await keyText(storage, map.objectId)).toBe(`${GIGAMAP}@${map.objectId}`);
  });
});

describe('records of a tiny storage written here', () => {
  let work: string;
  let tiny: Storage;
  const ids: bigint[] = [];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'record-fields-'));
    const writer = StorageWriter.create(join(work, 's'), { now: () => 1_700_000_000_000, family: 'eclipsestore' });
    const date = writer.dictionary.require('java.time.LocalDate');
    const ints = writer.dictionary.require('[I');
    const note = writer.defineType('t.Note', reflectiveMembers('t.Note', [{ name: 'n', type: 'int' }]));
    const string = writer.dictionary.require('java.lang.String');
    // A list whose elements hold a reference and an int: no list of references.
    const mixed = writer.defineType('t.Mixed', [
      {
        kind: 'list',
        typeName: '[list]',
        name: 'pairs',
        elements: [
          { kind: 'reference', typeName: 'java.lang.Object', name: 'key' },
          { kind: 'primitive', typeName: 'int', name: 'n' },
        ],
      },
    ]);
    const store = writer.beginStore();
    for (let i = 0; i < 7; i++) ids.push(writer.newObjectId());
    store.add(string, ids[5]!, ['Graz']);
    store.add(mixed, ids[6]!, [[[ids[5]!, 1], [ids[5]!, 2]]]);
    store.add(date, ids[0]!, [2024, 2, 29]);
    store.add(date, ids[1]!, [2024, 13, 1]);
    store.add(ints, ids[2]!, [Int32Array.from([1, 2])]);
    // A type id the dictionary lacks, and a t.Note without the 4 bytes of its int.
    store.add({ ...note, typeId: 999_999n }, ids[3]!, [7]);
    store.add({ ...note, fields: [] }, ids[4]!, []);
    writer.store(store);
    writer.close();
    tiny = await Storage.open(join(work, 's'));
  });
  afterAll(async () => {
    await tiny?.close();
    rmSync(work, { recursive: true, force: true });
  });

  async function readRefusal(objectId: bigint): Promise<[string, string, number | undefined]> {
    const error = await readRecord(tiny, objectId).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FormatError);
    return [(error as FormatError).code, (error as FormatError).message, (error as FormatError).offset];
  }

  it('a record whose type id the dictionary lacks: FORMAT_UNKNOWN_TYPE_ID at the type id in its header', async () => {
    const stored = (await tiny.readEntity(ids[3]!))!;
    expect(await readRefusal(ids[3]!)).toEqual(['FORMAT_UNKNOWN_TYPE_ID', `${stored.file} at offset ${stored.offset + 8}: object ${ids[3]} has type id 999999, which the type dictionary lacks`, stored.offset + 8]);
  });

  it('a record too short for its type: the layout’s error at the record’s content', async () => {
    const stored = (await tiny.readEntity(ids[4]!))!;
    const [code, message, offset] = await readRefusal(ids[4]!);
    expect([code, offset]).toEqual(['FORMAT_BAD_RECORD', stored.offset + 24]);
    expect(message).toBe(`${stored.file} at offset ${stored.offset + 24}: t.Note (type id ${stored.typeId}): content ends inside member n`);
  });

  it('a list of ints, a String’s characters and a list of (reference, int) pairs are no list of references; a LocalDate reads as its date, one with month 13 by its type and id', async () => {
    const ints = (await readRecord(tiny, ids[2]!))!;
    expect(refusal(() => referenceColumn(ints, 'elements'))).toEqual(['FORMAT_BAD_RECORD', `${ints.file} at offset ${ints.contentOffset}: member elements of [I ${ids[2]} is not a list of references`]);
    const text = (await readRecord(tiny, ids[5]!))!;
    expect(refusal(() => referenceColumn(text, 'value'))).toEqual(['FORMAT_BAD_RECORD', `${text.file} at offset ${text.contentOffset}: member value of java.lang.String ${ids[5]} is not a list of references`]);
    const mixed = (await readRecord(tiny, ids[6]!))!;
    expect(refusal(() => referenceColumn(mixed, 'pairs'))).toEqual(['FORMAT_BAD_RECORD', `${mixed.file} at offset ${mixed.contentOffset}: member pairs of t.Mixed ${ids[6]} is not a list of references`]);
    expect(await keyText(tiny, ids[0]!)).toBe('2024-02-29');
    expect(await keyText(tiny, ids[1]!)).toBe(`java.time.LocalDate@${ids[1]}`);
  });
});
