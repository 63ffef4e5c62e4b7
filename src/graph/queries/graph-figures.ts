import type { StorageChannel } from '../../storage/storage.js';
import type { GraphIndex } from '../model/graph-index.js';
import { NOT_STORED } from '../model/type-table.js';

/**
 * What takes the space: per type the instances and bytes of their latest records, split into
 * reachable and unreachable (garbage), and per data file the bytes of garbage next to the bytes
 * of superseded records. One pass over the primary index (which has the record lengths) and the
 * graph's per-node type and reachability; the result is small (per type, per file).
 */

export interface TypeFigures {
  readonly type: number;
  readonly instances: number;
  readonly bytes: number;
  readonly reachable: number;
  readonly reachableBytes: number;
}

export interface FileFigures {
  readonly channel: number;
  readonly fileSlot: number;
  /** Bytes of latest records of unreachable objects in this file. */
  readonly unreachableBytes: number;
  readonly unreachableCount: number;
}

export interface GraphFigures {
  /** Indexed by type number; types without instances included. */
  readonly types: readonly TypeFigures[];
  readonly files: readonly FileFigures[];
  readonly reachable: { readonly count: number; readonly bytes: number };
  readonly unreachable: { readonly count: number; readonly bytes: number };
}

export function computeFigures(graph: GraphIndex, channels: readonly StorageChannel[]): GraphFigures {
  const typeCount = graph.types.size;
  const instances = new Float64Array(typeCount);
  const bytes = new Float64Array(typeCount);
  const reachable = new Float64Array(typeCount);
  const reachableBytes = new Float64Array(typeCount);
  const files: FileFigures[] = [];
  const nodes = graph.nodes;
  const typeOfNode = graph.typeOfNode;
  const reach = graph.reach;
  for (const channel of channels) {
    const perSlotBytes: number[] = [];
    const perSlotCount: number[] = [];
    channel.objects.forEach((low, high, fileSlot, _offset, length) => {
      const v = nodes.nodeOf(low, high);
      if (v < 0) return;
      const t = typeOfNode[v] as number;
      if (t === NOT_STORED) return;
      instances[t] = (instances[t] as number) + 1;
      bytes[t] = (bytes[t] as number) + length;
      if (((reach[v >>> 3] as number) & (1 << (v & 7))) !== 0) {
        reachable[t] = (reachable[t] as number) + 1;
        reachableBytes[t] = (reachableBytes[t] as number) + length;
      } else {
        perSlotBytes[fileSlot] = (perSlotBytes[fileSlot] ?? 0) + length;
        perSlotCount[fileSlot] = (perSlotCount[fileSlot] ?? 0) + 1;
      }
    });
    for (const file of channel.files) {
      files.push({ channel: channel.index, fileSlot: file.slot, unreachableBytes: perSlotBytes[file.slot] ?? 0, unreachableCount: perSlotCount[file.slot] ?? 0 });
    }
  }
  const types: TypeFigures[] = [];
  let reachableCount = 0;
  let reachableSum = 0;
  let unreachableCount = 0;
  let unreachableSum = 0;
  for (let t = 0; t < typeCount; t++) {
    const figures = {
      type: t,
      instances: instances[t] as number,
      bytes: bytes[t] as number,
      reachable: reachable[t] as number,
      reachableBytes: reachableBytes[t] as number,
    };
    types.push(figures);
    reachableCount += figures.reachable;
    reachableSum += figures.reachableBytes;
    unreachableCount += figures.instances - figures.reachable;
    unreachableSum += figures.bytes - figures.reachableBytes;
  }
  return {
    types,
    files,
    reachable: { count: reachableCount, bytes: reachableSum },
    unreachable: { count: unreachableCount, bytes: unreachableSum },
  };
}

/** Nodes that are referenced but not stored (lost objects), in node order. */
export function unstoredReferencedNodes(graph: GraphIndex, limit: number): { count: number; nodes: number[] } {
  let count = 0;
  const nodes: number[] = [];
  for (let v = 0; v < graph.nodeCount; v++) {
    if (graph.typeOfNode[v] !== NOT_STORED || graph.adjacency.referrerCount(v) === 0) continue;
    count++;
    if (nodes.length < limit) nodes.push(v);
  }
  return { count, nodes };
}

/** Instances of a type in ascending id order: `[offset, offset + limit)` and how many there are. */
export function instancesOf(graph: GraphIndex, type: number, offset: number, limit: number, reachable?: boolean): { total: number; nodes: number[] } {
  const typeOfNode = graph.typeOfNode;
  const nodes: number[] = [];
  let seen = 0;
  graph.nodes.forEachRun((_low, _high, first, length) => {
    const end = first + length;
    for (let v = first; v < end; v++) {
      if (typeOfNode[v] !== type) continue;
      if (reachable !== undefined && graph.isReachable(v) !== reachable) continue;
      if (seen >= offset && nodes.length < limit) nodes.push(v);
      seen++;
    }
  });
  return { total: seen, nodes };
}

/**
 * Visits nodes in ascending id order, starting after the node of `afterId` (from the first when
 * undefined); stops when `visit` returns false.
 */
export function forEachNodeInIdOrder(graph: GraphIndex, afterId: bigint | undefined, visit: (node: number) => boolean | void): void {
  graph.nodes.forEachRun((low, high, first, length) => {
    const start = (BigInt(high) << 32n) | BigInt(low);
    let from = 0;
    if (afterId !== undefined) {
      if (afterId >= start + BigInt(length) - 1n) return true;
      if (afterId >= start) from = Number(afterId - start) + 1;
    }
    for (let k = from; k < length; k++) if (visit(first + k) === false) return false;
    return true;
  });
}
