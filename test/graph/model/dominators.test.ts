import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../../src/graph/build/graph-build.js';
import { assembleRows, FORWARD_FLAG } from '../../../src/graph/model/adjacency.js';
import { computeDominators, dominatorSteps } from '../../../src/graph/model/dominator-computation.js';
import { DominatorTree, NO_DOMINATOR } from '../../../src/graph/model/dominator-tree.js';
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
import { referenceDominators } from '../dominator-reference.js';

/**
 * The dominator tree (Semi-NCA) on crafted graphs whose trees are known by hand, on random
 * graphs and on every corpus storage against the plain data-flow definition
 * (dominator-reference.ts): immediate dominators, retained objects and bytes identical.
 */

/** Record length of node v in the crafted graphs: distinct per node, so sums tell which nodes. */
const bytesOf = (v: number): number => 24 + 8 * v;

interface Crafted {
  readonly graph: GraphIndex;
  readonly channels: Pick<StorageChannel, 'objects'>[];
}

function crafted(forward: number[][], rootsNode: number, unstored: readonly number[] = []): Crafted {
  const n = forward.length;
  const index = new ObjectIndex();
  for (let v = 0; v < n; v++) if (!unstored.includes(v)) index.set(v + 1, 0, 0, v * 1000, bytesOf(v));
  const channels = [{ objects: index }];
  // Numbering covers every id, the unstored ones too (they are referenced).
  const numbering = new ObjectIndex();
  for (let v = 0; v < n; v++) numbering.set(v + 1, 0, 0, 0, 24);
  const nodes = NodeIds.fromChannels([{ objects: numbering } as unknown as StorageChannel]);
  const degrees = new Uint32Array(n + 1);
  const sorted = forward.map((targets) => [...new Set(targets)].sort((a, b) => a - b));
  for (let v = 0; v < n; v++) {
    degrees[v] = degrees[v]! + sorted[v]!.length;
    for (const u of sorted[v]!) degrees[u] = degrees[u]! + 1;
  }
  const adjacency = assembleRows(
    n,
    degrees,
    (v, rows, at) => {
      for (const u of sorted[v]!) rows[at++] = (u | FORWARD_FLAG) >>> 0;
      return at;
    },
    new Uint32Array(n),
  );
  const types = new Uint16Array(n);
  for (const v of unstored) types[v] = NOT_STORED;
  const graph = new GraphIndex(nodes, new TypeTable(parseTypeDictionary('')), types, adjacency, new Uint8Array(Math.ceil(n / 8)), new MissingReferences(), new SupersededRecords(), rootsNode);
  computeReachability(graph);
  return { graph, channels };
}

function idoms(tree: DominatorTree, n: number): number[] {
  return Array.from({ length: n }, (_, v) => tree.immediateDominator(v));
}

function sumBytes(nodes: readonly number[]): number {
  return nodes.reduce((s, v) => s + bytesOf(v), 0);
}

function expectSameAsReference(graph: GraphIndex, channels: readonly Pick<StorageChannel, 'objects'>[], tree: DominatorTree, label: string): void {
  const want = referenceDominators(graph, channels);
  for (let v = 0; v < graph.nodeCount; v++) {
    expect(tree.immediateDominator(v), `${label}: idom of node ${v}`).toBe(want.idom[v]);
    expect(tree.retainedObjects(v), `${label}: retained objects of node ${v}`).toBe(want.retainedObjects[v]);
    expect(tree.retainedBytes(v), `${label}: retained bytes of node ${v}`).toBe(want.retainedBytes[v]);
  }
}

describe('dominator tree of crafted graphs', () => {
  it('a diamond: the join is dominated by the fork, not by either side', () => {
    // 0 roots → 1, 2; 1 → 3; 2 → 3; 3 → 4
    const { graph, channels } = crafted([[1, 2], [3], [3], [4], []], 0);
    const tree = computeDominators(graph, channels);
    expect(idoms(tree, 5)).toEqual([-1, 0, 0, 0, 3]);
    expect([0, 1, 2, 3, 4].map((v) => tree.retainedObjects(v))).toEqual([5, 1, 1, 2, 1]);
    expect(tree.retainedBytes(3)).toBe(sumBytes([3, 4]));
    expect(tree.retainedBytes(0)).toBe(sumBytes([0, 1, 2, 3, 4]));
    expect(tree.reachableBytes).toBe(sumBytes([0, 1, 2, 3, 4]));
  });

  it('a cycle: entered once, each member dominates the next; a way out hangs below the last', () => {
    // 0 → 1 → 2 → 3 → 1, 3 → 4
    const { graph, channels } = crafted([[1], [2], [3], [1, 4], []], 0);
    const tree = computeDominators(graph, channels);
    expect(idoms(tree, 5)).toEqual([-1, 0, 1, 2, 3]);
    expect(tree.retainedObjects(1)).toBe(4);
    expect(tree.retainedBytes(2)).toBe(sumBytes([2, 3, 4]));
  });

  it('a cycle entered twice: nothing in it dominates another member', () => {
    // 0 → 1, 0 → 2, 1 ⇄ 2, 2 → 3
    const { graph, channels } = crafted([[1, 2], [2], [1, 3], []], 0);
    const tree = computeDominators(graph, channels);
    expect(idoms(tree, 4)).toEqual([-1, 0, 0, 2]);
    expect(tree.retainedObjects(1)).toBe(1);
  });

  it('a self-reference changes nothing', () => {
    // 0 → 1, 1 → 1, 1 → 2, 2 → 2
    const { graph, channels } = crafted([[1], [1, 2], [2]], 0);
    const tree = computeDominators(graph, channels);
    expect(idoms(tree, 3)).toEqual([-1, 0, 1]);
    expect(tree.retainedObjects(1)).toBe(2);
    expect(tree.retainedBytes(1)).toBe(sumBytes([1, 2]));
  });

  it('an unreachable island: no dominator, no retained size, its references into the graph count for nothing', () => {
    // 0 → 1 → 2; island 3 ⇄ 4, 4 → 2 (an unreachable referrer of 2)
    const { graph, channels } = crafted([[1], [2], [], [4], [3, 2]], 0);
    const tree = computeDominators(graph, channels);
    expect(idoms(tree, 5)).toEqual([-1, 0, 1, -1, -1]);
    expect(tree.retainedObjects(3)).toBe(0);
    expect(tree.retainedBytes(4)).toBe(0);
    expect(tree.isReachable(3)).toBe(false);
    expect(tree.retainedObjects(0)).toBe(3);
    expect(tree.reachableBytes).toBe(sumBytes([0, 1, 2]));
  });

  it('a Lazy in the way: the Lazy reference dominates what it holds; a second way round it does not', () => {
    // 0 roots → 1 holder → 2 Lazy → 3 subject → 4; 0 → 5 → 6 Lazy → 7, 5 → 7 (held directly too)
    const { graph, channels } = crafted([[1, 5], [2], [3], [4], [], [6, 7], [7], []], 0);
    const tree = computeDominators(graph, channels);
    expect(idoms(tree, 8)).toEqual([-1, 0, 1, 2, 3, 0, 5, 5]);
    expect(tree.retainedObjects(2)).toBe(3);
    expect(tree.retainedBytes(1)).toBe(sumBytes([1, 2, 3, 4]));
    expect(tree.retainedObjects(6)).toBe(1);
    expect(tree.chain(4, 10)).toEqual([3, 2, 1, 0]);
  });

  it('an object referenced from two roots: dominated by the roots object alone', () => {
    // 0 roots → 1 (root), 2 (a constant); 1 → 3, 2 → 3, 3 → 4
    const { graph, channels } = crafted([[1, 2], [3], [3], [4], []], 0);
    const tree = computeDominators(graph, channels);
    expect(tree.immediateDominator(3)).toBe(0);
    expect(tree.immediateDominator(4)).toBe(3);
    expect(tree.retainedObjects(1)).toBe(1);
    expect(tree.retainedObjects(2)).toBe(1);
  });

  it('a roots object numbered in the middle, references to lower nodes and to objects not stored', () => {
    // roots 4 → 2, 6; 2 → 0 → 1; 6 → 1, 5 (not stored); 5 → 3 would be an edge of an unstored object
    const { graph, channels } = crafted([[1], [], [0], [], [2, 6], [3], [1, 5]], 4, [5]);
    const tree = computeDominators(graph, channels);
    expect(idoms(tree, 7)).toEqual([2, 4, 4, -1, -1, -1, 4]);
    expect(tree.retainedObjects(2)).toBe(2);
    expect(tree.reachableObjects).toBe(5);
    expect(tree.reachableBytes).toBe(sumBytes([0, 1, 2, 4, 6]));
  });

  it('a storage without roots object: nothing reachable', () => {
    const { graph, channels } = crafted([[1], []], -1);
    const tree = computeDominators(graph, channels);
    expect(idoms(tree, 2)).toEqual([-1, -1]);
    expect(tree.reachableObjects).toBe(0);
    expect(tree.top(10).length).toBe(0);
  });

  it('a long chain (deeper than any call stack) and its slices', () => {
    const n = 200_000;
    const forward = Array.from({ length: n }, (_, v) => (v + 1 < n ? [v + 1] : []));
    const { graph, channels } = crafted(forward, 0);
    const steps = dominatorSteps(graph, channels, 1000);
    let slices = 0;
    let step = steps.next();
    for (; step.done !== true; step = steps.next()) slices++;
    const tree = step.value;
    expect(slices).toBeGreaterThan(200);
    expect(tree.immediateDominator(n - 1)).toBe(n - 2);
    expect(tree.retainedObjects(1)).toBe(n - 1);
    expect(tree.retainedBytes(n - 2)).toBe(sumBytes([n - 2, n - 1]));
    expect(tree.depth(n - 1)).toBe(n - 1);
  });

  it('children by retained bytes and the biggest retainers', () => {
    // 0 → 1, 2, 3; 1 → 4; 2 → 5, 6, 7; 3 → 8
    const { graph, channels } = crafted([[1, 2, 3], [4], [5, 6, 7], [8], [], [], [], [], []], 0);
    const tree = computeDominators(graph, channels);
    expect([...tree.children(0)]).toEqual([2, 3, 1]);
    expect([...tree.children(2)]).toEqual([7, 6, 5]);
    expect([...tree.children(8)]).toEqual([]);
    expect([...tree.top(3)]).toEqual([2, 3, 1]);
    expect([...tree.top(100)]).toEqual([2, 3, 1, 8, 7, 6, 5, 4]);
  });
});

describe('retained bytes of 4 GiB and more', () => {
  it('are kept exactly beside the 32-bit words', () => {
    const idom = Uint32Array.from([NO_DOMINATOR, 0, 1, 0]);
    const count = Uint32Array.from([4, 2, 1, 1]);
    const figures = [7_000_000_123 + 4_294_967_295, 7_000_000_123, 4_294_967_294, 4_294_967_295];
    const tree = DominatorTree.fromFigures(0, 0, idom, count, (write) => figures.forEach((b, v) => write(v, b)));
    expect([0, 1, 2, 3].map((v) => tree.retainedBytes(v))).toEqual(figures);
    expect([...tree.top(3)]).toEqual([1, 3, 2]);
  });
});

describe('dominator tree against the data-flow definition', () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`random graph (seed ${seed})`, () => {
      const random = prng(seed);
      const n = 300;
      const forward = Array.from({ length: n }, () => Array.from({ length: Math.floor(random() * (seed % 3 === 0 ? 4 : 2.6)) }, () => Math.floor(random() * n)));
      const unstored = seed % 2 === 0 ? [17, 99, 250] : [];
      for (const v of unstored) forward[v] = [];
      const { graph, channels } = crafted(forward, 7 * seed, unstored);
      expectSameAsReference(graph, channels, computeDominators(graph, channels), `seed ${seed}`);
    });
  }

  it('a graph whose rows were changed since they were built (overlays of a followed storage)', () => {
    const random = prng(42);
    const n = 250;
    const forward = Array.from({ length: n }, () => Array.from({ length: Math.floor(random() * 3) }, () => Math.floor(random() * n)));
    const { graph, channels } = crafted(forward, 0);
    for (let k = 0; k < 40; k++) {
      const v = Math.floor(random() * n);
      const targets = [...new Set(Array.from({ length: Math.floor(random() * 4) }, () => Math.floor(random() * n)))].sort((a, b) => a - b);
      graph.adjacency.replaceForward(v, Uint32Array.from(targets), () => undefined, () => undefined);
    }
    expect(graph.adjacency.hasForwardOverlays).toBe(true);
    computeReachability(graph);
    expectSameAsReference(graph, channels, computeDominators(graph, channels), 'overlays');
  });

  for (const corpus of CORPORA) {
    for (const name of corpus.storages) {
      it(`${corpus.generation} ${name}: every object as the definition says`, async () => {
        const storage = await Storage.open(join(corpus.dir, 'storages', name));
        try {
          const { graph } = await buildGraph(storage);
          const tree = computeDominators(graph, storage.channels);
          expectSameAsReference(graph, storage.channels, tree, name);
          if (name !== 'noroot') expect(tree.reachableObjects).toBeGreaterThan(1);
        } finally {
          await storage.close();
        }
      });
    }
  }
});
