/**
 * One dominator-tree benchmark run in a fresh process (bench/dominator-bench.ts starts it): the
 * graph build, then the dominator tree computed at once (time, CPU, the tree's bytes per object,
 * the peak RSS it added) and in the background service's slices, then the first page of the
 * tree (the roots object's children, a scan of the tree) and the biggest retainers. One JSON
 * line on stdout.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

process.setSourceMapsEnabled(false);
const from = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', process.env.BENCH_SOURCE === '1' ? 'src' : 'dist')).href;
const { buildGraph } = (await import(`${from}/graph/build/graph-build.js`)) as typeof import('../src/graph/build/graph-build.js');
const { computeDominators } = (await import(`${from}/graph/model/dominator-computation.js`)) as typeof import('../src/graph/model/dominator-computation.js');
const { DominatorService } = (await import(`${from}/graph/dominator-service.js`)) as typeof import('../src/graph/dominator-service.js');
const { Storage } = (await import(`${from}/storage/storage.js`)) as typeof import('../src/storage/storage.js');

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

// The background path: slices of 20 ms between turns of the event loop, as a server runs it.
const service = new DominatorService(storage);
started = performance.now();
service.follow(graph);
const sliced = await service.ready();
const slicedMs = performance.now() - started;
if (sliced.reachableBytes !== tree.reachableBytes) throw new Error('the sliced computation differs');

started = performance.now();
const children = tree.children(tree.rootsNode);
const firstPageMs = performance.now() - started;
started = performance.now();
const top = tree.top(20);
const topMs = performance.now() - started;

const entities = graph.nodeCount;
console.log(
  JSON.stringify({
    entities,
    references: graph.adjacency.referenceCount(),
    reachable: tree.reachableObjects,
    reachableBytes: tree.reachableBytes,
    graphMs,
    graphCpuMs: (graphCpu.user + graphCpu.system) / 1000,
    graphBytesPerEntity: graphBytes / entities,
    treeMs,
    treeCpuMs: (treeCpu.user + treeCpu.system) / 1000,
    treeBytesPerEntity: tree.byteSize / entities,
    rssAddedPerEntity: (rssAfter - rssBefore) / entities,
    peakAddedBytes: Math.max(0, maxRssAfter - Math.max(maxRssBefore, rssBefore)),
    slicedMs,
    firstPageMs,
    rootChildren: children.length,
    topMs,
    topShare: top.length === 0 ? 0 : tree.retainedBytes(top[0]!) / tree.reachableBytes,
  }),
);
service.close();
await storage.close();
