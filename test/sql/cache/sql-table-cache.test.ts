import { cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { TableCache } from '../../../src/sql/cache/table-cache.js';
import { storageStateKey, tableCodeHash } from '../../../src/sql/cache/table-cache-key.js';
import { Storage } from '../../../src/storage/storage.js';
import { ModelStorage, writeModelStorage } from '../../graph/model-storage.js';
import { registeredStorage } from '../../helpers/serving/registered-storage.js';
import { writeModelStorageWithUnreadableString } from '../../helpers/corpora/unreadable-string.js';

/**
 * SQL tables kept between runs (table-cache.ts): a second run on an unchanged storage takes them
 * from the cache and answers the same; a commit, a data file replaced by one of the same size, a
 * transaction log rewritten in place each make the next run build again (and answer the new
 * state); tables filled by a run are kept for the next; the cache is private (0700/0600); an
 * unwritable cache or one too small for the tables changes nothing but the speed.
 */

interface Run {
  readonly cached: boolean;
  readonly rows: unknown[][];
  readonly problems: string[];
}

/** One `sql` run as the command makes it: the storage opened, one statement, kept, closed. */
async function run(dir: string, cache: TableCache, sql: string): Promise<Run> {
  const { storage, context, close } = await registeredStorage(dir);
  const problems: string[] = [];
  let cached: boolean | undefined;
  const engine = new SqlEngine({ storage, cache, graph: () => context.graph.ready(), onProblem: (m) => problems.push(m), onBuilt: (f) => (cached = f.cached) });
  try {
    const answer = await engine.query(sql, { limit: 1000 });
    await engine.settle();
    return { cached: cached!, rows: answer.rows, problems };
  } finally {
    await engine.close();
    await close();
  }
}

const NAMES = `SELECT name FROM "gen.Node" ORDER BY name`;

describe('SQL tables kept between runs', () => {
  let base: string;
  let dir: string;
  let model: ModelStorage;
  let ids: Record<string, bigint>;
  let cache: TableCache;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'sql-cache-'));
    dir = join(base, 'storage');
    ({ model, ids } = writeModelStorage(dir));
    cache = new TableCache(join(base, 'cache'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const entries = (): string[] => readdirSync(join(cache.directory, 'tables-v2')).filter((n) => !n.startsWith('.'));

  it('builds once, then answers the same from the cache', async () => {
    const first = await run(dir, cache, NAMES);
    expect(first.cached).toBe(false);
    expect(first.problems).toEqual([]);
    expect(first.rows.map((r) => r[0])).toContain('a, version 2');
    const second = await run(dir, cache, NAMES);
    expect(second.cached).toBe(true);
    expect(second.rows).toEqual(first.rows);
    expect(entries()).toHaveLength(1);
  });

  it('keeps the cache private: directories 0700, files 0600', () => {
    const entry = join(cache.directory, 'tables-v2', entries()[0]!);
    for (const d of [cache.directory, join(cache.directory, 'tables-v2'), entry]) expect(statSync(d).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(entry)) expect(statSync(join(entry, f)).mode & 0o777).toBe(0o600);
  });

  it('fills what a cached database lacks, and keeps the filled tables for the next run', async () => {
    const refs = `SELECT count(*) FROM _references`;
    const filling = await run(dir, cache, refs);
    expect(filling.cached).toBe(true);
    const count = Number(filling.rows[0]![0]);
    expect(count).toBeGreaterThan(0);
    const meta = JSON.parse(readFileSync(join(cache.directory, 'tables-v2', entries()[0]!, 'meta.json'), 'utf8')) as { filled: string[] };
    expect(meta.filled).toContain(':links');
    // Filled with the one member the statements named (`name`): kept with its members.
    expect(meta.filled.filter((name) => /^:members:\d+:gen\.Node$/.test(name))).toHaveLength(1);
    const again = await run(dir, cache, refs);
    expect(again.cached).toBe(true);
    expect(Number(again.rows[0]![0])).toBe(count);
  });

  it('builds again after a commit, and answers the new state', async () => {
    const writer = await ModelStorage.reopen(dir, model);
    writer.putNode({ name: 'b renamed' }, ids.b!);
    writer.commit();
    writer.close();
    model = writer;
    const after = await run(dir, cache, NAMES);
    expect(after.cached).toBe(false);
    const names = after.rows.map((r) => r[0]);
    expect(names).toContain('b renamed');
    expect(names).not.toContain('b');
    expect((await run(dir, cache, NAMES)).rows).toEqual(after.rows);
  });

  it('builds again when a data file is replaced by one of the same size and time', async () => {
    await run(dir, cache, NAMES); // cached now
    // The data file holding the node's new name, with one byte changed: 'b renamed' becomes 'B renamed'.
    const name = Buffer.from('b renamed', 'utf16le');
    const files = readdirSync(dir).filter((c) => c.startsWith('channel_')).flatMap((c) => readdirSync(join(dir, c)).filter((n) => n.endsWith('.dat')).map((n) => join(dir, c, n)));
    const path = files.find((f) => readFileSync(f).includes(name))!;
    expect(path).toBeDefined();
    const before = statSync(path);
    const changed = Buffer.from(readFileSync(path));
    changed[changed.lastIndexOf(name)] = 'B'.charCodeAt(0);
    writeFileSync(`${path}.new`, changed);
    renameSync(`${path}.new`, path);
    utimesSync(path, before.atimeMs / 1000, before.mtimeMs / 1000);
    expect(statSync(path).size).toBe(before.size);
    expect(Math.round(statSync(path).mtimeMs)).toBe(Math.round(before.mtimeMs));
    const after = await run(dir, cache, NAMES);
    expect(after.cached).toBe(false);
    expect(after.rows.map((r) => r[0])).toContain('B renamed');
  });

  it('builds again when a transaction log is rewritten in place (same size, same time)', async () => {
    const warm = await run(dir, cache, NAMES);
    expect((await run(dir, cache, NAMES)).cached).toBe(true);
    const log = join(dir, 'channel_0', readdirSync(join(dir, 'channel_0')).find((n) => n.endsWith('.sft'))!);
    const before = statSync(log);
    writeFileSync(log, readFileSync(log));
    utimesSync(log, before.atimeMs / 1000, before.mtimeMs / 1000);
    const after = await run(dir, cache, NAMES);
    expect(after.cached).toBe(false);
    expect(after.rows).toEqual(warm.rows);
  });

  it('builds again for a copy of the storage elsewhere (its identity is its directory)', async () => {
    const copy = join(base, 'copy');
    cpSync(dir, copy, { recursive: true, preserveTimestamps: true });
    const first = await run(copy, cache, NAMES);
    expect(first.cached).toBe(false);
    expect((await run(copy, cache, NAMES)).cached).toBe(true);
  });

  it('answers as always when the cache cannot be written (a file where its directory would be)', async () => {
    const blocked = join(base, 'blocked');
    writeFileSync(blocked, 'not a directory');
    const result = await run(dir, new TableCache(join(blocked, 'cache')), NAMES);
    expect(result.cached).toBe(false);
    expect(result.rows.map((r) => r[0])).toContain('B renamed');
    expect(result.problems.join('\n')).toMatch(/cache/);
  });

  it('keeps nothing when the tables exceed the size cap, and still answers', async () => {
    const small = new TableCache(join(base, 'small'), 100_000);
    const first = await run(dir, small, NAMES);
    expect(first.rows.map((r) => r[0])).toContain('B renamed');
    expect(await small.list()).toEqual([]);
    expect((await run(dir, small, NAMES)).cached).toBe(false);
  });

  it('drops the entries used longest ago past the size cap', async () => {
    const sized = new TableCache(join(base, 'sized'));
    await run(dir, sized, NAMES);
    const [one] = await sized.list();
    expect(one).toBeDefined();
    // Room for one entry and a half: keeping the copy's drops the storage's.
    const capped = new TableCache(sized.directory, Math.floor(one!.bytes * 1.5));
    await run(join(base, 'copy'), capped, NAMES);
    const left = await capped.list();
    expect(left.map((e) => e.storage)).toEqual([statSync(join(base, 'copy')) && left[0]!.storage]);
    expect(left[0]!.storage.endsWith('copy')).toBe(true);
  });

  it('refuses a cache directory others may read, and still answers', async () => {
    const open = join(base, 'shared-cache');
    const shared = new TableCache(open);
    await shared.list();
    rmSync(open, { recursive: true, force: true });
    const { mkdirSync, chmodSync } = await import('node:fs');
    mkdirSync(open);
    chmodSync(open, 0o755);
    const result = await run(dir, shared, NAMES);
    expect(result.cached).toBe(false);
    expect(result.problems.join('\n')).toMatch(/may be read or changed by other users/);
    expect(readdirSync(open)).toEqual([]);
  });

  it('tells the warnings of the build again when the tables come from the cache', async () => {
    const damaged = join(base, 'damaged');
    writeModelStorageWithUnreadableString(damaged);
    const first = await run(damaged, cache, `SELECT count(*) FROM _values`);
    expect(first.cached).toBe(false);
    expect(first.problems).toHaveLength(1);
    expect(first.problems[0]).toMatch(/java\.lang\.String .*list value has 1000 elements/);
    const second = await run(damaged, cache, `SELECT count(*) FROM _values`);
    expect(second.cached).toBe(true);
    expect(second.problems).toEqual(first.problems);
    expect(second.rows).toEqual(first.rows);
  });

  it('files the tables under the build that made them: other table code or another DuckDB is another key', async () => {
    const storage = await Storage.open(dir);
    try {
      const now = (await storageStateKey(storage, 'v1.5.6'))!.key;
      expect((await storageStateKey(storage, 'v1.5.6'))!.key).toBe(now);
      expect((await storageStateKey(storage, 'v1.5.6', tableCodeHash()))!.key).toBe(now);
      // An older build of the table code (object-rows.ts without a column, say) has another hash.
      expect((await storageStateKey(storage, 'v1.5.6', `${tableCodeHash()}-older`))!.key).not.toBe(now);
      expect((await storageStateKey(storage, 'v1.4.0'))!.key).not.toBe(now);
    } finally {
      await storage.close();
    }
  });

  it('clears every entry', async () => {
    expect((await cache.list()).length).toBeGreaterThan(0);
    expect(await cache.clear()).toBeGreaterThan(0);
    expect(await cache.list()).toEqual([]);
    expect((await run(dir, cache, NAMES)).cached).toBe(false);
  });
});
