/**
 * One dominator-tree benchmark run in a fresh process (bench/graph/dominator-bench.ts starts it): the
 * graph build, then the dominator tree computed at once (time, CPU, the tree's bytes per object,
 * the peak RSS it added), the first page of the tree (the roots object's children, a scan of
 * the tree) and the biggest retainers; then as a server runs it (the graph service's build and
 * the tree in slices) with /api/v1/dominators and /api/v1/retainers timed. One JSON line on stdout.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

process.setSourceMapsEnabled(false);
const from = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', '..', process.env.BENCH_SOURCE === '1' ? 'src' : 'dist')).href;
const { buildGraph } = (await import(`${from}/graph/build/graph-build.js`)) as typeof import('../../src/graph/build/graph-build.js');
const { computeDominators } = (await import(`${from}/graph/model/dominator-computation.js`)) as typeof import('../../src/graph/model/dominator-computation.js');
const { StorageRegistry } = (await import(`${from}/registry/storage-registry.js`)) as typeof import('../../src/registry/storage-registry.js');
const { buildApp } = (await import(`${from}/http/app.js`)) as typeof import('../../src/http/app.js');
const { Storage } = (await import(`${from}/storage/storage.js`)) as typeof import('../../src/storage/storage.js');

const [dir] = process.argv.slice(2) as [string];
const gc = (globalThis as { gc?: () => void }).gc;

const storage = await Storage.open(dir);
let started = performance.now();
let cpu = process.cpuUsage();
const { graph } = await buildGraph(storage);
const graphMs = performance.now() - started;
const graphCpu = process.cpuUsage(cpu);
gc?.();
const graphBytes = Object.values(graph.memory()).reduce((a, b) => a + b, 0);
const rssBefore = process.memoryUsage().rss;
const maxRssBefore = process.resourceUsage().maxRSS * 1024;

started = performance.now();
cpu = process.cpuUsage();
const tree = computeDominators(graph, storage.channels);
const treeMs = performance.now() - started;
const treeCpu = process.cpuUsage(cpu);
const maxRssAfter = process.resourceUsage().maxRSS * 1024;
gc?.();
const rssAfter = process.memoryUsage().rss;

started = performance.now();
const children = tree.children(tree.rootsNode);
const firstPageMs = performance.now() - started;
started = performance.now();
const top = tree.top(20);
const topMs = performance.now() - started;
const topShare = top.length === 0 ? 0 : tree.retainedBytes(top[0]!) / tree.reachableBytes;
const reachable = tree.reachableObjects;
const reachableBytes = tree.reachableBytes;
const treeBytesPerEntity = tree.byteSize / graph.nodeCount;
const references = graph.adjacency.referenceCount();
const entities = graph.nodeCount;

// The background path, as a server runs it: the graph index built again by the storage's graph
// service, then the tree in slices of 20 ms between turns of the event loop; then the first page
// of /api/v1/dominators and of /api/v1/retainers as a client gets them.
const registry = new StorageRegistry();
const context = registry.add('default', storage);
const app = buildApp(storage, { instance: 'microstream', api: registry });
registry.startAll();
await context.graph.ready();
const sliced = await context.graph.dominators.ready();
const state = context.graph.dominators.state;
const slicedMs = state.kind === 'ready' ? state.computeMs : Number.NaN;
if (sliced.reachableBytes !== reachableBytes) throw new Error('the sliced computation differs');
const p = (times: number[], q: number): number => [...times].sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor(q * times.length))]!;
const timed = async (url: string, n: number): Promise<number[]> => {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const at = performance.now();
    const answer = await app.inject({ url });
    times.push(performance.now() - at);
    if (answer.statusCode !== 200) throw new Error(`${url}: ${answer.statusCode} ${answer.body}`);
  }
  return times;
};
// A route's first answer compiles its schemas (lazy-schema-compilers.ts): timed apart.
const firstRequestMs = (await timed('/api/v1/dominators?limit=1', 1))[0]!;
await timed('/api/v1/retainers?limit=1', 1);
const pageTimes = await timed('/api/v1/dominators?limit=100', 100);
const retainerTimes = await timed('/api/v1/retainers?limit=20', 20);

console.log(
  JSON.stringify({
    entities,
    references,
    reachable,
    reachableBytes,
    graphMs,
    graphCpuMs: (graphCpu.user + graphCpu.system) / 1000,
    graphBytesPerEntity: graphBytes / entities,
    treeMs,
    treeCpuMs: (treeCpu.user + treeCpu.system) / 1000,
    treeBytesPerEntity,
    rssAddedPerEntity: (rssAfter - rssBefore) / entities,
    peakAddedBytes: Math.max(0, maxRssAfter - Math.max(maxRssBefore, rssBefore)),
    slicedMs,
    firstPageMs,
    rootChildren: children.length,
    topMs,
    topShare,
    firstRequestMs,
    pageP50: p(pageTimes, 0.5),
    pageP99: p(pageTimes, 0.99),
    retainersP50: p(retainerTimes, 0.5),
    retainersMax: Math.max(...retainerTimes),
  }),
);
await app.close();
await registry.close();
await storage.close();
