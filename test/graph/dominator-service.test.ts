import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build/graph-build.js';
import { DominatorService } from '../../src/graph/dominator-service.js';
import { GraphService } from '../../src/graph/graph-service.js';
import { dominatorTreeOf } from '../../src/graph/model/dominator-computation.js';
import { dominatorsSettled } from '../../src/graph/model/dominators-under-way.js';
import type { DominatorTree } from '../../src/graph/model/dominator-tree.js';
import type { GraphIndex } from '../../src/graph/model/graph-index.js';
import { Storage } from '../../src/storage/storage.js';
import { referenceDominators } from './dominator-reference.js';
import { ModelStorage, writeModelStorage } from './model-storage.js';

/**
 * The dominator tree computed in the background once the graph index is ready, and again after
 * each commit a followed storage takes over: always the tree of the graph's current state.
 */

function expectAsDefined(graph: GraphIndex, storage: Storage, tree: DominatorTree): void {
  const want = referenceDominators(graph, storage.channels);
  expect(tree.graphVersion).toBe(graph.version);
  for (let v = 0; v < graph.nodeCount; v++) {
    expect(tree.immediateDominator(v), `idom of ${graph.nodes.idOf(v)}`).toBe(want.idom[v]);
    expect(tree.retainedObjects(v)).toBe(want.retainedObjects[v]);
    expect(tree.retainedBytes(v)).toBe(want.retainedBytes[v]);
  }
}

describe('dominator tree of a served storage', () => {
  let base: string;
  let dir: string;
  let model: ModelStorage;
  const ids: Record<string, bigint> = {};

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'dominators-'));
    dir = join(base, 'storage');
    const written = writeModelStorage(dir);
    model = written.model;
    Object.assign(ids, written.ids);
  });

  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('is computed after the build and again after every commit taken over', async () => {
    const storage = await Storage.open(dir);
    const ready: number[] = [];
    const service = new GraphService(storage, { onDominatorsReady: (tree) => ready.push(tree.graphVersion) });
    try {
      const graph = await service.ready();
      let tree = await service.dominators.ready();
      expect(service.dominators.state.kind).toBe('ready');
      expect(service.dominators.treeOf(graph)).toBe(tree);
      expectAsDefined(graph, storage, tree);
      const node = (id: bigint): number => graph.nodes.nodeOfId(id);
      // d is held only through the Lazy reference, which the root holds.
      expect(tree.immediateDominator(node(ids.d!))).toBe(node(ids.lazy!));
      expect(tree.immediateDominator(node(ids.lazy!))).toBe(node(ids.root!));
      expect(tree.isReachable(node(ids.g1!))).toBe(false);
      expect(tree.retainedBytes(node(ids.lazy!))).toBe(model.objects.get(ids.lazy!)!.bytes + tree.retainedBytes(node(ids.d!)));

      // The root refers to d directly too: the Lazy no longer dominates it.
      const writer = await ModelStorage.reopen(dir, model);
      writer.putNode({ name: 'root', next: ids.d!, children: ids.list!, lazy: ids.lazy! }, ids.root!);
      writer.commit();
      writer.close();
      await storage.refresh();
      expect(service.dominators.treeOf(graph)).toBeUndefined();
      tree = await service.dominators.ready();
      expectAsDefined(graph, storage, tree);
      expect(tree.immediateDominator(node(ids.d!))).toBe(node(ids.root!));
      expect(tree.retainedObjects(node(ids.lazy!))).toBe(1);
      expect(tree.isReachable(node(ids.a!))).toBe(false);
      expect(ready).toEqual([0, graph.version]);
    } finally {
      service.close();
      await storage.close();
    }
  });
});

describe('a pass that needs the tree while the background computes it', () => {
  let base: string;
  let dir: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'dominators-under-way-'));
    dir = join(base, 'storage');
    writeModelStorage(dir);
  });

  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('waits for that computation and takes its tree: the tree is computed once', async () => {
    const storage = await Storage.open(dir);
    const { graph } = await buildGraph(storage);
    // The background's slices held at the storage's gate until the test lets them through.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const gate = { channels: storage.channels, get generation() { return storage.generation; }, consistent: <T>(fn: () => Promise<T>): Promise<T> => held.then(() => storage.consistent(fn)) };
    const service = new DominatorService(gate);
    try {
      service.follow(graph);
      const settled = dominatorsSettled(graph);
      // Still computing (held at the gate): after a turn of the event loop the pass still waits.
      expect(await Promise.race([settled.then(() => 'settled'), new Promise((resolve) => setImmediate(() => resolve('computing')))])).toBe('computing');
      release();
      await settled;
      const state = service.state;
      expect(state.kind).toBe('ready');
      // `_objects`' pass (sql/fills/object-rows.ts) asks for the tree this way: the background's tree, not a second one.
      const tree = dominatorTreeOf(graph, storage.channels);
      expect(state.kind === 'ready' && state.tree).toBe(tree);
      expectAsDefined(graph, storage, tree);
      // Nothing under way any more: a later pass goes on at once.
      expect(await Promise.race([dominatorsSettled(graph).then(() => 'settled'), new Promise((resolve) => setImmediate(() => resolve('waiting')))])).toBe('settled');
    } finally {
      service.close();
      await storage.close();
    }
  });

  it('does not wait for a service closed before its tree was computed', async () => {
    const storage = await Storage.open(dir);
    const { graph } = await buildGraph(storage);
    const gate = { channels: storage.channels, generation: storage.generation, consistent: <T>(): Promise<T> => new Promise<T>(() => undefined) };
    const service = new DominatorService(gate);
    service.follow(graph);
    const settled = dominatorsSettled(graph);
    service.close();
    await settled;
    await storage.close();
  });
});

describe('a change taken over just as a computation ends', () => {
  let base: string;
  let dir: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'dominators-follow-gap-'));
    dir = join(base, 'storage');
    writeModelStorage(dir);
  });

  afterAll(() => rmSync(base, { recursive: true, force: true }));

  // A followed storage's commit reaches follow() whenever its change has been applied to the
  // index (graph-service.ts), so it can arrive in the few microtask turns between the loop's last
  // tree and the loop's end. Each offset is tried: the new state must be computed every time, and
  // a pass waiting for it (`_objects`, dominators-under-way.ts) must be let go.
  it('computes the new state whichever microtask turn the follow arrives in', async () => {
    const storage = await Storage.open(dir);
    const { graph } = await buildGraph(storage);
    const outcomes: unknown[] = [];
    const wanted: unknown[] = [];
    try {
      for (let offset = 0; offset <= 12; offset++) {
        let followed = false;
        const service = new DominatorService(storage, {
          onDominatorsReady: () => {
            if (followed) return;
            followed = true;
            let chain = Promise.resolve();
            for (let hop = 0; hop < offset; hop++) chain = chain.then(() => undefined);
            void chain.then(() => {
              // What applyStorageChange does to the index (graph-follow.ts): a new state.
              graph.version++;
              service.follow(graph);
            });
          },
        });
        try {
          service.follow(graph);
          // Waits for a state, in turns of the event loop (each slice of the tiny graph takes one).
          let settled = false;
          for (let turn = 0; turn < 200; turn++) {
            await new Promise((resolve) => setImmediate(resolve));
            if (!followed) continue;
            const state = service.state;
            if (state.kind === 'ready' && state.tree.graphVersion === graph.version) {
              settled = await Promise.race([dominatorsSettled(graph).then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);
              break;
            }
          }
          const state = service.state;
          outcomes.push({ offset, kind: state.kind, version: state.kind === 'ready' ? state.tree.graphVersion : undefined, settled, treeOf: service.treeOf(graph)?.graphVersion });
          wanted.push({ offset, kind: 'ready', version: graph.version, settled: true, treeOf: graph.version });
        } finally {
          service.close();
        }
      }
      expect(outcomes).toEqual(wanted);
    } finally {
      await storage.close();
    }
  });
});

describe('a computation that fails', () => {
  let base: string;
  let dir: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'dominators-failed-'));
    dir = join(base, 'storage');
    writeModelStorage(dir);
  });

  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('rejects its waiters and lets a waiting pass go on (it then computes the tree itself)', async () => {
    const storage = await Storage.open(dir);
    const { graph } = await buildGraph(storage);
    const failure = new Error('the storage could not be read');
    const failed: unknown[] = [];
    const gate = { channels: storage.channels, generation: storage.generation, consistent: <T>(): Promise<T> => Promise.reject(failure) };
    const service = new DominatorService(gate, { onDominatorsFailed: (error) => failed.push(error) });
    try {
      service.follow(graph);
      const settled = dominatorsSettled(graph);
      await expect(service.ready()).rejects.toBe(failure);
      await settled;
      expect(service.state).toEqual({ kind: 'failed', error: failure });
      expect(failed).toEqual([failure]);
      await expect(service.ready()).rejects.toBe(failure);
    } finally {
      service.close();
      await storage.close();
    }
  });
});
