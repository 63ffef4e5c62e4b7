import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { StorageFollower } from '../../../src/storage/follow/follow.js';
import { ModelStorage, writeModelStorage } from '../../graph/model-storage.js';
import { graphsBuilt, registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * The API of a followed storage: commits written while it is served change referrers, paths,
 * reachability, garbage and versions without a rebuild of the graph index.
 */
describe('/api/v1 while following commits', () => {
  let base: string;
  let dir: string;
  let model: ModelStorage;
  let ids: Record<string, bigint>;
  let registered: RegisteredStorage;
  let follower: StorageFollower;
  let app: ReturnType<typeof buildApp>;

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'api-follow-'));
    dir = join(base, 'storage');
    ({ model, ids } = writeModelStorage(dir));
    registered = await registeredStorage(dir);
    follower = new StorageFollower(registered.storage, { pollIntervalMs: 1_000_000 });
    app = buildApp(registered.storage, { instance: 'microstream', api: registered.registry });
    await graphsBuilt(registered.registry);
  });
  afterAll(async () => {
    await follower.stop();
    await app.close();
    await registered.close();
    rmSync(base, { recursive: true, force: true });
  });

  const get = async <T>(url: string): Promise<T> => (await app.inject(url)).json() as T;
  const referrersOf = async (id: bigint) => (await get<{ referrers: { objectId: string }[] }>(`/api/v1/objects/${id}/referrers`)).referrers.map((r) => r.objectId);
  const reachable = async (id: bigint) => (await get<{ reachable: boolean }>(`/api/v1/objects/${id}/paths`)).reachable;

  async function commit(change: (writer: ModelStorage) => void): Promise<void> {
    const writer = await ModelStorage.reopen(dir, model);
    change(writer);
    writer.commit();
    writer.close();
    model = writer;
    await follower.refreshNow();
  }

  it('sees references removed and added, reachability lost and regained, new versions', async () => {
    const { b, c, list, d } = ids as Record<string, bigint>;
    const buildMs = (await get<{ graph: { buildMs: number } }>('/api/v1/storage')).graph.buildMs;
    expect(await referrersOf(c!)).toEqual([String(b), String(list)]);
    const garbageBefore = (await get<{ unreachable: { count: number } }>('/api/v1/analysis')).unreachable.count;

    // b forgets c and the list drops c: c (and its name) become garbage.
    await commit((w) => {
      w.putNode({ name: 'b' }, b!);
      w.putList([b!, ids.hole!, ids.map!], list!);
    });
    expect(await referrersOf(c!)).toEqual([]);
    expect(await reachable(c!)).toBe(false);
    const analysis = await get<{ unreachable: { count: number } }>('/api/v1/analysis');
    expect(analysis.unreachable.count).toBeGreaterThan(garbageBefore);

    // d (reachable through the root's Lazy) now refers to a new node e, which refers to c.
    let e = 0n;
    await commit((w) => {
      e = w.putNode({ name: 'e', next: c! });
      w.putNode({ name: 'd', next: e }, d!);
    });
    expect(await referrersOf(c!)).toEqual([String(e)]);
    const paths = await get<{ reachable: boolean; paths: { objectId: string; via: { text: string } | null }[][] }>(`/api/v1/objects/${c}/paths`);
    expect(paths.reachable).toBe(true);
    // The Lazy holding d is no step of its own: d is reached through the member holding the Lazy.
    expect(paths.paths[0]!.slice(-3).map((s) => [s.objectId, s.via?.text])).toEqual([
      [String(d), 'lazy'],
      [String(e), 'next'],
      [String(c), 'next'],
    ]);
    const versions = await get<{ total: number }>(`/api/v1/objects/${d}/versions`);
    expect(versions.total).toBe(2);
    // Taken over incrementally: the index was not built again.
    const info = await get<{ generation: number; graph: { state: string; buildMs: number } }>('/api/v1/storage');
    expect(info.graph).toMatchObject({ state: 'ready', buildMs });
    expect(info.generation).toBe(3);
  });
});
