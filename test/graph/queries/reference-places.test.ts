import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findReferencePlaces, RecordReferencePlaces } from '../../../src/graph/queries/reference-places.js';
import { Storage } from '../../../src/storage/storage.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';

/**
 * A record's reference places indexed once (what paths and referrers use for large records)
 * must name the same place as a walk for that one target, for every id in every record.
 */
describe('indexed reference places', () => {
  it.each(['collections', 'graph', 'arrays'])('agree with a walk for every id in every record (%s)', async (name) => {
    const storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', name));
    try {
      let compared = 0;
      let indexed = 0;
      for (const channel of storage.channels) {
        const ids: bigint[] = [];
        channel.objects.forEach((low, high) => ids.push((BigInt(high) << 32n) | BigInt(low >>> 0)));
        for (const id of ids) {
          const entity = (await storage.readEntity(id))!;
          const entry = storage.dictionary.byId.get(entity.typeId);
          if (entry === undefined) continue;
          const places = RecordReferencePlaces.index(entry, entity.content);
          if (places === undefined) continue;
          indexed++;
          // Every 8 bytes of the record that could be an object id, aligned or not.
          const view = new DataView(entity.content.buffer, entity.content.byteOffset, entity.content.byteLength);
          const candidates = new Set<bigint>();
          for (let at = 0; at + 8 <= view.byteLength; at++) {
            const value = view.getBigInt64(at, true);
            if (value >= 1000000000000000000n && value < 1000000000100000000n) candidates.add(value);
          }
          for (const target of candidates) {
            expect(places.find(entity.content, target), `${id} -> ${target}`).toEqual(findReferencePlaces(entry, entity.content, target, 1)[0]);
            compared++;
          }
        }
      }
      expect(indexed).toBeGreaterThan(10);
      expect(compared).toBeGreaterThan(50);
    } finally {
      await storage.close();
    }
  });
});
