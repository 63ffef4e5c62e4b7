import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStorage, type InspectedStorage, type StoredObject } from '../../../src/library/index.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { cloneStorageDatabase, dropDatabase, postgresInfo, READER_PASSWORD, readerUrl, rootTable } from '../../helpers/real-systems/postgres.js';

/**
 * The library entry on a storage MicroStream keeps in PostgreSQL (read as the minimal read-only
 * role) answers as on the same storage's directory: root, objects, instances and SQL.
 */

async function read(storage: InspectedStorage): Promise<{ root: StoredObject | undefined; books: StoredObject[]; first: StoredObject | undefined; count: unknown }> {
  try {
    const root = await storage.root();
    const books: StoredObject[] = [];
    for await (const book of storage.instances('Book')) books.push(book);
    books.sort((a, b) => (a.id < b.id ? -1 : 1));
    const first = await storage.object(books[0]!.id);
    const count = (await storage.sql('SELECT count(*) FROM Book')).rows[0]![0];
    return { root, books, first, count };
  } finally {
    await storage.close();
  }
}

describe('the library on a PostgreSQL-kept storage', () => {
  it('reads what it reads from the directory', { timeout: 120_000 }, async () => {
    const database = await cloneStorageDatabase('graph', 'library');
    const passwordFile = join(postgresInfo().root, `password-library-${process.pid}`);
    writeFileSync(passwordFile, `${READER_PASSWORD}\n`, { mode: 0o600 });
    try {
      const fromDatabase = await read(await openStorage(readerUrl(database), { table: rootTable('graph'), passwordFile }));
      const fromDirectory = await read(await openStorage(join(CONFORMANCE_DIR, 'storages', 'graph')));
      expect(fromDatabase.root?.id).toBe(fromDirectory.root!.id);
      expect(fromDatabase.books.length).toBeGreaterThan(10);
      expect(fromDatabase.books).toEqual(fromDirectory.books);
      expect(fromDatabase.first).toEqual(fromDirectory.first);
      expect(fromDatabase.count).toBe(String(fromDirectory.books.length));
    } finally {
      await dropDatabase(database);
    }
  });
});
