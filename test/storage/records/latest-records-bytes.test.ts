import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forEachLatestRecordBytes, forEachLatestRecord } from '../../../src/storage/records/latest-records.js';
import { Storage } from '../../../src/storage/storage.js';
import { CONFORMANCE_DIR, STORAGE_NAMES } from '../../helpers/corpora/conformance.js';

/**
 * forEachLatestRecordBytes hands over every latest record whole, with its file offset, whatever
 * the size of the chunks the source reads in: records and headers cut by a chunk's end, and the
 * records that lie whole in a chunk (walked in a loop of its own), give the same records as a
 * pass that reads each record by itself (`forEachLatestRecord`).
 */

/** The source's chunks cut again into pieces of `size` bytes (a record or header may span many). */
function rechunked(storage: Storage, size: number): Pick<Storage['source'], 'chunks'> {
  return {
    async *chunks(path: string, from: number, to: number): AsyncIterable<Uint8Array> {
      for await (const chunk of storage.source.chunks(path, from, to)) {
        for (let at = 0; at < chunk.length; at += size) yield chunk.subarray(at, Math.min(chunk.length, at + size));
      }
    },
  };
}

describe('latest records whole', () => {
  for (const name of STORAGE_NAMES) {
    it(`the same records in chunks of 7, 61 and 4096 bytes as read one by one (${name})`, async () => {
      const storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', name));
      try {
        const expected: string[] = [];
        await forEachLatestRecord(storage, new Set(storage.dictionary.byId.keys()), (r) => {
          expected.push(`${r.objectId}:${r.file}:${r.offset}:${Buffer.from(r.content).toString('hex')}`);
        });
        expect(expected.length).toBeGreaterThan(0);
        for (const size of [7, 61, 4096]) {
          const seen: string[] = [];
          await forEachLatestRecordBytes({ channels: storage.channels, source: rechunked(storage, size) }, (bytes, at, offset, length, _channel, file) => {
            const record = bytes.subarray(at, at + length);
            expect(record.readBigInt64LE(0), `${name}, length at ${file.path}:${offset}`).toBe(BigInt(length));
            seen.push(`${record.readBigInt64LE(16)}:${file.path}:${offset}:${record.subarray(24).toString('hex')}`);
          });
          expect(seen, `chunks of ${size} bytes`).toEqual(expected);
        }
      } finally {
        await storage.close();
      }
    });
  }
});
