import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Storage } from '../../src/storage/storage.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';

describe('indexing channels in a worker thread', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'si-parallel-'));
    generateStorage({ directory: dir, entities: 5000, channelCount: 4, seed: 9, fileMaximumSize: 32 * 1024, entitiesPerStore: 500 });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives exactly the state a single-threaded load gives', async () => {
    const serial = await Storage.open(dir, { parallelThresholdBytes: Number.POSITIVE_INFINITY });
    const parallel = await Storage.open(dir, { parallelThresholdBytes: 0 });
    try {
      expect(parallel.entityCount).toBe(5000);
      expect(parallel.entityCount).toBe(serial.entityCount);
      expect(parallel.rootObjectId).toBe(serial.rootObjectId);
      const files = (s: Storage) => s.channels.map((c) => c.files.map((f) => [f.fileNumber, f.totalLength, f.liveLength]));
      expect(files(parallel)).toEqual(files(serial));
      for (const channel of serial.channels) {
        const ids: bigint[] = [];
        channel.objects.forEach((low, high) => ids.push((BigInt(high) << 32n) | BigInt(low)));
        for (const id of ids.slice(0, 300)) {
          const [a, b] = await Promise.all([serial.readEntity(id), parallel.readEntity(id)]);
          expect(b?.offset).toBe(a?.offset);
          expect(b?.file).toBe(a?.file);
        }
      }
    } finally {
      await serial.close();
      await parallel.close();
    }
  });
});
