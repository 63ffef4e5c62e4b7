import type { TypeEntry } from '../../format/type-dictionary.js';
import type { StorageWriter } from '../storage-writer.js';
import { enumMembers, reflectiveMembers } from '../type-definitions.js';

/**
 * The generator's application classes (a small library domain) and the JDK types it uses.
 * `gen.Book` exists in two versions: v1 (`int pages`) and v2 (`long pages` plus `attributes` and
 * `score`), defined halfway through a run like a class changed between two application releases.
 */

export const TAG_CONSTANTS = ['FICTION', 'SCIENCE', 'HISTORY', 'POETRY', 'TECHNOLOGY', 'CHILDREN'] as const;

export interface GenTypes {
  readonly string: TypeEntry;
  readonly integer: TypeEntry;
  readonly date: TypeEntry;
  readonly bigDecimal: TypeEntry;
  readonly arrayList: TypeEntry;
  readonly hashMap: TypeEntry;
  readonly lazy: TypeEntry;
  readonly intArray: TypeEntry;
  readonly byteArray: TypeEntry;
  readonly doubleArray: TypeEntry;
  readonly tag: TypeEntry;
  readonly person: TypeEntry;
  readonly bookV1: TypeEntry;
  readonly shelf: TypeEntry;
  readonly library: TypeEntry;
}

/** Registers the application types (book version 1) and looks up the JDK ones. */
export function defineTypes(writer: StorageWriter): GenTypes {
  const d = writer.dictionary;
  const tag = writer.defineType('gen.Tag', enumMembers('gen.Tag', TAG_CONSTANTS));
  const person = writer.defineType(
    'gen.Person',
    reflectiveMembers('gen.Person', [
      { name: 'name', type: 'java.lang.String' },
      { name: 'age', type: 'int' },
      { name: 'born', type: 'java.util.Date' },
      { name: 'active', type: 'boolean' },
      { name: 'avatar', type: '[B' },
    ]),
  );
  const bookV1 = writer.defineType(
    'gen.Book',
    reflectiveMembers('gen.Book', [
      { name: 'title', type: 'java.lang.String' },
      { name: 'author', type: 'gen.Person' },
      { name: 'tag', type: 'gen.Tag' },
      { name: 'pages', type: 'int' },
      { name: 'price', type: 'java.math.BigDecimal' },
      { name: 'ratings', type: '[I' },
    ]),
  );
  const shelf = writer.defineType(
    'gen.Shelf',
    reflectiveMembers('gen.Shelf', [
      { name: 'number', type: 'int' },
      { name: 'label', type: 'java.lang.String' },
      { name: 'books', type: writer.family.typeName('one.microstream.reference.Lazy') },
      { name: 'dimensions', type: '[D' },
    ]),
  );
  const library = writer.defineType(
    'gen.Library',
    reflectiveMembers('gen.Library', [
      { name: 'name', type: 'java.lang.String' },
      { name: 'shelves', type: 'java.util.List' },
      { name: 'people', type: 'java.util.Map' },
      { name: 'created', type: 'java.util.Date' },
      { name: 'revision', type: 'long' },
    ]),
  );
  return {
    string: d.require('java.lang.String'),
    integer: d.require('java.lang.Integer'),
    date: d.require('java.util.Date'),
    bigDecimal: d.require('java.math.BigDecimal'),
    arrayList: d.require('java.util.ArrayList'),
    hashMap: d.require('java.util.HashMap'),
    lazy: d.require(writer.family.typeName('one.microstream.reference.Lazy$Default')),
    intArray: d.require('[I'),
    byteArray: d.require('[B'),
    doubleArray: d.require('[D'),
    tag,
    person,
    bookV1,
    shelf,
    library,
  };
}

/** Version 2 of `gen.Book`: `pages` widened to long, new `attributes` map and `score`. */
export function defineBookV2(writer: StorageWriter): TypeEntry {
  return writer.defineType(
    'gen.Book',
    reflectiveMembers('gen.Book', [
      { name: 'title', type: 'java.lang.String' },
      { name: 'author', type: 'gen.Person' },
      { name: 'tag', type: 'gen.Tag' },
      { name: 'pages', type: 'long' },
      { name: 'price', type: 'java.math.BigDecimal' },
      { name: 'ratings', type: '[I' },
      { name: 'attributes', type: 'java.util.Map' },
      { name: 'score', type: 'double' },
    ]),
  );
}
