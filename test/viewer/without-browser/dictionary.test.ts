import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { enumOrdinalIndex, parseDictionary, readableTypeName, shortTypeName, TypeDictionary } from '../../../viewer/src/model/dictionary.js';
import { STORAGES } from '../browser.js';

/** The viewer's own dictionary parser (browser code, no DOM) on every corpus dictionary. */

function dictionaryText(storage: string): string {
  return readFileSync(path.join(STORAGES, storage, 'PersistenceTypeDictionary.ptd'), 'utf8');
}

describe('viewer dictionary parser', () => {
  it('reads every corpus dictionary completely', () => {
    for (const storage of readdirSync(STORAGES)) {
      const text = dictionaryText(storage);
      const entries = parseDictionary(text);
      expect(entries.length, storage).toBe(text.match(/^\d{19} /gm)?.length);
      expect(entries.map((e) => e.source).join('\n') + '\n', storage).toBe(text);
      for (const entry of entries) expect(entry.fixed.length + entry.variable.length).toBe(entry.instanceMembers.length);
    }
  });

  it('gives names, qualifiers, kinds and nested members', () => {
    const dictionary = TypeDictionary.parse(dictionaryText('graph'));
    const book = dictionary.get('1000073');
    expect(book?.name).toBe('conformance.bookstore.Book');
    expect(book?.fixed.map((m) => m.name)).toEqual(['isbn', 'title', 'author', 'genre', 'price', 'published', 'sequel', 'prequel', 'tags', 'pages', 'rating', 'weightKg', 'available']);
    expect(book?.fixed[2]).toMatchObject({ kind: 'field', typeName: 'conformance.bookstore.Author', qualifier: 'conformance.bookstore.Book', name: 'author' });

    const genre = dictionary.get('1000074');
    expect(genre?.enumConstants).toEqual(['FICTION', 'SCIENCE', 'HISTORY', 'POETRY', 'CHILDREN']);
    expect(genre?.fixed.map((m) => `${m.qualifier ?? ''}#${m.name}`)).toEqual(['java.lang.Enum#name', 'java.lang.Enum#ordinal']);
    expect(genre === undefined ? -1 : enumOrdinalIndex(genre)).toBe(1);

    const treeMap = dictionary.get('57');
    expect(treeMap?.fixed.map((m) => m.name)).toEqual(['comparator']);
    expect(treeMap?.variable[0]?.nested.map((m) => `${m.typeName} ${m.name}`)).toEqual(['java.lang.Object key', 'java.lang.Object value']);

    const roots = dictionary.get('1000052');
    expect(roots?.variable.map((m) => m.name)).toEqual(['instances', 'identifiers']);
    expect(roots?.variable[1]?.nested[0]).toMatchObject({ kind: 'char', name: 'identifier' });

    expect(dictionary.get('5')?.primitive).toBe('32 bit integer signed');
    expect(dictionary.get('1000029')?.enumConstants).toEqual(['INSTANCE']);
  });

  it('keeps all versions of a changed class', () => {
    const dictionary = TypeDictionary.parse(dictionaryText('evolution'));
    const current = dictionary.get('1000067');
    expect(current).toBeDefined();
    if (current === undefined) return;
    expect(dictionary.versions(current).map((v) => v.id)).toEqual(['1000066', '1000067']);
    expect(dictionary.isCurrent(current)).toBe(true);
    expect(dictionary.isCurrent(dictionary.get('1000066') ?? current)).toBe(false);
  });

  it('shortens JVM type names for display', () => {
    expect(shortTypeName('conformance.bookstore.Book')).toBe('Book');
    expect(shortTypeName('[Ljava.lang.String;')).toBe('String[]');
    expect(shortTypeName('[[I')).toBe('int[][]');
    expect(shortTypeName('java.util.Collections$EmptyList')).toBe('Collections$EmptyList');
    expect(readableTypeName('[[Lcom.acme.Foo;')).toBe('com.acme.Foo[][]');
    expect(readableTypeName('int')).toBe('int');
  });
});
