/**
 * `npm run bench:garbage`: how many bytes an answer's objects promote to the old generation, for
 * `/object` (the Java service, answered in-process) and the `/api/v1/objects/{oid}` view of an
 * object, over the objects of a generated storage (BENCH_GARBAGE_ENTITIES, default 20,000;
 * generated in a temporary directory and removed). BENCH_GARBAGE_ANSWERS answers (default 20,000)
 * warm each kind up, as many more are measured: the old space's growth over each young-generation
 * collection (scavenge), from V8's GCProfiler, per answer. An answer's objects should die young:
 * object literals with getters (limits.ts) and spreads building the views (object-view.ts,
 * graph-answers.ts) once promoted 280 and 780 bytes per answer, and cost a quarter of the server's
 * CPU under load. Not a test: when the collector runs moves the figure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GCProfiler } from 'node:v8';
import { objectViewOf } from '../../src/http/api-v1/analysis/graph-answers.js';
import { answerRequest } from '../../src/http/java/java-service.js';
import { StorageRegistry } from '../../src/registry/storage-registry.js';
import { Storage } from '../../src/storage/storage.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';

const ENTITIES = Number(process.env.BENCH_GARBAGE_ENTITIES ?? 20_000);
const ANSWERS = Number(process.env.BENCH_GARBAGE_ANSWERS ?? 20_000);

const root = mkdtempSync(join(tmpdir(), 'si-garbage-'));
try {
  const dir = join(root, 'storage');
  generateStorage({ directory: dir, entities: ENTITIES, channelCount: 2, seed: 5 });
  const storage = await Storage.open(dir);
  const ids: bigint[] = [];
  for (const channel of storage.channels) channel.objects.forEach((low, high) => void ids.push((BigInt(high) << 32n) | BigInt(low)));
  const registry = new StorageRegistry();
  registry.add('default', storage);
  registry.startAll();
  const context = registry.get()!;
  const graph = await context.graph.ready();

  const javaObject = async (i: number): Promise<void> => {
    await answerRequest(storage, { instance: 'microstream' }, { method: 'GET', url: `/microstream/object/${ids[i % ids.length]}`, headers: {} });
  };
  const apiObject = async (i: number): Promise<void> => {
    await objectViewOf(context, graph, ids[i % ids.length]!, { offset: 0, limit: 100 });
  };

  /** Bytes promoted per answer, and the scavenges that promoted them. */
  const promotedPerAnswer = async (answer: (i: number) => Promise<void>): Promise<{ bytes: number; scavenges: number }> => {
    for (let i = 0; i < ANSWERS; i++) await answer(i); // compiled and warm
    const profiler = new GCProfiler();
    profiler.start();
    for (let i = 0; i < ANSWERS; i++) await answer(i);
    const { statistics } = profiler.stop();
    const oldSpace = (s: (typeof statistics)[number]['beforeGC']): number => s.heapSpaceStatistics.find((x) => x.spaceName === 'old_space')?.spaceUsedSize ?? 0;
    let promoted = 0;
    let scavenges = 0;
    for (const gc of statistics) {
      if (gc.gcType !== 'Scavenge') continue;
      scavenges++;
      promoted += Math.max(0, oldSpace(gc.afterGC) - oldSpace(gc.beforeGC));
    }
    return { bytes: promoted / ANSWERS, scavenges };
  };

  for (const [name, answer] of [['/object (Java service)', javaObject], ['/api/v1/objects/{oid} view', apiObject]] as const) {
    const { bytes, scavenges } = await promotedPerAnswer(answer);
    console.log(`${name}: ${bytes.toFixed(2)} bytes promoted per answer (${ANSWERS} answers, ${scavenges} scavenges)`);
  }
  await registry.close();
} finally {
  rmSync(root, { recursive: true, force: true });
}
