/**
 * Child of per-request-garbage.test.ts: answers `/object` (the Java service) and builds the
 * `/api/v1/objects/{oid}` view for the objects of a storage, one after the other, and prints the
 * bytes that young-generation collections promoted to the old generation per answer (V8's
 * GCProfiler: the old space's growth over each scavenge).
 */
import { GCProfiler } from 'node:v8';
import { objectViewOf } from '../../src/http/api-v1/graph-answers.js';
import { answerRequest } from '../../src/http/java-service.js';
import { StorageRegistry } from '../../src/http/storage-registry.js';
import { Storage } from '../../src/storage/storage.js';

const [dir = ''] = process.argv.slice(2);
const ANSWERS = 20_000;

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

async function promotedPerAnswer(answer: (i: number) => Promise<void>): Promise<number> {
  for (let i = 0; i < ANSWERS; i++) await answer(i); // compiled and warm
  const profiler = new GCProfiler();
  profiler.start();
  for (let i = 0; i < ANSWERS; i++) await answer(i);
  const { statistics } = profiler.stop();
  const oldSpace = (s: (typeof statistics)[number]['beforeGC']): number => s.heapSpaceStatistics.find((x) => x.spaceName === 'old_space')?.spaceUsedSize ?? 0;
  let promoted = 0;
  for (const gc of statistics) if (gc.gcType === 'Scavenge') promoted += Math.max(0, oldSpace(gc.afterGC) - oldSpace(gc.beforeGC));
  return promoted / ANSWERS;
}

const result = { javaObject: await promotedPerAnswer(javaObject), apiObject: await promotedPerAnswer(apiObject) };
await registry.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
