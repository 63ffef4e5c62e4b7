import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build/graph-build.js';
import { computeFigures } from '../../src/graph/queries/graph-figures.js';
import type { GraphIndex } from '../../src/graph/model/graph-index.js';
import { GraphService } from '../../src/graph/graph-service.js';
import { shortestPaths } from '../../src/graph/queries/shortest-paths.js';
import { Storage } from '../../src/storage/storage.js';
import { ModelStorage, writeModelStorage } from './model-storage.js';

/**
 * A storage with deliberate garbage (a garbage cycle, garbage referring to live objects), missing
 * ids (one inside the id range, one far outside) and several versions per object, whose expected
 * graph is known from the model that wrote it; then commits that remove and add references while
 * the graph follows, each checked against the model and against a graph built from scratch.
 */

interface Expected {
  reachable: Set<bigint>;
  /** Path length (steps) from the roots entity for reachable model objects. */
  depth: Map<bigint, number>;
  referrers: Map<bigint, Set<bigint>>;
}

function expectedOf(model: ModelStorage, stored: ReadonlySet<bigint>): Expected {
  const referrers = new Map<bigint, Set<bigint>>();
  for (const [id, o] of model.objects) {
    for (const r of o.refs) {
      if (!referrers.has(r)) referrers.set(r, new Set());
      referrers.get(r)!.add(id);
    }
  }
  // Built-in objects hang off the roots entity directly; the root is two steps away (roots → root reference → root).
  const depth = new Map<bigint, number>([[model.rootObjectId, 2]]);
  const queue = [model.rootObjectId];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const r of model.objects.get(v)?.refs ?? []) {
      if (!stored.has(r) || depth.has(r)) continue;
      depth.set(r, depth.get(v)! + 1);
      queue.push(r);
    }
  }
  const reachable = new Set(depth.keys());
  for (const id of stored) if (!model.objects.has(id)) reachable.add(id); // built-ins
  return { reachable, depth, referrers };
}

function storedIds(storage: Storage): Set<bigint> {
  const ids = new Set<bigint>();
  for (const c of storage.channels) c.objects.forEach((low, high) => ids.add((BigInt(high) << 32n) | BigInt(low)));
  return ids;
}

function idsOf(graph: GraphIndex, nodes: Iterable<number>): bigint[] {
  return [...nodes].map((n) => graph.nodes.idOf(n)).sort((a, b) => (a < b ? -1 : 1));
}

function checkAgainstModel(graph: GraphIndex, storage: Storage, model: ModelStorage): void {
  const stored = storedIds(storage);
  const expected = expectedOf(model, stored);
  for (const id of stored) {
    const node = graph.nodes.nodeOfId(id);
    expect(node, `node of ${id}`).toBeGreaterThanOrEqual(0);
    expect(graph.isReachable(node), `reachability of ${id}`).toBe(expected.reachable.has(id));
    const o = model.objects.get(id);
    if (o === undefined) continue;
    const forward = idsOf(graph, graph.adjacency.forward(node));
    const want = [...new Set(o.refs.filter((r) => stored.has(r)))].sort((a, b) => (a < b ? -1 : 1));
    expect(forward, `forward references of ${id}`).toEqual(want);
    const referrers = idsOf(graph, graph.adjacency.referrers(node, 0, 1e9));
    const wantReferrers = [...(expected.referrers.get(id) ?? [])].filter((r) => stored.has(r)).sort((a, b) => (a < b ? -1 : 1));
    // Built-in objects (root reference) also refer to model objects: compare the model's part.
    expect(referrers.filter((r) => model.objects.has(r)), `referrers of ${id}`).toEqual(wantReferrers);
    const depth = expected.depth.get(id);
    const paths = shortestPaths(graph, node, 3);
    expect(paths.reachable).toBe(depth !== undefined);
    if (depth !== undefined) {
      expect(paths.paths.length).toBeGreaterThan(0);
      for (const path of paths.paths) {
        expect(path.length - 1, `path length to ${id}`).toBe(depth);
        expect(path[0]).toBe(graph.rootsNode);
        expect(path.at(-1)).toBe(node);
      }
    }
  }
  // Missing: referenced ids that are neither stored nor JDK constants.
  const missing = new Map<bigint, bigint[]>();
  graph.missing.forEachId((id, sources) => void missing.set(id, idsOf(graph, sources)));
  const wantMissing = new Map<bigint, bigint[]>();
  for (const [id, o] of model.objects) {
    for (const r of new Set(o.refs)) {
      if (stored.has(r)) continue;
      wantMissing.set(r, [...(wantMissing.get(r) ?? []), id].sort((a, b) => (a < b ? -1 : 1)));
    }
  }
  expect(missing).toEqual(wantMissing);
  // Garbage by type, counts and bytes.
  const figures = computeFigures(graph, storage.channels);
  const garbage = new Map<string, { count: number; bytes: number }>();
  for (const t of figures.types) {
    if (t.instances > t.reachable) garbage.set(graph.types.nameOf(t.type), { count: t.instances - t.reachable, bytes: t.bytes - t.reachableBytes });
  }
  const wantGarbage = new Map<string, { count: number; bytes: number }>();
  for (const [id, o] of model.objects) {
    if (expected.reachable.has(id)) continue;
    const g = wantGarbage.get(o.typeName) ?? { count: 0, bytes: 0 };
    wantGarbage.set(o.typeName, { count: g.count + 1, bytes: g.bytes + o.bytes });
  }
  expect(garbage).toEqual(wantGarbage);
  // Older versions: every record but the latest.
  for (const [id, records] of model.records) expect(graph.superseded.of(graph.nodes.nodeOfId(id)).length, `versions of ${id}`).toBe(records - 1);
}

/** The followed graph equals one built from scratch: same edges, types, reachability, missing ids. */
async function checkAgainstRebuild(graph: GraphIndex, storage: Storage): Promise<void> {
  const fresh = (await buildGraph(storage)).graph;
  expect(graph.nodeCount).toBe(fresh.nodeCount);
  for (let v = 0; v < fresh.nodeCount; v++) {
    const id = fresh.nodes.idOf(v);
    const w = graph.nodes.nodeOfId(id);
    expect(graph.typeOf(w)).toBe(fresh.typeOf(v));
    expect(graph.isReachable(w), `reachability of ${id}`).toBe(fresh.isReachable(v));
    expect(idsOf(graph, graph.adjacency.forward(w))).toEqual(idsOf(fresh, fresh.adjacency.forward(v)));
    expect(idsOf(graph, graph.adjacency.referrers(w, 0, 1e9))).toEqual(idsOf(fresh, fresh.adjacency.referrers(v, 0, 1e9)));
  }
  expect(graph.missing.distinctIds()).toBe(fresh.missing.distinctIds());
}

describe('graph of a storage with known garbage, missing ids and versions', () => {
  let base: string;
  let dir: string;
  let model: ModelStorage;
  const ids: Record<string, bigint> = {};

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'graph-model-'));
    dir = join(base, 'storage');
    const written = writeModelStorage(dir);
    model = written.model;
    Object.assign(ids, written.ids);
  });

  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('answers reachability, references, missing ids, garbage and versions as constructed', async () => {
    const storage = await Storage.open(dir);
    try {
      const { graph, problemCount } = await buildGraph(storage);
      expect(problemCount).toBe(0);
      checkAgainstModel(graph, storage, model);
      expect(graph.isReachable(graph.nodes.nodeOfId(ids.g3!))).toBe(false);
      expect(graph.superseded.of(graph.nodes.nodeOfId(ids.a!))).toHaveLength(1);
    } finally {
      await storage.close();
    }
  });

  it('follows commits that remove and add references', async () => {
    const storage = await Storage.open(dir);
    const service = new GraphService(storage);
    try {
      const graph = await service.ready();
      const list = ids.list!;
      const c = ids.c!;
      const b = ids.b!;

      // b no longer points at c: c stays reachable through the list.
      let writer = await ModelStorage.reopen(dir, model);
      writer.putNode({ name: 'b' }, b);
      writer.commit();
      writer.close();
      await storage.refresh();
      checkAgainstModel(graph, storage, writer);
      expect(graph.isReachable(graph.nodes.nodeOfId(c))).toBe(true);
      await checkAgainstRebuild(graph, storage);

      // The list drops c: c (and its name) become garbage; a new node is added under the root.
      writer = await ModelStorage.reopen(dir, writer);
      writer.putList([b, ids.hole!, ids.map!], list);
      const e = writer.putNode({ name: 'e', next: c });
      writer.putNode({ name: 'g1 again', next: ids.a! }, ids.g1!);
      writer.putNode({ name: 'root', next: ids.a!, children: list, lazy: ids.lazy!, weight: 1 }, ids.root!);
      writer.putNode({ name: 'd', next: e }, ids.d!);
      writer.commit();
      writer.close();
      await storage.refresh();
      checkAgainstModel(graph, storage, writer);
      expect(graph.isReachable(graph.nodes.nodeOfId(c))).toBe(true); // through d → e → c now
      await checkAgainstRebuild(graph, storage);

      // Cut d → e: e and c become garbage.
      writer = await ModelStorage.reopen(dir, writer);
      writer.putNode({ name: 'd' }, ids.d!);
      writer.commit();
      writer.close();
      await storage.refresh();
      checkAgainstModel(graph, storage, writer);
      expect(graph.isReachable(graph.nodes.nodeOfId(c))).toBe(false);
      expect(graph.isReachable(graph.nodes.nodeOfId(e))).toBe(false);
      await checkAgainstRebuild(graph, storage);
    } finally {
      service.close();
      await storage.close();
    }
  });
});
