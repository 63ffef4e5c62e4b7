import type { GraphIndex } from './graph-index.js';

/**
 * Shortest paths from the roots entity to an object, found backwards: a breadth-first search
 * from the object over its referrers (reachable ones only: nothing else leads to the roots)
 * until the roots entity turns up, then the paths are read off forwards, each step going to a
 * node one step closer to the object. For typical object graphs the search touches the object's
 * ancestors only, not the graph.
 */

export interface PathsResult {
  readonly reachable: boolean;
  /** Node paths from the roots entity (first) to the object (last); all of the shortest length. */
  readonly paths: readonly (readonly number[])[];
  /** Nodes the search visited (a measure of its cost). */
  readonly visited: number;
}

/** Node → distance to the target, open addressing over typed arrays. */
class DistanceMap {
  private keys = new Int32Array(1024).fill(-1);
  private values = new Int32Array(1024);
  private size = 0;

  get count(): number {
    return this.size;
  }

  get(node: number): number {
    const mask = this.keys.length - 1;
    for (let slot = hash(node) & mask; ; slot = (slot + 1) & mask) {
      const k = this.keys[slot] as number;
      if (k === node) return this.values[slot] as number;
      if (k === -1) return -1;
    }
  }

  /** Sets a distance if the node has none; returns whether it was new. */
  add(node: number, distance: number): boolean {
    if ((this.size + 1) * 2 > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    for (let slot = hash(node) & mask; ; slot = (slot + 1) & mask) {
      const k = this.keys[slot] as number;
      if (k === node) return false;
      if (k === -1) {
        this.keys[slot] = node;
        this.values[slot] = distance;
        this.size++;
        return true;
      }
    }
  }

  private grow(): void {
    const keys = this.keys;
    const values = this.values;
    this.keys = new Int32Array(keys.length * 2).fill(-1);
    this.values = new Int32Array(keys.length * 2);
    this.size = 0;
    for (let i = 0; i < keys.length; i++) if ((keys[i] as number) >= 0) this.add(keys[i] as number, values[i] as number);
  }
}

function hash(node: number): number {
  return Math.imul(node, 0x9e3779b1) >>> 0;
}

export function shortestPaths(graph: GraphIndex, target: number, limit: number): PathsResult {
  const roots = graph.rootsNode;
  if (roots < 0 || !graph.isStored(target) || !graph.isReachable(target)) return { reachable: false, paths: [], visited: 0 };
  if (target === roots) return { reachable: true, paths: [[roots]], visited: 1 };

  const distance = new DistanceMap();
  distance.add(target, 0);
  let level = [target];
  /** The nodes at each distance, ascending once the search is over. */
  const levels: number[][] = [level];
  let found = -1;
  for (let d = 1; level.length > 0 && found < 0; d++) {
    const next: number[] = [];
    levels.push(next);
    for (const v of level) {
      graph.adjacency.forEachReferrer(v, (r) => {
        if (!graph.isReachable(r)) return;
        if (distance.add(r, d)) {
          next.push(r);
          if (r === roots) found = d;
        }
      });
    }
    level = next;
  }
  if (found < 0) return { reachable: false, paths: [], visited: distance.count };

  // Read the paths off forwards, depth first without recursion (a path can be long). The next
  // steps from v are its targets one step closer: found among v's targets, or (when v refers to
  // far more nodes than that level holds, as a large collection does) among the level's nodes.
  for (const l of levels) l.sort((a, b) => a - b);
  const closer = (v: number, d: number): number[] => {
    const out: number[] = [];
    const candidates = levels[d - 1]!;
    if (graph.adjacency.forwardCount(v) > 8 * candidates.length) {
      for (const u of candidates) if (graph.adjacency.refersTo(v, u)) out.push(u);
      return out;
    }
    graph.adjacency.forEachForward(v, (u) => {
      if (distance.get(u) === d - 1) out.push(u);
    });
    return out;
  };
  const paths: number[][] = [];
  const path = [roots];
  const stack = [{ next: closer(roots, found), i: 0 }];
  while (stack.length > 0 && paths.length < limit) {
    const top = stack[stack.length - 1]!;
    if (top.i >= top.next.length) {
      stack.pop();
      path.pop();
      continue;
    }
    const u = top.next[top.i++]!;
    path.push(u);
    const d = found - (path.length - 1);
    if (d === 0) {
      paths.push([...path]);
      path.pop();
      continue;
    }
    stack.push({ next: closer(u, d), i: 0 });
  }
  return { reachable: true, paths, visited: distance.count };
}
