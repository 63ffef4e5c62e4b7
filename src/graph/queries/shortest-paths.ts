import type { GraphIndex } from '../model/graph-index.js';

/**
 * Shortest paths from the roots entity to an object, by a breadth-first search from both ends:
 * forwards from the roots entity over references, backwards from the object over its referrers
 * (reachable ones only: nothing else leads to the roots), a level at a time, always on the side
 * whose next level is cheaper (fewer references to follow). An object that many others refer to
 * (an enum constant, a shared author) is then reached in a few steps from the roots instead of
 * through all of its referrers, and a root with a huge collection is left for the backward side.
 * The searches meet in a layer of nodes that every shortest path crosses; the paths are read off
 * forwards in ascending node order (the same paths, in the same order, as a search from one end).
 *
 * The number of shortest paths can grow exponentially with their length (a diamond of 40 levels
 * has 2^40), and one path can be as long as the graph: reading them off is bounded by the number
 * of paths asked for and by a budget of steps over all paths, and the result says when it stopped
 * short.
 */

/** Steps (nodes) over all paths read off at most; a longer answer is cut and says so. */
export const MAX_PATH_STEPS = 5_000;

export interface PathsResult {
  readonly reachable: boolean;
  /** Node paths from the roots entity (first) to the object (last); all of the shortest length. */
  readonly paths: readonly (readonly number[])[];
  /** Nodes the search visited (a measure of its cost). */
  readonly visited: number;
  /** Steps of every shortest path (0 for the roots entity itself, or when unreachable). */
  readonly length: number;
  /** More shortest paths exist than `paths` holds (the limit or the step budget stopped reading). */
  readonly truncated: boolean;
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

export function shortestPaths(graph: GraphIndex, target: number, limit: number, maxSteps = MAX_PATH_STEPS): PathsResult {
  const roots = graph.rootsNode;
  if (roots < 0 || !graph.isStored(target) || !graph.isReachable(target)) return { reachable: false, paths: [], visited: 0, length: 0, truncated: false };
  if (target === roots) return { reachable: true, paths: [[roots]], visited: 1, length: 0, truncated: false };
  const adjacency = graph.adjacency;

  // Distances from the roots entity and to the object, and the nodes of each level, per side.
  const fromRoots = new DistanceMap();
  const toTarget = new DistanceMap();
  fromRoots.add(roots, 0);
  toTarget.add(target, 0);
  const forwardLevels: number[][] = [[roots]];
  const backwardLevels: number[][] = [[target]];
  let meeting: number[] = [];
  while (meeting.length === 0) {
    const forwardLevel = forwardLevels[forwardLevels.length - 1]!;
    const backwardLevel = backwardLevels[backwardLevels.length - 1]!;
    if (forwardLevel.length === 0 || backwardLevel.length === 0) return { reachable: false, paths: [], visited: fromRoots.count + toTarget.count, length: 0, truncated: false };
    let forwardCost = 0;
    for (const v of forwardLevel) forwardCost += adjacency.forwardCount(v);
    let backwardCost = 0;
    for (const v of backwardLevel) backwardCost += adjacency.referrerCount(v);
    const found: number[] = [];
    /** The next level of one side: the nodes `each` yields that neither side had, and those the other side had. */
    const expand = (level: readonly number[], each: (v: number, visit: (u: number) => void) => void, mine: DistanceMap, theirs: DistanceMap, d: number): number[] => {
      const next: number[] = [];
      for (const v of level) {
        each(v, (u) => {
          if (!graph.isReachable(u) || !mine.add(u, d)) return;
          next.push(u);
          if (theirs.get(u) >= 0) found.push(u);
        });
      }
      return next;
    };
    if (forwardCost <= backwardCost) forwardLevels.push(expand(forwardLevel, (v, visit) => adjacency.forEachForward(v, visit), fromRoots, toTarget, forwardLevels.length));
    else backwardLevels.push(expand(backwardLevel, (v, visit) => adjacency.forEachReferrer(v, visit), toTarget, fromRoots, backwardLevels.length));
    meeting = found;
  }
  const visited = fromRoots.count + toTarget.count;

  // Every shortest path crosses the meeting layer at the same position (the forward radius).
  // Before it, steps go through nodes of the forward levels that lead to the layer (found level
  // by level backwards from it); from it on, through nodes one step closer to the object.
  const meetAt = forwardLevels.length - 1;
  const length = meetAt + backwardLevels.length - 1;
  // Not even one path fits the budget (a chain as long as the graph): say how long, list none.
  const pathLimit = Math.min(limit, Math.floor(maxSteps / (length + 1)));
  if (pathLimit < 1) return { reachable: true, paths: [], visited, length, truncated: true };
  const leading: number[][] = [];
  leading[meetAt] = meeting.sort((a, b) => a - b);
  for (let d = meetAt - 1; d >= 0; d--) {
    const ahead = new Set(leading[d + 1]);
    leading[d] = forwardLevels[d]!.filter((v) => stepsTo(graph, v, leading[d + 1]!, (u) => ahead.has(u)).length > 0).sort((a, b) => a - b);
  }
  for (const level of backwardLevels) level.sort((a, b) => a - b);
  const closer = (v: number, position: number): number[] => {
    if (position < meetAt) {
      const ahead = leading[position + 1]!;
      return stepsTo(graph, v, ahead, (u) => binarySearch(ahead, u));
    }
    const d = length - position - 1;
    return stepsTo(graph, v, backwardLevels[d]!, (u) => toTarget.get(u) === d);
  };

  // Read the paths off forwards, depth first without recursion (a path can be long). Every step
  // offered leads on to the object, so each path costs its length and no dead ends.
  const paths: number[][] = [];
  const path = [roots];
  const stack = [{ next: closer(roots, 0), i: 0 }];
  while (stack.length > 0 && paths.length < pathLimit) {
    const top = stack[stack.length - 1]!;
    if (top.i >= top.next.length) {
      stack.pop();
      path.pop();
      continue;
    }
    const u = top.next[top.i++]!;
    path.push(u);
    if (path.length - 1 === length) {
      paths.push([...path]);
      path.pop();
      continue;
    }
    stack.push({ next: closer(u, path.length - 1), i: 0 });
  }
  // A step not yet taken on the way down is another path still to read.
  const truncated = stack.some((frame) => frame.i < frame.next.length);
  return { reachable: true, paths, visited, length, truncated };
}

/**
 * The targets of v among `candidates` (ascending) that `accept` takes, ascending: from v's own
 * targets, or (when v refers to far more nodes than there are candidates, as a large collection
 * does) by looking each candidate up among them.
 */
function stepsTo(graph: GraphIndex, v: number, candidates: readonly number[], accept: (u: number) => boolean): number[] {
  const out: number[] = [];
  if (graph.adjacency.forwardCount(v) > 8 * candidates.length) {
    for (const u of candidates) if (graph.adjacency.refersTo(v, u) && accept(u)) out.push(u);
    return out;
  }
  graph.adjacency.forEachForward(v, (u) => {
    if (accept(u)) out.push(u);
  });
  return out;
}

function binarySearch(sorted: readonly number[], x: number): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const y = sorted[mid]!;
    if (y === x) return true;
    if (y < x) lo = mid + 1;
    else hi = mid;
  }
  return false;
}
