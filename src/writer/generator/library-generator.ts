import type { TypeEntry } from '../../format/type-dictionary.js';
import { FIRST_OBJECT_ID } from '../builtins.js';
import type { StorageWriter } from '../storage-writer.js';
import type { StoreBuilder } from '../store-builder.js';
import { defineBookV2, defineTypes, TAG_CONSTANTS, type GenTypes } from './domain-types.js';
import type { GenerateOptions, GenerateSummary } from './generate-options.js';
import { writeGigaMap } from './gigamap-writer.js';
import { NumberList } from './number-list.js';
import { Prng } from './prng.js';
import { birthDate, bookTitle, bookTraits, bytes, LANGUAGES, personName, price, ratings, shelfLabel } from './sample-values.js';

/**
 * The object graph of a generated storage, store by store, on a writer generate-storage.ts opened
 * and closes: the library root, persons and books, shelves, the book's second type version, later
 * stores of existing objects, an optional GigaMap and padding to the exact entity count.
 */

const BOOKS_PER_SHELF = 200;
const PEOPLE_IN_MAP = 256;
const LIBRARY_RESTORE_INTERVAL = 32;
/** New entities kept free for the last shelf unit. */
const RESERVE = 5;

export class LibraryGenerator {
  private readonly rng: Prng;
  private readonly seed: number;
  private readonly target: number;
  private readonly perStore: number;
  private readonly updateRatio: number;
  private readonly types: GenTypes;
  private readonly builder: StoreBuilder;
  private bookV2: TypeEntry | undefined;
  private tags: readonly bigint[] = [];
  /** Object ids as offsets from the first object id. */
  private readonly persons = new NumberList();
  private readonly books = new NumberList();
  private readonly bookAuthors = new NumberList();
  /** 1 or 2 per book. */
  private readonly bookVersions = new NumberList();
  /** The `HashMap` of the library: name String → person, at most one entry per name text. */
  private readonly people: [bigint, bigint][] = [];
  /**
   * Name texts already keyed in `people`. A Java `HashMap` holds one entry per key by `equals`
   * (String content, not identity): two entries with equal names make Java refuse to load it.
   */
  private readonly peopleNames = new Set<string>();
  private readonly shelves: bigint[] = [];
  private shelfBooks: bigint[] = [];
  private library = { id: 0n, name: 0n, shelves: 0n, people: 0n, created: 0n, revision: 0 };
  private attributeKeys = { edition: 0n, language: 0n };
  private languageIds: bigint[] = [];
  private records = 0;
  private stores = 0;
  private bytesWritten = 0;

  constructor(
    private readonly writer: StorageWriter,
    private readonly options: GenerateOptions,
  ) {
    this.seed = (options.seed ?? 1) >>> 0;
    this.rng = new Prng(this.seed);
    this.target = options.entities;
    this.perStore = Math.max(16, options.entitiesPerStore ?? 4096);
    this.updateRatio = options.updateRatio ?? 0.1;
    this.types = defineTypes(writer);
    this.builder = writer.beginStore();
    this.records = 27;
    this.stores = 1;
    this.bytesWritten = writer.channels.reduce((n, c) => n + c.headLength, 0);
  }

  run(): GenerateSummary {
    this.storeRoot();
    let storeIndex = 0;
    for (;;) {
      const before = this.allocated();
      const full = this.fillStore();
      if (this.bookV2 === undefined && this.allocated() >= this.target / 2 && this.fits(6)) this.introduceBookV2();
      this.storeUpdates(this.allocated() - before);
      if (++storeIndex % LIBRARY_RESTORE_INTERVAL === 0) this.storeLibrary();
      this.commit();
      if (!full) break;
    }
    if (this.shelfBooks.length > 0) this.closeShelf();
    if (this.options.gigamap !== undefined) this.addGigaMap(this.options.gigamap);
    this.storeLibrary();
    this.pad();
    if (this.builder.records > 0) this.commit();
    return {
      entities: this.allocated(),
      records: this.records,
      stores: this.stores,
      bytes: this.bytesWritten,
      files: this.writer.channels.reduce((n, c) => n + Number(c.headNumber), 0),
      bookTypeIds: this.writer.dictionary.versions('gen.Book').map((e) => e.typeId),
      rootObjectId: this.library.id,
    };
  }

  /** Entities allocated so far, the built-in ones included. */
  private allocated(): number {
    return Number(this.writer.nextObjectId - FIRST_OBJECT_ID);
  }

  /** Whether `count` more new entities fit next to the reserve. */
  private fits(count: number): boolean {
    return this.allocated() + count + RESERVE <= this.target;
  }

  private id(): bigint {
    return this.writer.newObjectId();
  }

  private add(entry: TypeEntry, id: bigint, values: Parameters<StoreBuilder['add']>[2]): void {
    this.builder.add(entry, id, values);
  }

  private commit(): void {
    const result = this.writer.store(this.builder);
    this.records += result.records;
    this.bytesWritten += result.dataBytes;
    this.stores++;
    this.builder.clear();
    this.options.onProgress?.({ entities: this.allocated(), records: this.records, stores: this.stores, bytes: this.bytesWritten });
  }

  /** The first application store: the enum constants and the library root. */
  private storeRoot(): void {
    const t = this.types;
    this.tags = this.writer.storeEnum(this.builder, t.tag);
    const lib = this.library;
    lib.id = this.id();
    lib.name = this.id();
    lib.shelves = this.id();
    lib.people = this.id();
    lib.created = this.id();
    this.addLibrary();
    this.add(t.string, lib.name, [`Library of seed ${this.seed}`]);
    this.add(t.arrayList, lib.shelves, [new BigInt64Array(0)]);
    this.add(t.hashMap, lib.people, [[]]);
    this.add(t.date, lib.created, [1_600_000_000_000 + (this.seed % 100_000) * 1000]);
    this.writer.setRoot(lib.id);
    this.commit();
    if (TAG_CONSTANTS.length !== this.tags.length) throw new Error('enum constants mismatch');
  }

  private addLibrary(): void {
    const lib = this.library;
    this.add(this.types.library, lib.id, [lib.name, lib.shelves, lib.people, lib.created, lib.revision]);
  }

  /** Stores the library again with the current shelves and people (older versions stay behind). */
  private storeLibrary(): void {
    const lib = this.library;
    lib.revision++;
    this.addLibrary();
    this.add(this.types.arrayList, lib.shelves, [BigInt64Array.from(this.shelves)]);
    this.add(this.types.hashMap, lib.people, [this.people]);
  }

  /** Adds new persons and books up to the store size; false when the entity budget is used up. */
  private fillStore(): boolean {
    const start = this.allocated();
    while (this.allocated() - start < this.perStore) {
      const wantPerson = this.persons.length === 0 || this.rng.chance(0.2);
      const size = wantPerson ? 4 : this.bookV2 === undefined ? 4 : 5;
      if (!this.fits(size)) return false;
      if (wantPerson) this.addPerson();
      else this.addBook();
    }
    return true;
  }

  private addPerson(): void {
    const t = this.types;
    const rng = this.rng;
    const person = this.id();
    const name = this.id();
    const born = this.id();
    const avatar = this.id();
    const bornAt = birthDate(rng);
    const age = Math.max(0, 2024 - new Date(bornAt).getUTCFullYear());
    this.add(t.person, person, [name, born, avatar, age, rng.chance(0.8)]);
    const nameText = personName(rng);
    this.add(t.string, name, [nameText]);
    this.add(t.date, born, [bornAt]);
    this.add(t.byteArray, avatar, [bytes(rng, 16 + rng.below(49))]);
    this.persons.push(Number(person - FIRST_OBJECT_ID));
    if (this.people.length < PEOPLE_IN_MAP && !this.peopleNames.has(nameText)) {
      this.peopleNames.add(nameText);
      this.people.push([name, person]);
    }
  }

  private personId(index: number): bigint {
    return FIRST_OBJECT_ID + BigInt(this.persons.get(index));
  }

  private addBook(): void {
    const t = this.types;
    const rng = this.rng;
    const index = this.books.length;
    const traits = bookTraits(this.seed, index);
    const book = this.id();
    const title = this.id();
    const priceId = this.id();
    const ratingsId = this.id();
    const authorIndex = rng.below(this.persons.length);
    const author = this.personId(authorIndex);
    const tag = this.tags[traits.tag]!;
    const v2 = this.bookV2;
    if (v2 === undefined) {
      this.add(t.bookV1, book, [title, author, tag, priceId, ratingsId, traits.pages]);
    } else {
      const attributes = this.id();
      this.add(v2, book, [title, author, tag, priceId, ratingsId, attributes, traits.pages, traits.score]);
      this.addAttributes(attributes, index);
    }
    this.add(t.string, title, [bookTitle(rng, index)]);
    this.add(t.bigDecimal, priceId, [price(rng)]);
    this.add(t.intArray, ratingsId, [ratings(rng, rng.below(12))]);
    this.books.push(Number(book - FIRST_OBJECT_ID));
    this.bookAuthors.push(authorIndex);
    this.bookVersions.push(v2 === undefined ? 1 : 2);
    this.shelfBooks.push(book);
    if (this.shelfBooks.length === BOOKS_PER_SHELF) this.closeShelf();
  }

  private addAttributes(id: bigint, bookIndex: number): void {
    const traits = bookTraits(this.seed, bookIndex);
    const edition = 9_000_000_000_000_005_000n + BigInt(traits.edition + 128); // Integer cache constant
    this.add(this.types.hashMap, id, [
      [
        [this.attributeKeys.edition, edition],
        [this.attributeKeys.language, this.languageIds[traits.language]!],
      ],
    ]);
  }

  /** A shelf for the books collected since the last one: Shelf, label, Lazy, ArrayList, double[]. */
  private closeShelf(): void {
    const t = this.types;
    const number = this.shelves.length + 1;
    const shelf = this.id();
    const label = this.id();
    const lazy = this.id();
    const list = this.id();
    const dimensions = this.id();
    this.add(t.shelf, shelf, [label, lazy, dimensions, number]);
    this.add(t.string, label, [shelfLabel(number)]);
    this.add(t.lazy, lazy, [list]);
    this.add(t.arrayList, list, [BigInt64Array.from(this.shelfBooks)]);
    this.add(t.doubleArray, dimensions, [Float64Array.of(0.8 + this.rng.float(), 2.1, 0.35)]);
    this.shelves.push(shelf);
    this.shelfBooks = [];
  }

  /** The class change: book version 2 and the strings its attribute maps share. */
  private introduceBookV2(): void {
    this.bookV2 = defineBookV2(this.writer);
    this.attributeKeys = { edition: this.id(), language: this.id() };
    this.add(this.types.string, this.attributeKeys.edition, ['edition']);
    this.add(this.types.string, this.attributeKeys.language, ['language']);
    this.languageIds = LANGUAGES.map((language) => {
      const id = this.id();
      this.add(this.types.string, id, [language]);
      return id;
    });
  }

  /** Stores about `updateRatio` × `newEntities` existing objects again. */
  private storeUpdates(newEntities: number): void {
    let budget = Math.round(newEntities * this.updateRatio);
    while (budget > 0) {
      if (this.bookV2 !== undefined && this.books.length > 0 && this.fits(1)) {
        const index = this.rng.below(this.books.length);
        if (this.bookVersions.get(index) === 1) {
          this.upgradeBook(index);
          budget -= 2;
          continue;
        }
      }
      if (this.persons.length === 0) return;
      this.restorePerson(this.rng.below(this.persons.length));
      budget--;
    }
  }

  /** A v1 book stored again as v2 (its old record stays in its older file), with new ratings. */
  private upgradeBook(index: number): void {
    const v2 = this.bookV2!;
    const t = this.types;
    const traits = bookTraits(this.seed, index);
    const book = FIRST_OBJECT_ID + BigInt(this.books.get(index));
    const attributes = this.id();
    this.add(v2, book, [book + 1n, this.personId(this.bookAuthors.get(index)), this.tags[traits.tag]!, book + 2n, book + 3n, attributes, traits.pages, traits.score]);
    this.add(t.intArray, book + 3n, [ratings(this.rng, 4 + this.rng.below(12))]);
    this.addAttributes(attributes, index);
    this.bookVersions.set(index, 2);
  }

  private restorePerson(index: number): void {
    const person = this.personId(index);
    this.add(this.types.person, person, [person + 1n, person + 2n, person + 3n, 18 + this.rng.below(70), this.rng.chance(0.5)]);
  }

  /** A GigaMap (beyond the entity budget), reachable as the value of key `gigamap` in the library's people map. */
  private addGigaMap(entities: number): void {
    const written = writeGigaMap(
      {
        writer: this.writer,
        add: (entry, id, values) => this.add(entry, id, values),
        flush: () => {
          if (this.builder.records >= this.perStore) this.commit();
        },
      },
      entities,
      this.rng,
      this.options.gigamapKeys,
    );
    const key = this.id();
    this.add(this.types.string, key, ['gigamap']);
    this.people.push([key, written.rootId]);
  }

  /** Unreferenced Integer objects up to the exact entity count. */
  private pad(): void {
    while (this.allocated() < this.target) {
      this.add(this.types.integer, this.id(), [1000 + this.allocated()]);
      if (this.builder.records >= this.perStore) this.commit();
    }
  }
}
