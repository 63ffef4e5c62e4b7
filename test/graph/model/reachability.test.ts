import { describe, expect, it } from 'vitest';
import { assembleRows, FORWARD_FLAG } from '../../../src/graph/model/adjacency.js';
import { GraphIndex } from '../../../src/graph/model/graph-index.js';
import { MissingReferences } from '../../../src/graph/model/missing-references.js';
import { NodeIds } from '../../../src/graph/model/node-ids.js';
import { computeReachability, sweepReachability, updateReachability, type EdgeChanges } from '../../../src/graph/model/reachability.js';
import { ReachabilityThread } from '../../../src/graph/build/reachability-thread.js';
import { shortestPaths } from '../../../src/graph/queries/shortest-paths.js';
import { SupersededRecords } from '../../../src/graph/model/superseded-records.js';
import { NOT_STORED, TypeTable } from '../../../src/graph/model/type-table.js';
import { parseTypeDictionary } from '../../../src/format/type-dictionary.js';
import { ObjectIndex } from '../../../src/storage/index/object-index.js';
import type { StorageChannel } from '../../../src/storage/storage.js';
import { prng } from '../../helpers/corpora/prng.js';

/** Random graphs changed edge by edge: the incremental answers must equal a recomputation. */

function graphOf(forward: number[][], types?: Uint16Array, rootsNode = 0): GraphIndex {
  const n = forward.length;
  const index = new ObjectIndex();
  for (let v = 0; v < n; v++) index.set(v + 1, 0, 0, v, 24);
  const nodes = NodeIds.fromChannels([{ objects: index } as unknown as StorageChannel]);
  const degrees = new Uint32Array(n + 1);
  for (let v = 0; v < n; v++) {
    degrees[v] = degrees[v]! + forward[v]!.length;
    for (const u of forward[v]!) degrees[u] = degrees[u]! + 1;
  }
  const adjacency = assembleRows(
    n,
    degrees,
    (v, rows, at) => {
      for (const u of forward[v]!) rows[at++] = (u | FORWARD_FLAG) >>> 0;
      return at;
    },
    new Uint32Array(n),
  );
  const graph = new GraphIndex(nodes, new TypeTable(parseTypeDictionary('')), types ?? new Uint16Array(n), adjacency, new Uint8Array(Math.ceil(n / 8)), new MissingReferences(), new SupersededRecords(), rootsNode);
  computeReachability(graph);
  return graph;
}

function randomTargets(random: () => number, n: number, max: number): Uint32Array {
  const set = new Set<number>();
  const k = Math.floor(random() * max);
  for (let i = 0; i < k; i++) set.add(Math.floor(random() * n));
  return Uint32Array.from([...set].sort((a, b) => a - b));
}

function bfsDistances(forward: (v: number) => Uint32Array, n: number, from: number): Int32Array {
  const distance = new Int32Array(n).fill(-1);
  distance[from] = 0;
  const queue = [from];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const u of forward(v)) {
      if (distance[u] !== -1) continue;
      distance[u] = distance[v]! + 1;
      queue.push(u);
    }
  }
  return distance;
}

describe('reachability after a build', () => {
  // The build sweeps rows in node order; references to lower nodes, chains running backwards,
  // unstored targets and a roots entity in the middle must give what a plain BFS gives.
  for (const seed of [11, 12, 13, 14, 15]) {
    it(`equals a breadth-first search from the roots entity (seed ${seed})`, () => {
      const random = prng(seed);
      const n = 2000;
      const forward = Array.from({ length: n }, () => [...randomTargets(random, n, seed % 2 === 0 ? 5 : 4)]);
      // A chain that runs from high nodes to low ones, reached only through its top.
      for (let v = n - 1; v > n - 400; v -= 3) forward[v] = [...new Set([...forward[v]!, v - 3])].sort((a, b) => a - b);
      const types = new Uint16Array(n);
      for (let v = 0; v < n; v++) if (random() < 0.05) types[v] = NOT_STORED;
      const roots = 700 + seed;
      types[roots] = 0;
      for (let v = 0; v < n; v++) if (types[v] === NOT_STORED) forward[v] = [];
      // The roots entity refers to a few nodes on either side and to the chain's top.
      forward[roots] = [...new Set([3, 300, 1500, n - 1, ...forward[roots]!])].sort((a, b) => a - b);
      for (const v of [3, 300, 1500, n - 1]) types[v] = 0;
      const graph = graphOf(forward, types, roots);
      const distance = bfsDistances((v) => Uint32Array.from(types[v] === NOT_STORED ? [] : forward[v]!), n, roots);
      let reached = 0;
      for (let v = 0; v < n; v++) {
        const want = distance[v]! >= 0 && types[v] !== NOT_STORED;
        expect(graph.isReachable(v), `node ${v}`).toBe(want);
        if (want) reached++;
      }
      expect(reached).toBeGreaterThan(n / 4);
    });
  }
});

describe('the sweep a build runs when every node is stored', () => {
  it('marks what a breadth-first search reaches, without the passes for unstored nodes', () => {
    const random = prng(21);
    const n = 3000;
    const forward = Array.from({ length: n }, () => [...randomTargets(random, n, 3)]);
    for (let v = n - 1; v > n - 500; v -= 2) forward[v] = [...new Set([...forward[v]!, v - 2])].sort((a, b) => a - b);
    const roots = 1234;
    forward[roots] = [...new Set([0, n - 1, ...forward[roots]!])].sort((a, b) => a - b);
    const graph = graphOf(forward, new Uint16Array(n), roots);
    const reach = new Uint8Array(Math.ceil(n / 8));
    const adjacency = graph.adjacency;
    sweepReachability({ rows: adjacency.baseRows, rowStart: adjacency.baseRowStart, baseNodes: n, types: graph.typeOfNode, nodeCount: n, reach, roots, allStored: true });
    const distance = bfsDistances((v) => Uint32Array.from(forward[v]!), n, roots);
    for (let v = 0; v < n; v++) expect((reach[v >>> 3]! >>> (v & 7)) & 1, `node ${v}`).toBe(distance[v]! >= 0 ? 1 : 0);
  });
});

describe('the sweep in a thread of its own', () => {
  it('marks what the sweep in this thread marks (builds without a decode thread sweep there)', async () => {
    const random = prng(22);
    const n = 3000;
    const forward = Array.from({ length: n }, () => [...randomTargets(random, n, 3)]);
    const types = new Uint16Array(n);
    for (let v = 0; v < n; v++) if (random() < 0.05) types[v] = NOT_STORED;
    const roots = 1500;
    types[roots] = 0;
    for (let v = 0; v < n; v++) if (types[v] === NOT_STORED) forward[v] = [];
    forward[roots] = [...new Set([0, n - 1, ...forward[roots]!])].sort((a, b) => a - b);
    const graph = graphOf(forward, types, roots);
    const shared = <T extends Uint8Array | Uint16Array | Uint32Array>(a: T, make: (b: SharedArrayBuffer) => T): T => {
      const copy = make(new SharedArrayBuffer(a.byteLength));
      copy.set(a);
      return copy;
    };
    const adjacency = graph.adjacency;
    const reach = new Uint8Array(new SharedArrayBuffer(Math.ceil(n / 8)));
    const thread = new ReachabilityThread();
    try {
      await thread.sweep({
        rows: shared(adjacency.baseRows, (b) => new Uint32Array(b)),
        rowStart: shared(adjacency.baseRowStart, (b) => new Uint32Array(b)),
        baseNodes: n,
        types: shared(graph.typeOfNode, (b) => new Uint16Array(b)),
        nodeCount: n,
        reach,
        roots,
      });
    } finally {
      await thread.close();
    }
    expect(reach.some((b) => b !== 0)).toBe(true);
    expect(Uint8Array.from(reach)).toEqual(Uint8Array.from(graph.reach));
  });
});

describe('incremental reachability', () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`equals a recomputation after random edge changes (seed ${seed})`, () => {
      const random = prng(seed);
      const n = 300;
      const forward = Array.from({ length: n }, () => [...randomTargets(random, n, seed % 2 === 0 ? 3 : 2)]);
      const graph = graphOf(forward);
      for (let round = 0; round < 40; round++) {
        const changes: EdgeChanges = { addedFrom: [], addedTo: [], removedFrom: [], removedTo: [], unstored: [] };
        const changedNodes = 1 + Math.floor(random() * 6);
        for (let i = 0; i < changedNodes; i++) {
          const v = Math.floor(random() * n);
          graph.adjacency.replaceForward(
            v,
            randomTargets(random, n, 4),
            (u) => {
              changes.addedFrom.push(v);
              changes.addedTo.push(u);
            },
            (u) => {
              changes.removedFrom.push(v);
              changes.removedTo.push(u);
            },
          );
        }
        updateReachability(graph, changes);
        const incremental = graph.reach.slice();
        computeReachability(graph);
        expect(incremental, `round ${round}`).toEqual(graph.reach);
        if (round % 10 === 9) graph.adjacency.compact(n);

        // Shortest paths agree with a forward BFS from the roots entity.
        const distance = bfsDistances((v) => graph.adjacency.forward(v), n, 0);
        for (let v = 0; v < n; v += 7) {
          const result = shortestPaths(graph, v, 2);
          expect(result.reachable).toBe(distance[v]! >= 0);
          for (const path of result.paths) {
            expect(path.length - 1).toBe(distance[v]);
            for (let i = 1; i < path.length; i++) expect([...graph.adjacency.forward(path[i - 1]!)]).toContain(path[i]);
          }
        }
        // Referrers are the reversed forward lists.
        for (let v = 0; v < n; v += 11) {
          const want: number[] = [];
          for (let w = 0; w < n; w++) if (graph.adjacency.forward(w).includes(v)) want.push(w);
          expect([...graph.adjacency.referrers(v, 0, n)]).toEqual(want);
          expect(graph.adjacency.referrerCount(v)).toBe(want.length);
        }
      }
    });
  }
});

describe('node numbering', () => {
  function channelWith(ids: readonly bigint[]): StorageChannel {
    const index = new ObjectIndex();
    for (const id of ids) index.set(Number(id & 0xffffffffn) | 0, Number(id >> 32n), 0, 0, 24);
    return { objects: index } as unknown as StorageChannel;
  }
  const base = 1_000_000_000_000_000_001n;

  it('numbers consecutive ids as one run in id order, across channels', () => {
    const even = Array.from({ length: 500 }, (_, i) => base + 2n * BigInt(i));
    const odd = Array.from({ length: 500 }, (_, i) => base + 2n * BigInt(i) + 1n);
    const nodes = NodeIds.fromChannels([channelWith(even), channelWith(odd)]);
    expect(nodes.count).toBe(1000);
    expect(nodes.runCount).toBe(1);
    for (let k = 0; k < 1000; k++) {
      expect(nodes.nodeOfId(base + BigInt(k))).toBe(k);
      expect(nodes.idOf(k)).toBe(base + BigInt(k));
    }
    expect(nodes.nodeOfId(base - 1n)).toBe(-1);
    expect(nodes.nodeOfId(base + 1000n)).toBe(-1);
  });

  it('keeps gaps out of the numbering, dense or sparse', () => {
    const dense = [base, base + 1n, base + 5n, base + 6n, base + 7n, base + 40n];
    const sparse = [base, base + 3n, base + (1n << 40n), 8_000_000_000_000_000_000n];
    for (const ids of [dense, sparse]) {
      const nodes = NodeIds.fromChannels([channelWith(ids)]);
      expect(nodes.count).toBe(ids.length);
      ids.forEach((id, k) => {
        expect(nodes.nodeOfId(id)).toBe(k);
        expect(nodes.idOf(k)).toBe(id);
      });
      expect(nodes.nodeOfId(base + 2n)).toBe(-1);
    }
  });

  it('numbers added ids after the existing ones, extending the last run or not', () => {
    const nodes = NodeIds.fromChannels([channelWith([base, base + 1n, base + 10n])]);
    nodes.addSorted([base + 11n, base + 12n]);
    expect(nodes.runCount).toBe(2);
    nodes.addSorted([base + 5n, base + 20n]);
    const all = [base, base + 1n, base + 10n, base + 11n, base + 12n, base + 5n, base + 20n];
    all.forEach((id, k) => {
      expect(nodes.nodeOfId(id)).toBe(k);
      expect(nodes.idOf(k)).toBe(id);
    });
    const order: bigint[] = [];
    nodes.forEachRun((low, high, first, length) => {
      for (let i = 0; i < length; i++) order.push(nodes.idOf(first + i));
      expect(nodes.idOf(first)).toBe((BigInt(high) << 32n) | BigInt(low));
    });
    expect(order).toEqual([...all].sort((a, b) => (a < b ? -1 : 1)));
  });
});

/** Every shortest path from `from` to `to` in ascending node order, the first `limit` of them, found by brute force. */
function allShortestPaths(forward: readonly (readonly number[])[], from: number, to: number, limit: number): number[][] {
  const n = forward.length;
  const reverse: number[][] = Array.from({ length: n }, () => []);
  forward.forEach((targets, v) => targets.forEach((u) => reverse[u]!.push(v)));
  const toTarget = bfsDistances((v) => Uint32Array.from(reverse[v]!), n, to);
  const out: number[][] = [];
  const walk = (path: number[]): void => {
    const v = path[path.length - 1]!;
    if (v === to) {
      out.push([...path]);
      return;
    }
    for (const u of [...forward[v]!].sort((a, b) => a - b)) {
      if (out.length >= limit) return;
      if (toTarget[u] === toTarget[v]! - 1) walk([...path, u]);
    }
  };
  if (toTarget[from]! >= 0) walk([from]);
  return out;
}

describe('shortest paths', () => {
  // Searched from both ends: hubs (objects many others refer to) and a huge collection near the
  // roots must not change which paths come out, nor their order.
  for (const seed of [21, 22, 23, 24, 25, 26]) {
    it(`are the first shortest paths in ascending node order (seed ${seed})`, () => {
      const random = prng(seed);
      const n = 1500;
      const forward = Array.from({ length: n }, () => [...randomTargets(random, n, 3)]);
      // Hubs that a fifth of all nodes refer to, and a "collection" referring to 400 nodes.
      for (const hub of [5, 900]) for (let v = 0; v < n; v += 5) if (v !== hub) forward[v] = [...new Set([...forward[v]!, hub])].sort((a, b) => a - b);
      forward[40] = [...new Set([...forward[40]!, ...Array.from({ length: 400 }, (_, i) => 600 + i)])].sort((a, b) => a - b);
      const roots = 17;
      forward[roots] = [...new Set([40, 1200, ...forward[roots]!])].sort((a, b) => a - b);
      const graph = graphOf(forward, undefined, roots);
      let checked = 0;
      for (let v = 0; v < n; v += 3) {
        const limit = 1 + (v % 4);
        const result = shortestPaths(graph, v, limit);
        const want = allShortestPaths(forward, roots, v, limit);
        expect(result.reachable, `node ${v}`).toBe(want.length > 0);
        expect(result.paths, `node ${v}`).toEqual(want);
        if (want.length > 1) checked++;
      }
      expect(checked).toBeGreaterThan(10);
      // A hub is found from the roots side: far fewer nodes visited than it has referrers.
      expect(shortestPaths(graph, 5, 3).visited).toBeLessThan(graph.adjacency.referrerCount(5));
    });
  }
});
