import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphIndex } from '../../../src/graph/model/graph-index.js';
import type { StorageRegistry } from '../../../src/registry/storage-registry.js';
import { planTypeTable, valueTypeIdsOf } from '../../../src/sql/tables/column-model.js';
import { typeTableSelect } from '../../../src/sql/tables/finish-tables.js';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { Storage } from '../../../src/storage/storage.js';
import { GIGAMAP_STORAGE } from '../../gigamap/gigamap-corpus.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { registeredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * What a first statement waits for: the graph index only where the base tables need it (the
 * GigaMap tables) or the statement names `_objects`; and the type tables' joins to `_values`
 * only over the rows of the types a member can hold (an enum member over its constants, not
 * over every value object).
 */

const BOOK = 'conformance.bookstore.Book';

/** A storage with its graph service, and a graph function that counts how often it is asked. */
async function opened(dir: string): Promise<{ storage: Storage; registry: StorageRegistry; graph: () => Promise<GraphIndex>; asked: () => number }> {
  const { storage, registry, context } = await registeredStorage(dir);
  let asked = 0;
  return {
    storage,
    registry,
    graph: () => {
      asked++;
      return context.graph.ready();
    },
    asked: () => asked,
  };
}

describe('the graph index and a first statement', () => {
  let graphStorage: Awaited<ReturnType<typeof opened>>;
  let gigaStorage: Awaited<ReturnType<typeof opened>>;
  const engines: SqlEngine[] = [];
  beforeAll(async () => {
    graphStorage = await opened(join(CONFORMANCE_DIR, 'storages', 'graph'));
    gigaStorage = await opened(GIGAMAP_STORAGE);
  });
  afterAll(async () => {
    await Promise.all(engines.map((engine) => engine.close()));
    for (const s of [graphStorage, gigaStorage]) {
      await s.registry.close();
      await s.storage.close();
    }
  });

  it('a statement on a type table of a storage without GigaMaps does not wait for the graph; _objects asks for it', async () => {
    const engine = new SqlEngine({ storage: graphStorage.storage, graph: graphStorage.graph, timeoutMs: 0 });
    engines.push(engine);
    const books = await engine.query('SELECT count(*) FROM Book', { limit: 1 });
    expect(Number(books.rows[0]![0])).toBeGreaterThan(0);
    expect(graphStorage.asked()).toBe(0);
    const reachable = await engine.query('SELECT count(*) FILTER (WHERE reachable), count(*) FILTER (WHERE reachable IS NULL) FROM _objects', { limit: 1 });
    expect(graphStorage.asked()).toBe(1);
    expect(Number(reachable.rows[0]![0])).toBeGreaterThan(0);
    expect(Number(reachable.rows[0]![1])).toBe(0);
  });

  it('a storage with GigaMaps gets the graph before its base tables, and its GigaMap tables filled', async () => {
    const engine = new SqlEngine({ storage: gigaStorage.storage, graph: gigaStorage.graph, timeoutMs: 0 });
    engines.push(engine);
    const entities = await engine.query('SELECT count(*) FROM _gigamap_entities', { limit: 1 });
    expect(gigaStorage.asked()).toBeGreaterThanOrEqual(1);
    expect(Number(entities.rows[0]![0])).toBeGreaterThan(0);
  });
});

describe('value members joined to the values of their types', () => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', 'graph'));
  });
  afterAll(async () => {
    await storage.close();
  });

  it('a final value type and an enum name their type ids; a type a subclass may be stored for does not', () => {
    const dictionary = storage.dictionary;
    expect(valueTypeIdsOf('java.lang.String', dictionary)).toEqual([30n]);
    expect(valueTypeIdsOf('conformance.bookstore.Genre', dictionary)).toEqual([1000074n]);
    // java.util.Date holds java.sql.Timestamp too; BigDecimal is not final.
    expect(valueTypeIdsOf('java.util.Date', dictionary)).toBeUndefined();
    expect(valueTypeIdsOf('java.math.BigDecimal', dictionary)).toBeUndefined();
  });

  it("an enum's constant bodies (Op$1) are among the enum's type ids", () => {
    const entries = [...storage.dictionary.entries];
    const genre = storage.dictionary.currentByName.get('conformance.bookstore.Genre')!;
    const body = { ...genre, typeId: 7_000_001n, typeName: 'conformance.bookstore.Genre$1' };
    const withBody = { ...storage.dictionary, byId: new Map([...storage.dictionary.byId, [body.typeId, body]]), entries: [...entries, body] };
    expect(valueTypeIdsOf('conformance.bookstore.Genre', withBody)).toEqual([1000074n, 7_000_001n]);
  });

  it("Book's String and enum members join their types' rows of _values (and the JDK constants), its BigDecimal and Date members all of _values", () => {
    const dictionary = storage.dictionary;
    const plan = planTypeTable(BOOK, dictionary.entries.filter((e) => e.typeName === BOOK), dictionary);
    const select = typeTableSelect(plan, 'stage', new Map(), dictionary);
    const joinOf = (member: string): string => {
      const i = plan.columns.findIndex((c) => c.name === member);
      expect(i, member).toBeGreaterThanOrEqual(0);
      const join = select.split('LEFT JOIN ').find((part) => part.includes(` v${i} ON v${i}.oid = s.c${i}`));
      return join!.slice(0, join!.indexOf(` v${i} ON`));
    };
    expect(joinOf('title')).toBe('(SELECT * FROM _values WHERE type_id IS NULL OR type_id IN (30))');
    expect(joinOf('genre')).toBe('(SELECT * FROM _values WHERE type_id IS NULL OR type_id IN (1000074))');
    expect(joinOf('price')).toBe('_values');
    expect(joinOf('published')).toBe('_values');
  });
});
