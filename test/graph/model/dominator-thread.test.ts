import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../../src/graph/build/graph-build.js';
import { DominatorService } from '../../../src/graph/dominator-service.js';
import { Adjacency, assembleRows, FORWARD_FLAG } from '../../../src/graph/model/adjacency.js';
import { computeDominators, rememberedDominatorTree } from '../../../src/graph/model/dominator-computation.js';
import { startDominatorTree } from '../../../src/graph/model/dominator-thread.js';
import type { DominatorTree } from '../../../src/graph/model/dominator-tree.js';
import { GraphIndex } from '../../../src/graph/model/graph-index.js';
import { MissingReferences } from '../../../src/graph/model/missing-references.js';
import { NodeIds } from '../../../src/graph/model/node-ids.js';
import { computeReachability } from '../../../src/graph/model/reachability.js';
import { SupersededRecords } from '../../../src/graph/model/superseded-records.js';
import { NOT_STORED, TypeTable } from '../../../src/graph/model/type-table.js';
import { parseTypeDictionary } from '../../../src/format/type-dictionary.js';
import { ObjectIndex } from '../../../src/storage/index/object-index.js';
import { Storage, type StorageChannel } from '../../../src/storage/storage.js';
import { CORPORA } from '../../helpers/corpora/conformance.js';
import { prng } from '../../helpers/corpora/prng.js';

/**
 * The dominator tree computed in a worker thread (dominator-thread.ts) is the tree computed in
 * place, node for node (immediate dominator, retained objects and bytes), on a generated graph in
 * shared memory and on the corpus storages built with threads; a failure in the thread is the
 * caller's error; graphs the thread cannot read are computed in place.
 */

function expectSameTrees(graph: GraphIndex, got: DominatorTree, want: DominatorTree, label: string): void {
  expect(got.graphVersion, label).toBe(want.graphVersion);
  expect(got.nodeCount, label).toBe(want.nodeCount);
  expect(got.rootsNode, label).toBe(want.rootsNode);
  const differing: number[] = [];
  for (let v = 0; v < graph.nodeCount; v++) {
    if (got.immediateDominator(v) !== want.immediateDominator(v) || got.retainedObjects(v) !== want.retainedObjects(v) || got.retainedBytes(v) !== want.retainedBytes(v)) differing.push(v);
  }
  expect(differing.slice(0, 10), `${label}: nodes whose figures differ`).toEqual([]);
}

function toShared<T extends Uint32Array | Uint16Array>(array: T): T {
  const copy = new (array.constructor as new (buffer: SharedArrayBuffer) => T)(new SharedArrayBuffer(array.byteLength));
  copy.set(array);
  return copy;
}

/** A random graph of `n` nodes (some not stored), its arrays in shared memory when `shared`. */
function randomGraph(seed: number, n: number, shared: boolean): { graph: GraphIndex; channels: Pick<StorageChannel, 'objects'>[] } {
  const random = prng(seed);
  const unstored = new Set(Array.from({ length: 20 }, () => Math.floor(random() * n)));
  const forward = Array.from({ length: n }, (_, v) => (unstored.has(v) ? [] : Array.from({ length: Math.floor(random() * 2.2) }, () => Math.floor(random() * n))));
  // Most nodes also hang below an earlier one (a node's earlier referrer: a tree with shortcuts).
  for (let v = 1; v < n; v++) if (random() < 0.8) forward[Math.floor(random() * v)]!.push(v);
  for (const v of unstored) forward[v] = [];
  for (let v = 0; v < n; v++) forward[v] = [...new Set(forward[v])].sort((a, b) => a - b);
  const index = new ObjectIndex();
  const numbering = new ObjectIndex();
  for (let v = 0; v < n; v++) {
    numbering.set(v + 1, 0, 0, 0, 24);
    // Lengths up to 3 GB, so that the retained bytes of the nodes near the roots pass 2^32.
    if (!unstored.has(v)) index.set(v + 1, 0, 0, v * 1000, 24 + Math.floor(random() * (v % 1000 === 0 ? 3e9 : 500)));
  }
  const nodes = NodeIds.fromChannels([{ objects: numbering } as unknown as StorageChannel]);
  const degrees = new Uint32Array(n + 1);
  for (let v = 0; v < n; v++) {
    degrees[v] = degrees[v]! + forward[v]!.length;
    for (const u of forward[v]!) degrees[u] = degrees[u]! + 1;
  }
  const built = assembleRows(
    n,
    degrees,
    (v, rows, at) => {
      for (const u of forward[v]!) rows[at++] = (u | FORWARD_FLAG) >>> 0;
      return at;
    },
    new Uint32Array(n),
  );
  const adjacency = shared ? new Adjacency(toShared(built.baseRowStart), toShared(built.baseRows), n) : built;
  const types = shared ? new Uint16Array(new SharedArrayBuffer(2 * n)) : new Uint16Array(n);
  for (const v of unstored) types[v] = NOT_STORED;
  const roots = [...Array(n).keys()].find((v) => !unstored.has(v))!;
  const graph = new GraphIndex(nodes, new TypeTable(parseTypeDictionary('')), types, adjacency, new Uint8Array(Math.ceil(n / 8)), new MissingReferences(), new SupersededRecords(), roots);
  computeReachability(graph);
  return { graph, channels: [{ objects: index }] };
}

describe('the dominator tree in a worker thread', () => {
  it('is the tree computed in place, on a generated graph in shared memory', { timeout: 60_000 }, async () => {
    const { graph, channels } = randomGraph(11, 60_000, true);
    const want = computeDominators(graph, channels);
    expect(want.reachableObjects).toBeGreaterThan(10_000);
    expect(want.reachableBytes).toBeGreaterThan(2 ** 32);
    const underWay = startDominatorTree(graph, channels, { thread: true });
    expect(underWay.inThread).toBe(true);
    try {
      const got = await underWay.take();
      expectSameTrees(graph, got, want, 'generated');
      // Remembered as the graph's tree: the next pass takes it without computing.
      expect(rememberedDominatorTree(graph)).toBe(got);
      const again = startDominatorTree(graph, channels, { thread: true });
      expect(again.inThread).toBe(false);
      expect(await again.take()).toBe(got);
    } finally {
      await underWay.stop();
    }
  });

  it('is computed in place for a graph whose arrays are not shared', async () => {
    const { graph, channels } = randomGraph(12, 2_000, false);
    const underWay = startDominatorTree(graph, channels, { thread: true });
    expect(underWay.inThread).toBe(false);
    expectSameTrees(graph, await underWay.take(), computeDominators(graph, channels), 'unshared');
  });

  it("reports the thread's failure as the caller's error", { timeout: 60_000 }, async () => {
    const { graph, channels } = randomGraph(13, 5_000, true);
    // Type numbers for fewer nodes than the graph has: the thread refuses the input.
    graph.typeOfNode = new Uint16Array(new SharedArrayBuffer(2 * 100));
    const underWay = startDominatorTree(graph, channels, { thread: true });
    expect(underWay.inThread).toBe(true);
    try {
      await expect(underWay.take()).rejects.toThrow('dominator thread: 100 type numbers for 5000 nodes');
      expect(rememberedDominatorTree(graph)).toBeUndefined();
    } finally {
      await underWay.stop();
    }
  });

  it("the background service's tree: computed in the thread, the same; the thread's failure is the service's", { timeout: 60_000 }, async () => {
    const { graph, channels } = randomGraph(14, 30_000, true);
    const want = computeDominators(graph, channels);
    const storage = { channels: channels as StorageChannel[], generation: 1, consistent: <T>(fn: () => Promise<T>): Promise<T> => fn() };
    const service = new DominatorService(storage, { dominatorThread: true });
    try {
      service.follow(graph);
      expectSameTrees(graph, await service.ready(), want, 'service');
      expect(rememberedDominatorTree(graph)).toBe(service.treeOf(graph));
    } finally {
      service.close();
    }
    const broken = randomGraph(15, 5_000, true);
    broken.graph.typeOfNode = new Uint16Array(new SharedArrayBuffer(2 * 100));
    const failing = new DominatorService({ ...storage, channels: broken.channels as StorageChannel[] }, { dominatorThread: true });
    try {
      failing.follow(broken.graph);
      await expect(failing.ready()).rejects.toThrow('dominator thread: 100 type numbers for 5000 nodes');
      expect(failing.state.kind).toBe('failed');
    } finally {
      failing.close();
    }
  });

  it("the service ends a thread whose tree went stale (a change taken over, the index rebuilt, closed) at once, not when it is done", { timeout: 60_000 }, async () => {
    const { graph, channels } = randomGraph(16, 30_000, true);
    const index = channels[0]!.objects;
    // The snapshots the threads read, counted: a thread's end releases its snapshots.
    let taken = 0;
    let released = 0;
    let started: () => void = () => undefined;
    const watched = [
      {
        objects: {
          snapshot: () => {
            const snapshot = index.snapshot();
            taken++;
            started();
            return { parts: snapshot.parts, release: () => (released++, snapshot.release()) };
          },
        },
      },
    ];
    const threadStarted = (): Promise<void> => new Promise<void>((resolve) => (started = resolve));
    const storage = { channels: watched as unknown as StorageChannel[], generation: 1, consistent: <T>(fn: () => Promise<T>): Promise<T> => fn() };
    const service = new DominatorService(storage, { dominatorThread: true });
    try {
      let next = threadStarted();
      service.follow(graph);
      await next;
      // The thread has not answered yet: its start-up alone takes longer than these turns.
      expect([taken, released]).toEqual([1, 0]);
      // A commit taken over: the running thread's tree is stale, its thread ended now.
      next = threadStarted();
      graph.version++;
      service.follow(graph);
      expect(released, 'stale thread ended when the change was taken over').toBe(1);
      await next;
      expect([taken, released]).toEqual([2, 1]);
      // The index built again (a rebuilding change): the thread is ended at once too.
      service.reset();
      expect(released, 'stale thread ended when the index is rebuilt').toBe(2);
      next = threadStarted();
      service.follow(graph);
      await next;
      expect([taken, released]).toEqual([3, 2]);
      expectSameTrees(graph, await service.ready(), computeDominators(graph, channels), 'after the changes');
      expect(released).toBe(3);
      // Closed (the storage removed from a served registry, the process ending) while a thread runs.
      next = threadStarted();
      graph.version++;
      service.follow(graph);
      await next;
      service.close();
      expect([taken, released], 'thread ended when the service is closed').toEqual([4, 4]);
    } finally {
      service.close();
    }
  });

  for (const corpus of CORPORA) {
    for (const name of corpus.storages) {
      it(`is the tree computed in place: ${corpus.generation} ${name}`, { timeout: 60_000 }, async () => {
        const storage = await Storage.open(join(corpus.dir, 'storages', name));
        try {
          // Built with its threads: the rows and type numbers in shared memory.
          const { graph } = await buildGraph(storage, { threads: true });
          const want = computeDominators(graph, storage.channels);
          const underWay = startDominatorTree(graph, storage.channels, { thread: true });
          expect(underWay.inThread, 'computed in a thread').toBe(true);
          try {
            expectSameTrees(graph, await underWay.take(), want, name);
          } finally {
            await underWay.stop();
          }
        } finally {
          await storage.close();
        }
      });
    }
  }
});
