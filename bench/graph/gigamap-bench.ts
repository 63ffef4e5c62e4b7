/**
 * `npm run bench:gigamap`: a generated EclipseStore storage with a GigaMap of BENCH_GIGAMAP_SIZES
 * persons (default 10M; `generate --family eclipsestore --gigamap n`, generated once under
 * bench/.storages), served in-process (`/api/v1` through fastify's inject, no graph index: the
 * GigaMap routes do not need one). Measures:
 * - opening: the storage opened, and the first entity page (walks every segment of the GigaMap);
 * - the last page of 100 entities (BENCH_ROUNDS requests, p50/p99);
 * - a key's entities from the hashing index `city` (first request: every bitmap of the index
 *   decoded; then BENCH_ROUNDS requests over the keys, p50/p99);
 * - `GROUP BY` over an index, as the SQL engine would be fed: every row of `_gigamap_index` for the
 *   GigaMap produced in column batches and counted per key.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { gigaMapIndexRows } from '../../src/gigamap/sql-rows.js';
import { buildApp } from '../../src/http/app.js';
import { StorageRegistry } from '../../src/registry/storage-registry.js';
import { Storage } from '../../src/storage/storage.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { STORAGES } from '../storages.js';

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 200));
const SIZES = (process.env.BENCH_GIGAMAP_SIZES ?? '10000000').split(',').map(Number);

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function storageWithGigaMap(entities: number): string {
  const dir = join(STORAGES, `gigamap-${entities}-c4-es`);
  if (existsSync(join(dir, '.complete'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  const started = performance.now();
  generateStorage({ directory: dir, entities: 1000, family: 'eclipsestore', gigamap: entities, channelCount: 4, seed: 1 });
  writeFileSync(join(dir, '.complete'), '');
  console.log(`generated ${dir} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return dir;
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

for (const entities of SIZES) {
  if (!Number.isSafeInteger(entities) || entities < 1) throw new RangeError(`BENCH_GIGAMAP_SIZES: ${entities} is not a size`);
  const dir = storageWithGigaMap(entities);
  // Found through a graph index of a storage opened for that alone (and closed): the routes need none.
  const [gigaMap, graphMs] = await timed(() => findGigaMap(dir));
  const load = loadavg()[0]!;
  const [storage, openMs] = await timed(() => Storage.open(dir));
  const registry = new StorageRegistry();
  registry.add('bench', storage);
  const app = buildApp(storage, { instance: 'store-data', api: registry });
  const get = async (url: string): Promise<Record<string, any>> => {
    const response = await app.inject({ url });
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 300)}`);
    return response.json() as Record<string, any>;
  };
  try {
        const base = `/api/v1/objects/${gigaMap}/gigamap`;
    const [first, firstMs] = await timed(() => get(`${base}/entities?limit=100`));
    const size = Number(first.size);
    const lastPage: number[] = [];
    for (let i = 0; i < ROUNDS; i++) lastPage.push((await timed(() => get(`${base}/entities?offset=${size - 100}&limit=100`)))[1]);
    const [keys, keysMs] = await timed(() => get(`${base}/indices/city/keys`));
    const keyTexts = (keys.keys as { key: string }[]).map((k) => k.key);
    const keyPage: number[] = [];
    for (let i = 0; i < ROUNDS; i++) keyPage.push((await timed(() => get(`${base}/indices/city/entities?key=${encodeURIComponent(keyTexts[i % keyTexts.length]!)}&offset=${(i * 997) % 1000}&limit=100`)))[1]);
    const [counts, groupMs] = await timed(async () => {
      const perKey = new Map<string, number>();
      for await (const batch of gigaMapIndexRows(storage, [gigaMap], { indexNames: ['city'] })) {
        batch.keys.forEach((key, j) => perKey.set(key, (perKey.get(key) ?? 0) + batch.keyRuns[j]!));
      }
      return perKey;
    });
    const rows = [...counts.values()].reduce((a, b) => a + b, 0);
    const rss = process.memoryUsage().rss;
    console.log(`GigaMap of ${entities.toLocaleString('en')} persons (load average ${load.toFixed(2)}):`);
    console.log(`  open storage                         ${openMs.toFixed(0)} ms (graph index to find the GigaMap: ${graphMs.toFixed(0)} ms, not needed by the routes)`);
    console.log(`  first entity page (segments walked)  ${firstMs.toFixed(0)} ms`);
    console.log(`  last page of 100 entities            p50 ${percentile(lastPage, 50).toFixed(2)} ms, p99 ${percentile(lastPage, 99).toFixed(2)} ms (${ROUNDS} requests)`);
    console.log(`  city keys (every bitmap decoded)     ${keysMs.toFixed(0)} ms, ${keyTexts.length} keys`);
    console.log(`  a city key's entities, page of 100   p50 ${percentile(keyPage, 50).toFixed(2)} ms, p99 ${percentile(keyPage, 99).toFixed(2)} ms (${ROUNDS} requests)`);
    console.log(`  GROUP BY city over _gigamap_index    ${groupMs.toFixed(0)} ms for ${rows.toLocaleString('en')} rows (${counts.size} keys)`);
    console.log(`  rss                                  ${(rss / 1024 ** 2).toFixed(0)} MiB`);
  } finally {
    await app.close();
    await registry.close();
    await storage.close();
  }
}

/** The GigaMap of a generated storage (the instance of its type, from a graph index). */
async function findGigaMap(dir: string): Promise<bigint> {
  const { buildGraph } = await import('../../src/graph/build/graph-build.js');
  const { gigaMapIds } = await import('../../src/gigamap/find-gigamaps.js');
  const storage = await Storage.open(dir);
  try {
    const ids = gigaMapIds((await buildGraph(storage)).graph);
    if (ids.length !== 1) throw new Error(`expected one GigaMap, found ${ids.length}`);
    return ids[0]!;
  } finally {
    await storage.close();
  }
}
