import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forEachLatestRecord, typeIdMatcher } from '../../../src/storage/records/latest-records.js';
import { Storage } from '../../../src/storage/storage.js';
import { CONFORMANCE_DIR, STORAGE_NAMES } from '../../helpers/corpora/conformance.js';

/**
 * A pass with a header visitor sees the header of every latest record of its types — the same
 * records, ids, types, files and offsets a pass handing over every record sees — and hands over
 * exactly those the visitor asks for.
 */

const SOME = STORAGE_NAMES.slice(0, 6);

describe('latest records with a header visitor', () => {
  for (const name of SOME) {
    it(`sees every latest record and hands over only the chosen ones (${name})`, async () => {
      const storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', name));
      try {
        const types = new Set(storage.dictionary.byId.keys());
        const all: string[] = [];
        await forEachLatestRecord(storage, types, (r) => void all.push(`${r.objectId}:${r.typeId}:${r.file}:${r.offset}:${r.content.length + 24}`));

        const seen: string[] = [];
        const handed: string[] = [];
        let n = 0;
        await forEachLatestRecord(
          storage,
          types,
          (r) => void handed.push(`${r.objectId}:${r.typeId}:${r.file}:${r.offset}:${r.content.length + 24}`),
          undefined,
          true,
          (idLow, idHigh, typeLow, typeHigh, file, offset, length) => {
            const id = (BigInt(idHigh) << 32n) | BigInt(idLow >>> 0);
            const type = (BigInt(typeHigh) << 32n) | BigInt(typeLow >>> 0);
            seen.push(`${id}:${type}:${file}:${offset}:${length}`);
            return n++ % 3 === 0;
          },
        );
        expect(all.length).toBeGreaterThan(0);
        expect(seen).toEqual(all);
        expect(handed).toEqual(all.filter((_, i) => i % 3 === 0));
      } finally {
        await storage.close();
      }
    });
  }
});

describe('typeIdMatcher', () => {
  it('matches ids given as halves, below and above 2^32, without false matches', () => {
    const ids = [0n, 1n, 1_000_055n, 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 40n + 7n, 2n ** 63n - 1n];
    const halves = (id: bigint): [number, number] => [Number(BigInt.asIntN(32, id)), Number(id >> 32n)];
    const small = typeIdMatcher(new Set(ids.slice(0, 5)));
    const mixed = typeIdMatcher(new Set(ids));
    for (const [i, id] of ids.entries()) {
      expect(small(...halves(id)), String(id)).toBe(i < 5);
      expect(mixed(...halves(id)), String(id)).toBe(true);
    }
    for (const other of [2n, 1_000_056n, 2n ** 32n + 1n, 2n ** 40n + 8n, 2n ** 32n + 1_000_055n]) {
      expect(small(...halves(other)), String(other)).toBe(false);
      expect(mixed(...halves(other)), String(other)).toBe(false);
    }
  });
});
