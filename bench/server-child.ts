/**
 * Benchmark child: opens a storage, reports open time and memory, then serves it on loopback.
 * Prints one JSON line on stdout once listening (or, with --open-only, once opened, and exits);
 * runs until killed.
 * Usage: server-child.ts <dir> [--follow|--no-follow] [--open-only [--graph [--cold-graph]]] [--api]
 *        | server-child.ts '' --ceiling
 * --api serves /api/v1 too and reports only once its graph index is ready; --cold-graph drops the
 * page cache between opening and building the graph index (as root).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Run as TypeScript (tsx, BENCH_SOURCE=1), source maps are on for all code; the server as users
// run it (`node dist/cli/main.js`) has them off, and with them on it answered /object about 3 %
// slower (measured at 64 connections, alternated).
process.setSourceMapsEnabled(false);

// The built code (dist/, as `npm start` and `npx storage-inspector` run it) unless BENCH_SOURCE=1.
// processes.ts runs this file bundled, as plain JavaScript elsewhere, and names the project in
// BENCH_ROOT; run by hand (`tsx bench/server-child.ts`), the project is the folder above this one.
const root = process.env.BENCH_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), '..');
const from = pathToFileURL(join(root, process.env.BENCH_SOURCE === '1' ? 'src' : 'dist')).href;
const { buildApp } = (await import(`${from}/http/app.js`)) as typeof import('../src/http/app.js');
const { StorageFollower } = (await import(`${from}/storage/follow/follow.js`)) as typeof import('../src/storage/follow/follow.js');
const { Storage } = (await import(`${from}/storage/storage.js`)) as typeof import('../src/storage/storage.js');
const { buildGraph } = (await import(`${from}/graph/build/graph-build.js`)) as typeof import('../src/graph/build/graph-build.js');
const { StorageRegistry } = (await import(`${from}/registry/storage-registry.js`)) as typeof import('../src/registry/storage-registry.js');
const { dropCaches } = await import('./storages.js');

export interface ChildInfo {
  readonly port: number;
  readonly pid: number;
  readonly openMs?: number;
  /** CPU time (user + system, all threads) the open took: robust against other load on the machine. */
  readonly openCpuMs?: number;
  readonly entities?: number;
  readonly files?: number;
  /** RSS of the process once the storage is open (after a garbage collection when the process only opens). */
  readonly rssAfterOpen?: number;
  readonly rssPerEntity?: number;
  readonly heapPerEntity?: number;
  readonly indexBytesPerEntity?: number;
  readonly rootObjectId?: string;
  readonly sample?: string[];
  /** With --graph: building the graph index after opening (time, CPU, bytes per entity, RSS after). */
  readonly graphMs?: number;
  readonly graphCpuMs?: number;
  readonly graphBytesPerEntity?: number;
  readonly rssAfterGraph?: number;
  /** The graph's bytes split: per reference (both directions), per entity (node arrays), per superseded record. */
  readonly graphBytesPerReference?: number;
  readonly graphNodeBytesPerEntity?: number;
  readonly graphSupersededBytes?: number;
  readonly graphReferences?: number;
  /** Whether the page cache was dropped before the graph build. */
  readonly graphCold?: boolean;
}

const [dir = '', ...flags] = process.argv.slice(2);
const SAMPLE = 20_000;

/** Lets what loading the code left to do (compiling in the background) end before a measurement. */
async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 60));
}

/**
 * Full garbage collections, for memory figures once nothing more is timed in this process.
 * `--expose-gc` is switched on only here, at run time: with it set (on the command line as well
 * as at run time), a worker thread starts without Node's startup snapshot, and the server as
 * users run it has no such flag. Measured: two worker threads online after 41–53 ms instead of
 * 24–31, with 72–90 ms of CPU instead of 46–58; opening the 10M benchmark storage (two index
 * threads) took 291–374 ms (median 311) in this child with the flag on the command line and
 * 280–311 ms (median 288) without it, five alternated opens.
 */
async function collect(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
}

function report(info: ChildInfo): void {
  process.stdout.write(`${JSON.stringify(info)}\n`);
}

if (flags.includes('--ceiling')) {
  // The Node ceiling: a plain node:http server answering a fixed small JSON body.
  const body = Buffer.from('{"name":"ROOT","objectId":"1000000000000000028"}');
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => report({ port: (server.address() as AddressInfo).port, pid: process.pid }));
} else {
  await settle();
  const before = process.memoryUsage();
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  // BENCH_RECORD_CACHE_BYTES: the cache of records read lately at another size (0: none), to compare.
  const cacheBytes = process.env.BENCH_RECORD_CACHE_BYTES;
  const storage = await Storage.open(dir, cacheBytes === undefined || cacheBytes === '' ? {} : { recordCacheBytes: Number(cacheBytes) });
  const openMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  // Collected only when no worker thread starts in this process any more (see `collect`): then
  // the memory figures leave garbage out; otherwise they count what garbage the open left.
  const onlyOpens = flags.includes('--open-only') && !flags.includes('--graph');
  if (onlyOpens) await collect();
  else await settle();
  const after = process.memoryUsage();
  const entities = storage.entityCount;
  const opened = {
    pid: process.pid,
    openMs,
    openCpuMs: (cpu.user + cpu.system) / 1000,
    entities,
    files: storage.channels.reduce((n, c) => n + c.files.length, 0),
    rssAfterOpen: after.rss,
    rssPerEntity: (after.rss - before.rss) / entities,
    heapPerEntity: (after.heapUsed - before.heapUsed) / entities,
    indexBytesPerEntity: storage.channels.reduce((n, c) => n + c.objects.byteSize, 0) / entities,
    rootObjectId: storage.rootObjectId.toString(),
  };
  if (flags.includes('--open-only')) {
    if (!flags.includes('--graph')) {
      report({ port: 0, ...opened });
      process.exit(0);
    }
    const graphCold = flags.includes('--cold-graph') && dropCaches();
    const graphStarted = performance.now();
    const graphCpu = process.cpuUsage();
    const { graph } = await buildGraph(storage);
    const graphMs = performance.now() - graphStarted;
    const cpu = process.cpuUsage(graphCpu);
    await collect();
    const parts = graph.memory();
    const memory = Object.values(parts).reduce((n, b) => n + b, 0);
    const references = graph.adjacency.referenceCount();
    const rowStartBytes = (graph.nodeCount + 1) * 4;
    report({
      port: 0,
      ...opened,
      graphMs,
      graphCpuMs: (cpu.user + cpu.system) / 1000,
      graphBytesPerEntity: memory / entities,
      rssAfterGraph: process.memoryUsage().rss,
      graphBytesPerReference: (parts.adjacency - rowStartBytes) / Math.max(1, references),
      graphNodeBytesPerEntity: (parts.nodeIds + parts.types + parts.reach + rowStartBytes) / entities,
      graphSupersededBytes: parts.superseded,
      graphReferences: references,
      graphCold,
    });
    process.exit(0);
  }
  // A uniform sample of existing object ids for the load generator (reservoir over the index).
  const sample: string[] = [];
  let seen = 0;
  let seed = 12345;
  for (const channel of storage.channels) {
    channel.objects.forEach((low, high) => {
      seen++;
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      if (sample.length < SAMPLE) sample.push(((BigInt(high) << 32n) | BigInt(low)).toString());
      else if (seed % seen < SAMPLE) sample[seed % SAMPLE] = ((BigInt(high) << 32n) | BigInt(low)).toString();
    });
  }
  const follower = flags.includes('--follow') ? new StorageFollower(storage, { pollIntervalMs: 100 }) : undefined;
  // BENCH_METRICS=0: without /metrics and its per-request bookkeeping (to measure what it costs).
  // --api: our own API too, answering once its graph index is built.
  const registry = flags.includes('--api') ? new StorageRegistry() : undefined;
  if (registry !== undefined) {
    registry.add('default', storage);
    registry.startAll();
    await registry.get()!.graph.ready();
  }
  const app = buildApp(storage, {
    instance: 'microstream',
    ...(registry === undefined ? {} : { api: registry }),
    metrics: process.env.BENCH_METRICS !== '0',
    ...(follower === undefined ? {} : { catchUp: () => follower.refreshNow() }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  follower?.start();
  report({ port: (app.server.address() as AddressInfo).port, ...opened, sample });
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
