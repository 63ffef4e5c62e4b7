/**
 * The per-size part of `npm run bench` (run.ts): for one generated storage, the read-once floor
 * and open + index time warm and cold, index bytes per entity and RSS, the graph index, and
 * `/object`, `/root` and `/api/v1` under load against the Node ceiling, round by round.
 * BENCH_SIZES, BENCH_SECONDS, BENCH_ROUNDS and BENCH_GRAPH=0 are read here (see run.ts).
 */
import { readdirSync } from 'node:fs';
import { indexWorkerCount } from '../src/storage/index/index-workers.js';
import type { LoadResult } from './load-child.js';
import type { ChildInfo } from './server-child.js';
import { measureOpen, runLoad, startServer, stopChild, type ServerChild } from './processes.js';
import type { SizeResult } from './size-result.js';
import { spread } from './stats.js';
import { cannotRun, dropCaches, readInThreads, readOnceFloor, storageBytes, storageFor } from './storages.js';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
export const CONNECTIONS = 64;
const WARMUP_SECONDS = 1;
const DEFAULT_SIZES = [1_000_000, 10_000_000, 100_000_000];

export function sizes(): number[] {
  const asked = process.env.BENCH_SIZES?.split(',').map(Number) ?? DEFAULT_SIZES;
  return asked.filter((entities) => {
    const reason = cannotRun(entities);
    if (reason !== undefined) console.log(`skipping ${entities.toLocaleString('en')} entities: ${reason}`);
    return reason === undefined;
  });
}

/** Threads a storage is opened in (index-workers.ts decides; 0 worker threads is this one thread). */
function openThreads(dir: string): number {
  const channels = readdirSync(dir).filter((n) => /^channel_\d+$/.test(n)).length;
  return Math.max(1, indexWorkerCount(undefined, channels, storageBytes(dir)));
}

async function openRounds(
  dir: string,
  cold: boolean,
): Promise<{ threads: number; floors: number[]; threaded: number[]; opens: number[]; infos: Awaited<ReturnType<typeof measureOpen>>[] }> {
  const threads = openThreads(dir);
  const floors: number[] = [];
  const threaded: number[] = [];
  const opens: number[] = [];
  const infos = [];
  if (!cold) {
    // Everything into the page cache, and one open not counted: right after the page cache was
    // dropped (the cold rounds of the size before), the first reads of a storage leave its pages
    // on the kernel's inactive list and the next full reads pay for moving them (measured at 100M
    // after a drop, three rounds of floor and open: opens of 3,649, 2,731 and 2,489 ms, 7.2, 4.6
    // and 4.7 s of CPU; floors of 1,485, 998 and 985 ms). Warm means settled.
    await readOnceFloor(dir);
    await measureOpen(dir);
  }
  for (let round = 0; round < ROUNDS; round++) {
    if (cold) dropCaches();
    floors.push(await readOnceFloor(dir));
    if (threads > 1) {
      if (cold) dropCaches();
      threaded.push(await readInThreads(dir, threads));
    } else threaded.push(floors[floors.length - 1] as number);
    if (cold) dropCaches();
    const info = await measureOpen(dir);
    infos.push(info);
    opens.push(info.openMs ?? Number.NaN);
  }
  return { threads, floors, threaded, opens, infos };
}

export async function benchSize(entities: number, ceiling: ServerChild): Promise<SizeResult> {
  const dir = storageFor(entities);
  const bytes = storageBytes(dir);
  console.log(`${entities.toLocaleString('en')} entities (${(bytes / 1e6).toFixed(0)} MB): opening ${ROUNDS}× warm ...`);
  const warm = await openRounds(dir, false);

  let graph: SizeResult['graph'];
  if (process.env.BENCH_GRAPH !== '0') {
    // A single build varies by 10-20 % from run to run here: rounds, warm and cold alternated.
    const rounds = entities > 10_000_000 ? 1 : ROUNDS;
    const warmRuns: ChildInfo[] = [];
    const coldRuns: number[] = [];
    const coldFloors: number[] = [];
    for (let round = 0; round < rounds; round++) {
      console.log(`  graph index (round ${round + 1} of ${rounds}) ...`);
      warmRuns.push(await measureOpen(dir, true));
      if (dropCaches()) {
        console.log('  reading the files once, the page cache dropped; the graph index once more, the page cache dropped after opening ...');
        const floor = await readOnceFloor(dir);
        const { child, info: cold } = await startServer([dir, '--open-only', '--graph', '--cold-graph']);
        if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
        if (cold.graphCold === true && cold.graphMs !== undefined) {
          coldRuns.push(cold.graphMs);
          coldFloors.push(floor);
        }
      }
    }
    const warmSpread = spread(warmRuns.map((r) => r.graphMs ?? Number.NaN));
    const info = warmRuns.find((r) => r.graphMs === warmSpread.median) ?? warmRuns[0]!;
    const coldSpread = coldRuns.length === 0 ? undefined : spread(coldRuns);
    graph = {
      ms: warmSpread.median,
      cpuMs: spread(warmRuns.map((r) => r.graphCpuMs ?? Number.NaN)).median,
      bytesPerEntity: info.graphBytesPerEntity ?? Number.NaN,
      rssMb: (info.rssAfterGraph ?? Number.NaN) / 1024 ** 2,
      bytesPerReference: info.graphBytesPerReference ?? Number.NaN,
      nodeBytesPerEntity: info.graphNodeBytesPerEntity ?? Number.NaN,
      coldMs: coldSpread?.median,
      warmRuns: warmSpread,
      coldRuns: coldSpread,
      coldFloors: coldFloors.length === 0 ? undefined : spread(coldFloors),
      coldRatios: coldFloors.length === 0 ? undefined : spread(coldRuns.map((ms, i) => ms / (coldFloors[i] as number))),
    };
  }

  console.log(`  load: ${ROUNDS} rounds of ceiling, /object, /object without the record cache, /root (${SECONDS} s each) ...`);
  const server = await startServer([dir, '--no-follow']);
  // The same sample of ids as the server's (the same reservoir over the same index).
  const uncachedServer = await startServer([dir, '--no-follow'], { BENCH_RECORD_CACHE_BYTES: '0' });
  const objectPaths = (server.info.sample ?? []).map((id) => `/microstream/object/${id}`);
  type Runs = { ceiling: LoadResult; object: LoadResult; uncached: LoadResult; root: LoadResult };
  const runs: Runs[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const kinds = (['ceiling', 'object', 'uncached', 'root'] as const).map((_, i, all) => all[(i + round) % all.length]!);
      const results: Partial<Runs> = {};
      for (const kind of kinds) {
        const target = kind === 'ceiling' ? ceiling : kind === 'uncached' ? uncachedServer : server;
        const paths = kind === 'object' || kind === 'uncached' ? objectPaths : kind === 'root' ? ['/microstream/root'] : ['/'];
        results[kind] = await runLoad({
          port: target.info.port,
          serverPid: target.info.pid,
          paths,
          connections: CONNECTIONS,
          seconds: SECONDS,
          warmupSeconds: WARMUP_SECONDS,
        });
      }
      runs.push(results as Runs);
    }
  } finally {
    await stopChild(server.child);
    await stopChild(uncachedServer.child);
  }

  let api: SizeResult['api'];
  if (process.env.BENCH_GRAPH !== '0') {
    console.log(`  load: /api/v1 objects, referrers, paths (${SECONDS} s each) ...`);
    const apiServer = await startServer([dir, '--no-follow', '--api']);
    try {
      const ids = apiServer.info.sample ?? [];
      const measure = async (suffix: string) => {
        const r = await runLoad({ port: apiServer.info.port, serverPid: apiServer.info.pid, paths: ids.map((id) => `/api/v1/objects/${id}${suffix}`), connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS });
        return { p50: r.p50, p99: r.p99, rps: r.rps, errors: r.errors };
      };
      api = { objects: await measure(''), referrers: await measure('/referrers'), paths: await measure('/paths') };
    } finally {
      await stopChild(apiServer.child);
    }
  }

  let cold: Awaited<ReturnType<typeof openRounds>> | undefined;
  if (dropCaches()) {
    console.log(`  opening ${ROUNDS}× cold ...`);
    cold = await openRounds(dir, true);
  }

  const all = runs.flatMap((r) => [r.ceiling, r.object, r.uncached, r.root]);
  const first = warm.infos[0];
  return {
    entities,
    bytes,
    files: first?.files ?? 0,
    warmFloor: spread(warm.floors),
    warmOpen: spread(warm.opens),
    warmRatio: spread(warm.opens.map((o, i) => o / (warm.floors[i] as number))),
    threads: warm.threads,
    warmThreaded: spread(warm.threaded),
    warmThreadedRatio: spread(warm.opens.map((o, i) => o / (warm.threaded[i] as number))),
    warmOpenCpu: spread(warm.infos.map((i) => i.openCpuMs ?? Number.NaN)),
    ...(cold === undefined
      ? {}
      : {
          coldFloor: spread(cold.floors),
          coldOpen: spread(cold.opens),
          coldRatio: spread(cold.opens.map((o, i) => o / (cold.floors[i] as number))),
          coldThreaded: spread(cold.threaded),
          coldThreadedRatio: spread(cold.opens.map((o, i) => o / (cold.threaded[i] as number))),
        }),
    indexBytesPerEntity: first?.indexBytesPerEntity ?? Number.NaN,
    rssAfterOpen: spread(warm.infos.map((i) => (i.rssAfterOpen ?? Number.NaN) / 1024 ** 2)),
    ceiling: spread(runs.map((r) => r.ceiling.rps)),
    object: spread(runs.map((r) => r.object.rps)),
    objectRatio: spread(runs.map((r) => (100 * r.object.rps) / r.ceiling.rps)),
    objectP50: spread(runs.map((r) => r.object.p50)),
    objectP99: spread(runs.map((r) => r.object.p99)),
    uncached: spread(runs.map((r) => r.uncached.rps)),
    uncachedRatio: spread(runs.map((r) => (100 * r.uncached.rps) / r.ceiling.rps)),
    uncachedP99: spread(runs.map((r) => r.uncached.p99)),
    root: spread(runs.map((r) => r.root.rps)),
    rootRatio: spread(runs.map((r) => (100 * r.root.rps) / r.ceiling.rps)),
    rootP99: spread(runs.map((r) => r.root.p99)),
    cpuPerRequest: {
      ceiling: spread(runs.map((r) => cpuMicros(r.ceiling))),
      object: spread(runs.map((r) => cpuMicros(r.object))),
      uncached: spread(runs.map((r) => cpuMicros(r.uncached))),
      root: spread(runs.map((r) => cpuMicros(r.root))),
    },
    errors: all.reduce((n, r) => n + r.errors, 0),
    others: spread(all.map((r) => r.otherCores ?? Number.NaN)),
    loadAtCeiling: spread(runs.map((r) => r.ceiling.loadCores ?? Number.NaN)),
    objectDiskMb: spread(runs.map((r) => (r.object.serverDiskBytes ?? Number.NaN) / 1e6)),
    uncachedDiskMb: spread(runs.map((r) => (r.uncached.serverDiskBytes ?? Number.NaN) / 1e6)),
    ...(graph === undefined ? {} : { graph }),
    ...(api === undefined ? {} : { api }),
  };
}

/** Server CPU per request in µs (cores used / requests per second). */
function cpuMicros(result: LoadResult): number {
  return result.serverCores === undefined || result.rps === 0 ? Number.NaN : (1e6 * result.serverCores) / result.rps;
}
