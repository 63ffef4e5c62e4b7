import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTypeDictionary, type TypeDictionary } from '../../src/format/type-dictionary.js';
import { Storage } from '../../src/storage/storage.js';
import { isKnownAbstractType } from '../../src/writer/field-type-entries.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';
import { WriterDictionary } from '../../src/writer/writer-dictionary.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { duplicateKeys, HASHED_TYPE_NAMES } from '../helpers/real-systems/java-equality.js';
import { allRecords, type RawRecord } from './storage-checks.js';

/**
 * What MicroStream 4.1 checks, or changes, when it opens a storage the writer produced:
 * - a hashed collection whose stored elements are not unique by `equals` fails to load
 *   ("Element hashing inconsistency in java.util.HashMap"), so every key must be unique;
 * - for every field of a reflectively stored class Java registers the field's declared type (an
 *   interface or abstract class as an entry without members), so the dictionary must already hold
 *   them or Java rewrites it on opening.
 */

let base: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'java-opens-'));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

/** `Class#field: Type` for every reflective field of a current entry whose type has no entry. */
function fieldTypesWithoutEntry(dictionary: TypeDictionary): string[] {
  const missing: string[] = [];
  for (const entry of dictionary.entries) {
    if (dictionary.currentByName.get(entry.typeName) !== entry) continue;
    for (const field of entry.fields) {
      if (field.kind === 'reference' && field.qualifier !== undefined && !dictionary.currentByName.has(field.typeName)) {
        missing.push(`${entry.typeName}#${field.name}: ${field.typeName}`);
      }
    }
  }
  return missing;
}

describe('the rule, checked on dictionaries Java wrote', () => {
  it.each(['graph', 'collections', 'evolution', 'arrays', 'primitives', 'noroot'])('%s: every reflective field type has an entry', (corpus) => {
    const dictionary = parseTypeDictionary(readFileSync(join(CONFORMANCE_DIR, 'storages', corpus, 'PersistenceTypeDictionary.ptd'), 'utf8'));
    expect(fieldTypesWithoutEntry(dictionary)).toEqual([]);
  });

  it('graph: interface field types got entries without members right after the class', () => {
    const text = readFileSync(join(CONFORMANCE_DIR, 'storages', 'graph', 'PersistenceTypeDictionary.ptd'), 'utf8');
    expect(text).toContain('0000000000001000065 java.util.List{}\n0000000000001000066 java.util.Map{}\n0000000000001000067 one.microstream.reference.Lazy{}\n');
  });
});

describe.each([
  [1, 1, 'microstream'],
  [2, 4, 'microstream'],
  [3, 2, 'eclipsestore'],
] as const)('a generated storage (seed %i, %i channels, family %s)', (seed, channels, family) => {
  let dir: string;
  let storage: Storage;

  beforeAll(async () => {
    dir = join(base, `s${seed}c${channels}`);
    generateStorage({ directory: dir, entities: 6000, channelCount: channels, seed, fileMaximumSize: 32 * 1024, entitiesPerStore: 300, family });
    storage = await Storage.open(dir);
  });

  afterAll(async () => {
    await storage.close();
  });

  it('has keys unique by Java equals in every version of every hashed collection and map', async () => {
    const byTypeId = new Map(storage.dictionary.entries.filter((e) => HASHED_TYPE_NAMES.has(e.typeName)).map((e) => [e.typeId, e.typeName] as const));
    let checked = 0;
    let keys = 0;
    const duplicates: string[] = [];
    for (const record of allRecords(dir)) {
      const name = byTypeId.get(record.typeId);
      if (name === undefined) continue;
      const content = readRecordContent(record);
      const found = await duplicateKeys(storage, name, content);
      if (found.length > 0) duplicates.push(`${name} ${record.objectId}: ${found.join(', ')}`);
      keys += Number(Buffer.from(content.buffer, content.byteOffset + 8, 8).readBigInt64LE(0));
      checked++;
    }
    expect(duplicates).toEqual([]);
    // The library's people map and the books' attribute maps, in all their versions.
    expect(checked).toBeGreaterThan(50);
    expect(keys).toBeGreaterThan(200);
  });

  it('has a dictionary entry for the declared type of every reflective field, interfaces without members', () => {
    const dictionary = parseTypeDictionary(readFileSync(join(dir, 'PersistenceTypeDictionary.ptd'), 'utf8'));
    expect(fieldTypesWithoutEntry(dictionary)).toEqual([]);
    const declared = new Set(dictionary.entries.flatMap((e) => e.fields.filter((f) => f.qualifier !== undefined).map((f) => f.typeName)));
    const abstract = [...declared].filter(isKnownAbstractType).sort();
    const lazy = family === 'eclipsestore' ? 'org.eclipse.serializer.reference.Lazy' : 'one.microstream.reference.Lazy';
    expect(abstract).toEqual(['java.util.List', 'java.util.Map', lazy]);
    for (const name of abstract) expect(dictionary.currentByName.get(name)!.members).toEqual([]);
  });
});

/** The content bytes (after the header) of a record found by `allRecords`. */
function readRecordContent(record: RawRecord): Uint8Array {
  return readFileSync(record.path).subarray(record.offset + 24, record.offset + record.length);
}

describe('the writer registers field types like Java', () => {
  it('an interface field type gets an entry without members, right after the class', () => {
    const dictionary = WriterDictionary.base();
    const holder = dictionary.define('app.Holder', reflectiveMembers('app.Holder', [
      { name: 'items', type: 'java.util.List' },
      { name: 'index', type: 'java.util.Map' },
      { name: 'same', type: 'java.util.List' },
      { name: 'amount', type: 'java.lang.Number' },
      { name: 'names', type: '[Ljava.lang.String;' },
      { name: 'matrix', type: '[[I' },
    ]));
    expect(dictionary.require('java.util.List').typeId).toBe(holder.typeId + 1n);
    expect(dictionary.require('java.util.Map').typeId).toBe(holder.typeId + 2n);
    expect(dictionary.require('java.util.List').members).toEqual([]);
    // Types with a fixed id in MicroStream get that id.
    expect(dictionary.require('java.lang.Number').typeId).toBe(36n);
    expect(dictionary.require('[Ljava.lang.String;').typeId).toBe(130n);
    expect(dictionary.text()).toContain('0000000000000000130 [Ljava.lang.String;{\n\t[list] elements(\n\t\tjava.lang.String element,\n\t),\n}\n');
    expect(dictionary.require('[[I').typeId).toBe(holder.typeId + 3n);
    expect(dictionary.unregisteredFieldTypes()).toEqual([]);
  });

  it('refuses to store while a field names a class that has no entry, and accepts declared application interfaces', () => {
    const writer = StorageWriter.create(join(base, 'unregistered'));
    try {
      const shape = writer.defineType('app.Drawing', reflectiveMembers('app.Drawing', [
        { name: 'shape', type: 'app.Shape' },
        { name: 'owner', type: 'app.Person' },
      ]));
      const store = writer.beginStore();
      store.add(shape, writer.newObjectId(), [null, null]);
      expect(() => writer.store(store)).toThrow(/app\.Drawing#shape: app\.Shape, app\.Drawing#owner: app\.Person/);
      writer.defineAbstractType('app.Shape');
      writer.defineType('app.Person', reflectiveMembers('app.Person', [{ name: 'name', type: 'java.lang.String' }]));
      expect(writer.store(store).complete).toBe(true);
    } finally {
      writer.close();
    }
  });
});
