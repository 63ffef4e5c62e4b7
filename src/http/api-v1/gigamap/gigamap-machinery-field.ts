import type { Static } from 'typebox';
import { gigaMapIds } from '../../../gigamap/find-gigamaps.js';
import type { VersionedSource } from '../../../gigamap/gigamap-cache.js';
import { gigaMapLazySegments, machineryInstances } from '../../../gigamap/gigamap-machinery.js';
import type { GraphIndex } from '../../../graph/model/graph-index.js';
import type { TypeList } from '../../../api-contract/schemas.js';

type TypeRow = Static<typeof TypeList>['types'][number];

/** `/types` rows with `gigaMapMachinery` where a type's instances are (partly) a GigaMap's machinery. */
export async function withGigaMapMachinery(source: VersionedSource, graph: GraphIndex, types: TypeRow[]): Promise<TypeRow[]> {
  if (gigaMapIds(graph).length === 0) return types;
  const lazies = await gigaMapLazySegments(source, graph);
  return types.map((t) => {
    const machinery = machineryInstances(t.typeName, t.instances, lazies);
    return machinery > 0 ? { ...t, gigaMapMachinery: machinery } : t;
  });
}
