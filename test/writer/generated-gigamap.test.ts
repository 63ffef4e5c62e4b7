import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gigaMapIds } from '../../src/gigamap/find-gigamaps.js';
import { reportGigaMap } from '../../src/gigamap/gigamap-report.js';
import { readGigaMap } from '../../src/gigamap/gigamap-structure.js';
import { readIndexKeys } from '../../src/gigamap/index-keys.js';
import { summarizeEntity } from '../../src/gigamap/entity-summary.js';
import { buildGraph } from '../../src/graph/build/graph-build.js';
import { Storage } from '../../src/storage/storage.js';
import { generatedPersonId, GIGAMAP_CITIES } from '../../src/writer/generator/gigamap-writer.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';

/**
 * `generate --family eclipsestore --gigamap n`: the GigaMap reads back as written: every entity in
 * its slot, the city and id indices decoded from the bitmaps the writer encoded agree with the
 * entities' values, across several level-2 segments and bitmap segments.
 */

// More than one level-2 segment (2^18 entities) and more than one bitmap segment (2^20 ids) would
// take long here; 2^18 + 300 crosses the first.
const ENTITIES = 2 ** 18 + 300;
let base: string;
let storage: Storage;
let gigaMap: bigint;
let reachable: boolean;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'gen-gigamap-'));
  generateStorage({ directory: join(base, 's'), entities: 500, family: 'eclipsestore', gigamap: ENTITIES, channelCount: 2, seed: 5 });
  storage = await Storage.open(join(base, 's'));
  const { graph } = await buildGraph(storage, { threads: false });
  const ids = gigaMapIds(graph);
  expect(ids).toHaveLength(1);
  gigaMap = ids[0]!;
  reachable = graph.isReachable(graph.nodes.nodeOfId(gigaMap));
}, 120_000);

afterAll(async () => {
  await storage.close();
  rmSync(base, { recursive: true, force: true });
});

describe('a generated GigaMap', () => {
  it('is reachable from the library and has every entity in entity-id order', async () => {
    expect(reachable).toBe(true);
    const map = await readGigaMap(storage, gigaMap);
    expect(map).toMatchObject({ size: BigInt(ENTITIES), currentId: BigInt(ENTITIES), level2Segments: 2, problems: [] });
    expect(map.entityIds.length).toBe(ENTITIES);
    expect(map.entityIds[ENTITIES - 1]).toBe(ENTITIES - 1);
    const last = await summarizeEntity(storage, map.objectIds[ENTITIES - 1]!);
    expect(last.summary).toContain(`id=${generatedPersonId(ENTITIES - 1)}`);
  });

  it('has indices whose bitmaps name exactly the entities with each value', async () => {
    const map = await readGigaMap(storage, gigaMap);
    const id = await readIndexKeys(storage, map, map.indices.find((i) => i.name === 'id')!);
    expect(id.keyCount).toBe(ENTITIES);
    for (const e of [0, 1, 4095, 4096, 2 ** 18 - 1, 2 ** 18, ENTITIES - 1]) {
      const k = id.find(String(generatedPersonId(e)));
      expect([...id.entities(k)], `entity ${e}`).toEqual([e]);
    }
    const city = await readIndexKeys(storage, map, map.indices.find((i) => i.name === 'city')!);
    expect(city.entityCount).toBe(ENTITIES);
    // Each sampled entity is under the key its record names.
    for (const e of [0, 17, 70_000, 2 ** 18 + 299]) {
      const summary = (await summarizeEntity(storage, map.objectIds[e]!)).summary;
      const name = GIGAMAP_CITIES.find((c) => summary.includes(`city=${c},`))!;
      expect([...city.entities(city.find(name))]).toContain(e);
    }
    const report = await reportGigaMap(storage, map.objectId);
    expect(report.findings).toEqual([]);
    expect(report.indices.find((i) => i.name === 'id')).toMatchObject({ kind: 'binary', unique: true, keys: ENTITIES });
  });

  it('is refused for the microstream family', () => {
    expect(() => generateStorage({ directory: join(base, 'ms'), entities: 500, gigamap: 10 })).toThrow(/eclipsestore/);
  });
});
