import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTypeDictionary, type FieldDescriptor } from '../../../src/format/type-dictionary.js';
import { TypeTable } from '../../../src/graph/model/type-table.js';
import { padDictionary } from '../../helpers/corpora/large-dictionary.js';
import { corpusStorage } from '../../security/server.js';

/**
 * A large dictionary costs memory by what it holds, not by its text: a field that recurs (in
 * every version of a type, across types) is one descriptor, and reference plans are compiled for
 * the types records use only.
 */

let work: string;
let text: string;
let padTypes: number;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-dictionary-memory-'));
  const path = join(work, 'PersistenceTypeDictionary.ptd');
  writeFileSync(path, readFileSync(join(corpusStorage('graph'), 'PersistenceTypeDictionary.ptd')));
  padTypes = padDictionary(path, 4_000_000, { fieldsPerType: 48 });
  text = readFileSync(path, 'utf8');
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a dictionary of thousands of types with recurring fields', () => {
  it('parses into one descriptor per distinct field, not one per field line', () => {
    const dictionary = parseTypeDictionary(text);
    const lines = dictionary.entries.reduce((n, e) => n + e.fields.length, 0);
    const distinct = new Set<FieldDescriptor>();
    for (const entry of dictionary.entries) for (const field of entry.fields) distinct.add(field);
    expect(padTypes).toBeGreaterThan(1000);
    expect(lines).toBeGreaterThan(48 * padTypes);
    // The padding's 48 fields, and the corpus's own (a few hundred).
    expect(distinct.size).toBeLessThan(500);
    // Shared descriptors describe the same fields as before.
    const padded = dictionary.entries.find((e) => e.typeName === 'com.example.padding.UnusedType7')!;
    expect(padded.fields.map((f) => `${f.typeName} ${f.name}`).slice(0, 3)).toEqual([
      '[char] someRatherLongFieldNameNumber0',
      'long someRatherLongFieldNameNumber1',
      'int someRatherLongFieldNameNumber2',
    ]);
    expect(padded.enumConstants).toEqual([]);
  });

  it('compiles a type\'s reference plan when it is first asked for, once', () => {
    const dictionary = parseTypeDictionary(text);
    const table = new TypeTable(dictionary);
    const shop = table.find(dictionary.entries.find((e) => e.typeName === 'conformance.bookstore.Shop')!.typeId)!;
    const unused = table.find(dictionary.entries.find((e) => e.typeName === 'com.example.padding.UnusedType7')!.typeId)!;
    // Plans are not own data of a type until asked for.
    expect(Object.values(table.at(unused)).some((v) => typeof v === 'object' && v !== null && 'steps' in v)).toBe(false);
    const plan = table.at(shop).plan;
    expect(plan).toBeDefined();
    expect(table.at(shop).plan).toBe(plan);
  });
});
