import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forEachLatestRecord, type LatestRecord } from '../../../src/storage/records/latest-records.js';
import { Storage } from '../../../src/storage/storage.js';
import { CONFORMANCE_DIR, STORAGE_NAMES } from '../../helpers/corpora/conformance.js';

/**
 * `forEachLatestRecord(..., borrow = true)` hands over views of the read buffers. Read here in
 * small pieces through one buffer that every read overwrites (so that records are cut by pieces'
 * ends and a view kept too long would see other bytes), every record a handler sees before its
 * answer settles is the record a copying pass sees.
 */

const PIECE = 97;

function text(record: LatestRecord): string {
  return `${record.objectId}:${record.typeId}:${record.file}:${record.offset}:${Buffer.from(record.content).toString('hex')}`;
}

describe('latest records, borrowed', () => {
  for (const name of STORAGE_NAMES) {
    it(`are the copied ones, read in pieces of ${PIECE} bytes through one reused buffer (${name})`, async () => {
      const storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', name));
      try {
        const types = new Set(storage.dictionary.byId.keys());
        const copied: string[] = [];
        await forEachLatestRecord(storage, types, (record) => void copied.push(text(record)));

        const shared = new Uint8Array(PIECE);
        const source = storage.source;
        const pieces = {
          async *chunks(path: string, from: number, to: number): AsyncIterable<Uint8Array> {
            for await (const chunk of source.chunks(path, from, to)) {
              for (let at = 0; at < chunk.length; at += PIECE) {
                const piece = chunk.subarray(at, Math.min(chunk.length, at + PIECE));
                shared.set(piece);
                yield shared.subarray(0, piece.length);
              }
            }
          },
        };
        const borrowed: string[] = [];
        let asynchronous = 0;
        await forEachLatestRecord(
          { channels: storage.channels, source: pieces as unknown as typeof source },
          types,
          (record) => {
            // Every other record is handled after an await, as a handler making a table would.
            if (borrowed.length % 2 === 0) {
              borrowed.push(text(record));
              return;
            }
            asynchronous++;
            return Promise.resolve().then(() => void borrowed.push(text(record)));
          },
          undefined,
          true,
        );
        expect(copied.length).toBeGreaterThan(0);
        expect(asynchronous).toBeGreaterThan(0);
        expect(borrowed).toEqual(copied);
      } finally {
        await storage.close();
      }
    });
  }
});
