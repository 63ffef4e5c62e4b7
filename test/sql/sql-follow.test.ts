import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlEngine } from '../../src/sql/sql-engine.js';
import { StorageFollower } from '../../src/storage/follow/follow.js';
import { ModelStorage, writeModelStorage } from '../graph/model-storage.js';
import { registeredStorage, type RegisteredStorage } from '../helpers/serving/registered-storage.js';

/**
 * SQL over a followed storage: a commit written while it is served is seen by the next statement
 * (the tables are rebuilt for the new state), the temporary directory is never inside the
 * storage, and closing the engine removes it.
 */
describe('SQL while following commits', () => {
  let base: string;
  let dir: string;
  let model: ModelStorage;
  let ids: Record<string, bigint>;
  let registered: RegisteredStorage;
  let follower: StorageFollower;
  let engine: SqlEngine;

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'sql-follow-'));
    dir = join(base, 'storage');
    ({ model, ids } = writeModelStorage(dir));
    registered = await registeredStorage(dir);
    follower = new StorageFollower(registered.storage, { pollIntervalMs: 1_000_000 });
    registered.registry.startAll();
    engine = new SqlEngine({ storage: registered.storage, graph: () => registered.context.graph.ready() });
  });
  afterAll(async () => {
    await engine.close();
    await follower.stop();
    await registered.close();
    rmSync(base, { recursive: true, force: true });
  });

  const names = async (): Promise<unknown[]> => (await engine.query(`SELECT name FROM "gen.Node" ORDER BY name`, { limit: 100 })).rows.map((r) => r[0]);

  it('answers from the new state after a commit', async () => {
    const before = await names();
    expect(before).toContain('b');
    const writer = await ModelStorage.reopen(dir, model);
    writer.putNode({ name: 'b renamed' }, ids.b!);
    writer.putNode({ name: 'brand new' });
    writer.commit();
    writer.close();
    model = writer;
    await follower.refreshNow();
    const after = await names();
    expect(after).toContain('b renamed');
    expect(after).toContain('brand new');
    expect(after).not.toContain('b');
    expect(after.length).toBe(before.length + 1);
    // Nothing of DuckDB's is written into the storage directory.
    expect(readdirSync(dir).filter((n) => !/^channel_|\.ptd$|^transactions|\.lock$|^PersistenceTypeDictionary/.test(n))).toEqual([]);
  });
});
