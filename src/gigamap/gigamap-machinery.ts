import type { GraphIndex } from '../graph/model/graph-index.js';
import { gigaMapIds } from './find-gigamaps.js';
import { gigaMapOf, type VersionedSource } from './gigamap-cache.js';
import { isGigaMapMachinery, LAZY } from './gigamap-type-names.js';

/**
 * How many instances of a type are a GigaMap's machinery rather than the user's entities: every
 * instance of the GigaMap module's own classes (levels, indices, bitmaps, constraints), and of
 * `Lazy$Default` exactly the segment references the GigaMaps' levels hold (counted by walking
 * each GigaMap's structure, as `readGigaMap` does; a user's own Lazy references stay the user's).
 */

/** Lazy segment references of every GigaMap, per graph index (one state of the storage). */
const lazySegments = new WeakMap<GraphIndex, Promise<number>>();

export function gigaMapLazySegments(source: VersionedSource, graph: GraphIndex): Promise<number> {
  let counted = lazySegments.get(graph);
  if (counted === undefined) {
    counted = (async () => {
      let n = 0;
      for (const id of gigaMapIds(graph)) {
        try {
          const map = await gigaMapOf(source, id);
          n += map.level1Segments + map.level2Segments;
        } catch {
          // An unreadable GigaMap (reported by its own routes and `check`) counts no segments.
        }
      }
      return n;
    })();
    lazySegments.set(graph, counted);
  }
  return counted;
}

/** The machinery among `instances` of the type named `typeName`, given the GigaMaps' Lazy segments. */
export function machineryInstances(typeName: string, instances: number, lazies: number): number {
  if (isGigaMapMachinery(typeName)) return instances;
  if (typeName === LAZY) return Math.min(instances, lazies);
  return 0;
}
