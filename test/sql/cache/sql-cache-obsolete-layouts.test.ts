import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropObsoleteEntries, obsoleteEntries } from '../../../src/sql/cache/obsolete-layouts.js';
import { CACHE_LAYOUT, TableCache } from '../../../src/sql/cache/table-cache.js';

/**
 * Entries of the cache's earlier layout (`tables-v1/`, never read since the link files came):
 * every write of the cache drops them (obsolete-layouts.ts), and only what a cache of ours wrote,
 * so a user who upgraded keeps no dead gigabytes and loses nothing of their own. The entries of
 * the earlier layout here are written as that layout wrote them (a directory named by its key,
 * `meta.json` naming the key, `tables.duckdb`); the cache sees a database as bytes it copies.
 */

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'sql-cache-obsolete-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

let cases = 0;
/** A new cache directory (private, as the cache makes it). */
function cacheDirectory(): string {
  const dir = join(base, `cache-${++cases}`);
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

/** An entry as the layout `layout` wrote it: its database of `bytes` bytes and its description. */
function oldEntry(cacheDir: string, key: string, bytes = 4096, layout = 'tables-v1'): string {
  const dir = join(cacheDir, layout, key);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'tables.duckdb'), Buffer.alloc(bytes, 7), { mode: 0o600 });
  writeFileSync(join(dir, 'meta.json'), JSON.stringify({ key, storage: `/data/${key}`, tables: [], filled: ['x'], bytes }), { mode: 0o600 });
  return dir;
}

/** Keeps a database of a few bytes under `key`: a write of the cache. */
async function keepOne(cache: TableCache, key: string): Promise<void> {
  const database = join(base, `db-${key}`);
  writeFileSync(database, Buffer.alloc(1024, 1));
  const kept = await cache.keep(database, { key, storage: '/data/now', tables: [], decimals: [], entityTypeIds: [], deferred: [], filled: [], objects: 0, problems: 0 }, false);
  expect(kept).toBe('kept');
}

describe('entries of an earlier cache layout', () => {
  it('are listed as obsolete, then dropped by the next write of the cache, their folder with them', async () => {
    const dir = cacheDirectory();
    oldEntry(dir, 'aaa', 5000);
    oldEntry(dir, 'bbb', 3000);
    const listed = await obsoleteEntries(dir, CACHE_LAYOUT);
    expect(listed.map((e) => [e.layout, e.key, e.storage]).sort()).toEqual([
      ['tables-v1', 'aaa', '/data/aaa'],
      ['tables-v1', 'bbb', '/data/bbb'],
    ]);
    // Its files' bytes on disk: the database and the description.
    expect(listed.find((e) => e.key === 'aaa')!.bytes).toBe(5000 + readFileSync(join(dir, 'tables-v1', 'aaa', 'meta.json')).length);
    const cache = new TableCache(dir);
    // Not entries of today's cache: not listed, not counted against its size.
    expect(await cache.list()).toEqual([]);
    await keepOne(cache, 'now');
    expect(existsSync(join(dir, 'tables-v1'))).toBe(false);
    expect(await obsoleteEntries(dir, CACHE_LAYOUT)).toEqual([]);
    expect((await cache.list()).map((e) => e.key)).toEqual(['now']);
  });

  it('leave alone whatever the cache did not write, and layouts of today and later', async () => {
    const dir = cacheDirectory();
    oldEntry(dir, 'ours');
    const v1 = join(dir, 'tables-v1');
    // A file of the user's; a directory of other contents; an entry with a file added; a
    // description naming another key; a link to an entry elsewhere; a layout not ours by name.
    writeFileSync(join(v1, 'notes.txt'), 'mine');
    mkdirSync(join(v1, 'photos'));
    writeFileSync(join(v1, 'photos', 'a.jpg'), 'jpg');
    writeFileSync(join(oldEntry(dir, 'added'), 'extra.bin'), 'x');
    const renamed = oldEntry(dir, 'renamed');
    writeFileSync(join(renamed, 'meta.json'), JSON.stringify({ key: 'another', storage: '/data/x' }));
    const elsewhere = oldEntry(join(base, `elsewhere-${cases}`), 'linked');
    symlinkSync(elsewhere, join(v1, 'linked'));
    mkdirSync(join(dir, 'tables-old'));
    writeFileSync(join(dir, 'tables-old', 'meta.json'), '{}');
    // A newer layout (a newer storage-inspector beside this one) and a file beside the layouts.
    const newer = oldEntry(dir, 'newer', 100, 'tables-v3');
    writeFileSync(join(dir, 'readme.txt'), 'mine too');

    expect((await obsoleteEntries(dir, CACHE_LAYOUT)).map((e) => e.key)).toEqual(['ours']);
    expect(await dropObsoleteEntries(dir, CACHE_LAYOUT)).toBe(1);
    expect(readdirSync(v1).sort()).toEqual(['added', 'linked', 'notes.txt', 'photos', 'renamed']);
    expect(readdirSync(join(v1, 'added')).sort()).toEqual(['extra.bin', 'meta.json', 'tables.duckdb']);
    expect(readdirSync(join(v1, 'photos'))).toEqual(['a.jpg']);
    expect(readdirSync(elsewhere).sort()).toEqual(['meta.json', 'tables.duckdb']);
    expect(readdirSync(newer).sort()).toEqual(['meta.json', 'tables.duckdb']);
    expect(readdirSync(join(dir, 'tables-old'))).toEqual(['meta.json']);
    expect(readFileSync(join(dir, 'readme.txt'), 'utf8')).toBe('mine too');
    // A write of the cache changes nothing more.
    await keepOne(new TableCache(dir), 'now');
    expect(readdirSync(v1).sort()).toEqual(['added', 'linked', 'notes.txt', 'photos', 'renamed']);
  });

  it('drop a temporary directory of the earlier layout once it is an hour old, not before', async () => {
    const dir = cacheDirectory();
    const fresh = join(dir, 'tables-v1', '.tmp-fresh');
    const stale = join(dir, 'tables-v1', '.tmp-stale');
    for (const temp of [fresh, stale]) {
      mkdirSync(temp, { recursive: true });
      writeFileSync(join(temp, 'tables.duckdb'), 'half');
    }
    const hoursAgo = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(join(stale, 'tables.duckdb'), hoursAgo, hoursAgo);
    utimesSync(stale, hoursAgo, hoursAgo);
    // Temporary directories are no entries: none is counted.
    expect(await dropObsoleteEntries(dir, CACHE_LAYOUT)).toBe(0);
    expect(readdirSync(join(dir, 'tables-v1'))).toEqual(['.tmp-fresh']);
  });

  it('are dropped once each when several drops run at once', async () => {
    const dir = cacheDirectory();
    const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
    for (const key of keys) oldEntry(dir, key, 512);
    writeFileSync(join(dir, 'tables-v1', 'notes.txt'), 'mine');
    // Four at once in this process: their file operations interleave at every step.
    const counts = await Promise.all(Array.from({ length: 4 }, () => dropObsoleteEntries(dir, CACHE_LAYOUT)));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(keys.length);
    expect(readdirSync(join(dir, 'tables-v1'))).toEqual(['notes.txt']);
  });
});
