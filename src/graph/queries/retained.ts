import type { StorageChannel } from '../../storage/storage.js';
import type { DominatorTree } from '../model/dominator-tree.js';
import type { GraphIndex } from '../model/graph-index.js';
import { NOT_STORED } from '../model/type-table.js';

/**
 * What an object retains, by type: the objects and bytes of its retained set (itself and
 * everything it dominates) per type, for several objects at once in one pass over the primary
 * index. Each object is assigned to its nearest asked-for dominator (itself included) by walking
 * up the dominator tree with the answers remembered (4 bytes a node, each node walked once);
 * the sets of asked objects that dominate one another are then added up, smallest first.
 */

export interface TypeShare {
  /** Type number (graph.types). */
  readonly type: number;
  readonly objects: number;
  readonly bytes: number;
}

const UNKNOWN = -2;
const NONE = -1;

/**
 * Per node of `targets`: its retained set by type, largest bytes first (at most `maxTypes`
 * types; the objects of the rest are left out). Unreachable targets retain nothing.
 */
export function retainedByType(graph: GraphIndex, tree: DominatorTree, channels: readonly Pick<StorageChannel, 'objects'>[], targets: readonly number[], maxTypes: number): TypeShare[][] {
  const n = Math.min(graph.nodeCount, tree.nodeCount);
  const typeCount = graph.types.size;
  const asked = targets.map((t) => (tree.isReachable(t) ? t : -1));
  const nearest = new Int32Array(n).fill(UNKNOWN);
  if (tree.rootsNode >= 0) nearest[tree.rootsNode] = NONE;
  // A node asked twice is counted once (under its first index); the others copy it at the end.
  const firstIndex = new Map<number, number>();
  asked.forEach((t, i) => {
    if (t < 0 || firstIndex.has(t)) return;
    firstIndex.set(t, i);
    nearest[t] = i;
  });
  const sums = asked.map(() => new Float64Array(typeCount * 2));
  let stack = new Uint32Array(64);
  const nearestOf = (v: number): number => {
    let sp = 0;
    let x = v;
    while (nearest[x] === UNKNOWN) {
      if (sp === stack.length) {
        const bigger = new Uint32Array(stack.length * 2);
        bigger.set(stack);
        stack = bigger;
      }
      stack[sp++] = x;
      x = tree.immediateDominator(x);
    }
    const answer = nearest[x] as number;
    while (sp > 0) nearest[stack[--sp] as number] = answer;
    return answer;
  };
  if (firstIndex.size > 0) {
    for (const channel of channels) {
      channel.objects.forEach((low, high, _slot, _offset, length) => {
        const v = graph.nodes.nodeOf(low, high);
        if (v < 0 || v >= n || !tree.isReachable(v)) return;
        const t = graph.typeOfNode[v] as number;
        if (t === NOT_STORED) return;
        const i = nearestOf(v);
        if (i < 0) return;
        const s = sums[i]!;
        s[2 * t] = (s[2 * t] as number) + 1;
        s[2 * t + 1] = (s[2 * t + 1] as number) + length;
      });
    }
    // Into the nearest asked dominator above, descendants (fewer retained objects) first.
    const order = [...firstIndex.values()].sort((a, b) => tree.retainedObjects(asked[a]!) - tree.retainedObjects(asked[b]!));
    for (const i of order) {
      const up = tree.immediateDominator(asked[i]!);
      if (up < 0) continue;
      const j = nearestOf(up);
      if (j < 0) continue;
      const from = sums[i]!;
      const to = sums[j]!;
      for (let k = 0; k < from.length; k++) to[k] = (to[k] as number) + (from[k] as number);
    }
  }
  return asked.map((t) => {
    if (t < 0) return [];
    const s = sums[firstIndex.get(t)!]!;
    const shares: TypeShare[] = [];
    for (let type = 0; type < typeCount; type++) if ((s[2 * type] as number) > 0) shares.push({ type, objects: s[2 * type] as number, bytes: s[2 * type + 1] as number });
    shares.sort((a, b) => b.bytes - a.bytes || b.objects - a.objects || a.type - b.type);
    return shares.slice(0, maxTypes);
  });
}
