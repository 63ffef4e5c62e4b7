import { instancesOf } from '../graph/queries/graph-figures.js';
import type { GraphIndex } from '../graph/model/graph-index.js';
import { GIGAMAP } from './gigamap-type-names.js';

/** The object ids of every GigaMap in a storage (from the graph index: the instances of its type), ascending. */
export function gigaMapIds(graph: GraphIndex): bigint[] {
  const ids: bigint[] = [];
  graph.types.all().forEach((type, t) => {
    if (type.entry?.typeName !== GIGAMAP) return;
    for (const node of instancesOf(graph, t, 0, Number.MAX_SAFE_INTEGER).nodes) ids.push(graph.nodes.idOf(node));
  });
  return ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
