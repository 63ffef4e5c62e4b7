import type { GraphIndex } from './graph-index.js';

/**
 * Which graphs have their dominator tree computed in the background right now (the graph
 * service's slices, dominator-service.ts, say so), for a pass that needs the tree of the graph's
 * state at once (the SQL `_objects` table, `dominatorTreeOf`): it waits for that computation and
 * takes its tree instead of computing a second one beside it. An export at 10M objects computed
 * the tree twice, once in the background and once for `_objects` (about 3 s of the main thread's
 * CPU, the slices and the computation at once taking turns). Wait outside the storage's gate:
 * the slices take turns of it.
 */

interface UnderWay {
  readonly version: number;
  readonly done: Promise<void>;
  readonly end: () => void;
}

const underWay = new WeakMap<GraphIndex, UnderWay>();

/**
 * Marks the tree of the graph's present state as being computed; returns the function that ends
 * the mark (the tree remembered, the computation failed, stopped or restarted for a later state).
 * A mark for the same state is kept as it is.
 */
export function markDominatorsUnderWay(graph: GraphIndex): () => void {
  const known = underWay.get(graph);
  if (known !== undefined && known.version === graph.version) return known.end;
  known?.end();
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  const entry: UnderWay = {
    version: graph.version,
    done,
    end: () => {
      if (underWay.get(graph) === entry) underWay.delete(graph);
      resolve();
    },
  };
  underWay.set(graph, entry);
  return entry.end;
}

/** Resolves once no computation of the graph's present state is under way (at once when none is). Never rejects. */
export function dominatorsSettled(graph: GraphIndex): Promise<void> {
  const known = underWay.get(graph);
  return known !== undefined && known.version === graph.version ? known.done : Promise.resolve();
}
