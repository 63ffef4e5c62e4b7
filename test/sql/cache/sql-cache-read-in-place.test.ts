import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { TableCache } from '../../../src/sql/cache/table-cache.js';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';
import { registeredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * A kept entry's database is read where it lies (issue 47: a second `sql` after an export copied
 * the entry's 336 MB database into its private directory before its first statement): attached
 * read-only (src/sql/sandbox/kept-database.ts), nothing of it copied while a statement only reads,
 * the entry's bytes unchanged by any run, a statement that would write, ATTACH or DETACH refused,
 * and an entry dropped while a run reads it still read by that run.
 */

const BOOKS = 'SELECT tag, count(*) AS books, sum(price) AS total FROM "gen.Book" GROUP BY tag ORDER BY tag';
const PEOPLE = 'SELECT count(*) AS people, min(name) AS first FROM "gen.Person"';

describe('a kept entry read where it lies', () => {
  let base: string;
  let dir: string;
  let cache: TableCache;
  let first: { books: unknown[][]; people: unknown[][] };

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'sql-cache-in-place-'));
    dir = join(base, 'storage');
    generateStorage({ directory: dir, entities: 20_000, channelCount: 2, seed: 7, fileMaximumSize: 256 * 1024 });
    cache = new TableCache(join(base, 'cache'));
    // The first run builds and keeps both tables.
    const { storage, context, close } = await registeredStorage(dir);
    const engine = new SqlEngine({ storage, cache, graph: () => context.graph.ready() });
    try {
      first = { books: (await engine.query(BOOKS, { limit: 1000 })).rows, people: (await engine.query(PEOPLE, { limit: 1000 })).rows };
      await engine.settle();
    } finally {
      await engine.close();
      await close();
    }
  }, 120_000);
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const entryDatabase = (): string => {
    const entries = readdirSync(join(cache.directory, 'tables-v2')).filter((n) => !n.startsWith('.'));
    expect(entries).toHaveLength(1);
    return join(cache.directory, 'tables-v2', entries[0]!, 'tables.duckdb');
  };
  const digest = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

  /** `work` with an engine over the storage taking the cache; whether its tables came from the cache. */
  async function withEngine(work: (engine: SqlEngine) => Promise<void>): Promise<boolean | undefined> {
    const { storage, context, close } = await registeredStorage(dir);
    let cached: boolean | undefined;
    const engine = new SqlEngine({ storage, cache, graph: () => context.graph.ready(), onBuilt: (f) => (cached = f.cached) });
    try {
      await work(engine);
      await engine.settle();
    } finally {
      await engine.close();
      await close();
    }
    return cached;
  }

  it('copies nothing of the entry into the private directory for a statement, and answers as the build did', async () => {
    const entry = entryDatabase();
    const entryBytes = statSync(entry).size;
    const privateBase = join(base, 'tmp-copy');
    mkdirSync(privateBase);
    const cached = await withEngine(async (engine) => {
      const previous = process.env.TMPDIR;
      process.env.TMPDIR = privateBase;
      let books: unknown[][];
      try {
        books = (await engine.query(BOOKS, { limit: 1000 })).rows;
      } finally {
        if (previous === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = previous;
      }
      expect(books).toEqual(first.books);
      // While the engine is open: its private directory holds a database of its own, not the entry's.
      const [privateDirectory, ...others] = readdirSync(privateBase).filter((n) => n.startsWith('storage-inspector-sql-'));
      expect(others).toEqual([]);
      const files = readdirSync(join(privateBase, privateDirectory!));
      expect(files).not.toContain('kept.duckdb');
      const own = join(privateBase, privateDirectory!, 'tables.duckdb');
      expect(statSync(own).size).toBeLessThan(entryBytes);
      expect(digest(own)).not.toBe(digest(entry));
    });
    expect(cached).toBe(true);
  }, 120_000);

  it('refuses a statement that would write, ATTACH or DETACH, and leaves the entry\'s bytes as they were', async () => {
    const entry = entryDatabase();
    const before = { digest: digest(entry), mtime: statSync(entry).mtimeMs };
    const cached = await withEngine(async (engine) => {
      const refused = [
        'DETACH __kept',
        `ATTACH '${entry}' AS mine`,
        'ATTACH \'kept.duckdb\' AS mine',
        'INSERT INTO "gen.Book" SELECT * FROM "gen.Book"',
        'DELETE FROM "gen.Person"',
        'CREATE TABLE mine AS SELECT 1',
        'DROP TABLE "gen.Book"',
        'SELECT count(*) FROM __kept.main."gen.Book"',
        'CHECKPOINT __kept',
      ];
      for (const sql of refused) await expect(engine.query(sql, { limit: 10 }), sql).rejects.toMatchObject({ kind: expect.stringMatching(/^(refused|invalid)$/) });
      // Still answering, the same rows.
      expect((await engine.query(BOOKS, { limit: 1000 })).rows).toEqual(first.books);
      expect((await engine.query(PEOPLE, { limit: 1000 })).rows).toEqual(first.people);
    });
    expect(cached).toBe(true);
    expect(digest(entry)).toBe(before.digest);
    expect(statSync(entry).mtimeMs).toBe(before.mtime);
  }, 120_000);

  it('reads on from an entry dropped while the run reads it, and the next run builds again', async () => {
    const cached = await withEngine(async (engine) => {
      expect((await engine.query(BOOKS, { limit: 1000 })).rows).toEqual(first.books);
      expect(await cache.clear()).toBe(1);
      // The kept table not read yet: read now from the file the run opened, gone from the cache.
      expect((await engine.query(PEOPLE, { limit: 1000 })).rows).toEqual(first.people);
    });
    expect(cached).toBe(true);
    const again = await withEngine(async (engine) => {
      expect((await engine.query(PEOPLE, { limit: 1000 })).rows).toEqual(first.people);
    });
    expect(again).toBe(false);
  }, 120_000);
});
