import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/serving/cli-in-process.js';
import { expectedKeys, GIGAMAP_STORAGE, loadApiDump } from './gigamap-corpus.js';

/** `analyze` on the GigaMap corpus: each GigaMap with its size, segments and indices. */

const cli = runCliInProcess;

const dump = loadApiDump();

describe('analyze on GigaMaps', () => {
  it('reports every GigaMap as JSON: size, segments, indices with keys, entities and bitmap bytes', async () => {
    const { code, stdout } = await cli(['analyze', GIGAMAP_STORAGE, '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { gigamaps: { objectId: string; size: string; listed: number; level1Segments: number; bitmapBytes: number; findings: unknown[]; indices: { name: string; kind: string; unique: boolean; keys: number; entities: number; bitmapBytes: number }[] }[] };
    expect(report.gigamaps.map((g) => g.objectId)).toEqual(dump.map((m) => m.objectId).sort());
    for (const map of dump) {
      const g = report.gigamaps.find((x) => x.objectId === map.objectId)!;
      expect(g).toMatchObject({ size: String(map.size), listed: map.size, findings: [] });
      for (const index of g.indices) {
        expect(index.keys, index.name).toBe(expectedKeys(map, index.name).size);
        expect(index.entities).toBe(map.size);
        expect(index.bitmapBytes).toBeGreaterThan(0);
      }
      expect(g.bitmapBytes).toBe(g.indices.reduce((n, i) => n + i.bitmapBytes, 0));
    }
  });

  it('prints a GigaMaps section', async () => {
    const { stdout } = await cli(['analyze', GIGAMAP_STORAGE]);
    expect(stdout).toContain('GigaMaps: 2');
    expect(stdout).toMatch(/GigaMap \d+: size 4919, next entity id 5040/);
    expect(stdout).toMatch(/index id: binary, unique, 4,919 keys, 4,919 entities/);
    expect(stdout).toMatch(/index city: hashing, 12 keys, 4,919 entities/);
  });
});
