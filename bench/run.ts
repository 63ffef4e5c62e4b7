/**
 * `npm run bench`: generates (or reuses) storages of 100k, 1M and 10M entities and measures, per
 * storage and in one run: the read-once floor, open + index time, memory per entity, and HTTP
 * throughput/latency of `/object` and `/root` at 64 connections against a plain node:http
 * ceiling; then commit-to-visible latency of following and its cost on throughput.
 *
 * Environment: BENCH_SIZES=100000,1000000 to choose sizes; BENCH_SECONDS (default 5) per load run;
 * BENCH_SOURCE=1 serves from the TypeScript sources instead of the build.
 * Storages are kept under bench/.storages (git-ignored) and reused.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { freemem, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { generateStorage } from '../src/writer/generator/generate-storage.js';
import { StorageWriter } from '../src/writer/storage-writer.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const STORAGES = join(HERE, '.storages');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 64;
const CHANNELS = 4;

interface ChildInfo {
  port: number;
  openMs?: number;
  entities?: number;
  files?: number;
  rssPerEntity?: number;
  heapPerEntity?: number;
  indexBytesPerEntity?: number;
  rootObjectId?: string;
  sample?: string[];
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

function sizes(): number[] {
  if (process.env.BENCH_SIZES !== undefined) return process.env.BENCH_SIZES.split(',').map(Number);
  // 10M entities take ~0.8 GB on disk and ~0.5 GB of memory while generating and serving.
  const big = totalmem() >= 8 * 1024 ** 3 && freemem() >= 3 * 1024 ** 3;
  if (!big) console.log('note: skipping 10M entities (needs 8 GB of memory and 3 GB free)');
  return big ? [100_000, 1_000_000, 10_000_000] : [100_000, 1_000_000];
}

function storageFor(entities: number): string {
  const dir = join(STORAGES, `gen-${entities}-c${CHANNELS}-s1`);
  if (existsSync(join(dir, 'PersistenceTypeDictionary.ptd'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  const started = Date.now();
  process.stdout.write(`generating ${entities} entities ... `);
  generateStorage({ directory: dir, entities, channelCount: CHANNELS, seed: 1 });
  console.log(`${((Date.now() - started) / 1000).toFixed(1)} s`);
  return dir;
}

function filesOf(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesOf(path));
    else out.push(path);
  }
  return out;
}

/** Time to read every byte of the storage files once, sequentially, 8 MiB at a time. */
async function readOnceFloor(dir: string): Promise<{ ms: number; bytes: number }> {
  const buffer = Buffer.allocUnsafeSlow(8 * 1024 * 1024);
  const started = performance.now();
  let bytes = 0;
  for (const path of filesOf(dir)) {
    const handle = await open(path, 'r');
    try {
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        bytes += bytesRead;
      }
    } finally {
      await handle.close();
    }
  }
  return { ms: performance.now() - started, bytes };
}

/** Drops the page cache when allowed (root on Linux), so floor and open can also be measured cold. */
function dropCaches(): boolean {
  try {
    writeFileSync('/proc/sys/vm/drop_caches', '3');
    return true;
  } catch {
    return false;
  }
}

async function startChild(args: string[]): Promise<{ child: ChildProcess; info: ChildInfo }> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(HERE, 'server-child.ts'), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const info = await new Promise<ChildInfo>((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as ChildInfo));
    child.once('exit', (code) => reject(new Error(`benchmark server exited with ${code}`)));
  });
  return { child, info };
}

async function stopChild(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function load(port: number, paths: readonly string[]): Promise<Load> {
  let next = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      {
        setupRequest: (request) => {
          request.path = paths[next++ % paths.length] as string;
          return request;
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

function row(cells: readonly (string | number)[]): string {
  return `| ${cells.join(' | ')} |`;
}

const fmt = (n: number | undefined, digits = 1): string => (n === undefined ? '-' : n.toFixed(digits));

async function benchStorage(entities: number, ceilingRps: number): Promise<string> {
  const dir = storageFor(entities);
  const bytes = filesOf(dir).reduce((n, p) => n + statSync(p).size, 0);
  await readOnceFloor(dir); // warm the page cache
  const warmFloor = await readOnceFloor(dir);
  const { child, info } = await startChild([dir]);
  let objectLoad: Load;
  let rootLoad: Load;
  try {
    const objectPaths = (info.sample ?? []).map((id) => `/microstream/object/${id}`);
    objectLoad = await load(info.port, objectPaths);
    rootLoad = await load(info.port, ['/microstream/root']);
  } finally {
    await stopChild(child);
  }
  let cold = '-';
  if (dropCaches()) {
    const coldFloor = await readOnceFloor(dir);
    dropCaches();
    const coldChild = await startChild([dir]);
    await stopChild(coldChild.child);
    cold = `${fmt(coldFloor.ms, 0)} / ${fmt(coldChild.info.openMs, 0)} (${fmt((coldChild.info.openMs ?? 0) / coldFloor.ms, 2)}×)`;
  }
  return row([
    entities.toLocaleString('en'),
    `${(bytes / 1e6).toFixed(0)} MB, ${info.files} files`,
    `${fmt(warmFloor.ms, 0)} / ${fmt(info.openMs, 0)} (${fmt((info.openMs ?? 0) / warmFloor.ms, 2)}×)`,
    cold,
    `${fmt(info.indexBytesPerEntity)} / ${fmt(info.rssPerEntity)} / ${fmt(info.heapPerEntity, 2)}`,
    `${fmt(objectLoad.rps, 0)} (${fmt((100 * objectLoad.rps) / ceilingRps, 0)}%)`,
    `${fmt(objectLoad.p50, 0)} / ${fmt(objectLoad.p99, 0)}`,
    `${fmt(rootLoad.rps, 0)} (${fmt((100 * rootLoad.rps) / ceilingRps, 0)}%)`,
    `${fmt(rootLoad.p50, 0)} / ${fmt(rootLoad.p99, 0)}`,
    objectLoad.errors + rootLoad.errors,
  ]);
}

/** Commits to a copy of the 100k storage while a following server answers; measures visibility. */
async function benchFollow(ceilingRps: number): Promise<string[]> {
  const source = storageFor(100_000);
  const dir = join(STORAGES, 'follow-work');
  rmSync(dir, { recursive: true, force: true });
  cpSync(source, dir, { recursive: true });
  const lines: string[] = [];
  try {
    const still = await startChild([dir, '--no-follow']);
    const paths = (still.info.sample ?? []).map((id) => `/microstream/object/${id}`);
    const frozen = await load(still.info.port, paths);
    await stopChild(still.child);

    const { child, info } = await startChild([dir, '--follow']);
    try {
      const idle = await load(info.port, paths);
      // Steady write load: a commit every 20 ms, each adding one String entity; measure how long
      // until the server answers 200 for it.
      const writer = await StorageWriter.open(dir);
      const latencies: number[] = [];
      let commits = 0;
      let writing = true;
      const loadDuringWrites = load(info.port, paths).finally(() => {
        writing = false;
      });
      const stringType = writer.dictionary.require('java.lang.String');
      while (writing && commits < 400) {
        const store = writer.beginStore();
        const id = writer.newObjectId();
        store.add(stringType, id, [`commit ${commits}`]);
        writer.store(store);
        const committed = performance.now();
        commits++;
        for (;;) {
          const response = await fetch(`http://127.0.0.1:${info.port}/microstream/object/${id}`);
          await response.arrayBuffer();
          if (response.status === 200) break;
          await new Promise((r) => setTimeout(r, 1));
        }
        latencies.push(performance.now() - committed);
        await new Promise((r) => setTimeout(r, 20));
      }
      const busy = await loadDuringWrites;
      writer.close();
      latencies.sort((a, b) => a - b);
      const pct = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
      lines.push(
        `Following (100k storage, ${commits} commits at one per ~20 ms while loaded with /object at ${CONNECTIONS} connections):`,
        `- commit-to-visible latency: p50 ${fmt(pct(50))} ms, p99 ${fmt(pct(99))} ms, max ${fmt(latencies.at(-1))} ms`,
        `- /object throughput: frozen (--no-follow) ${fmt(frozen.rps, 0)} req/s, following idle ${fmt(idle.rps, 0)} req/s ` +
          `(${fmt((100 * idle.rps) / frozen.rps, 0)}%), following under writes ${fmt(busy.rps, 0)} req/s (${fmt((100 * busy.rps) / frozen.rps, 0)}%); ` +
          `p99 ${fmt(frozen.p99, 0)} / ${fmt(idle.p99, 0)} / ${fmt(busy.p99, 0)} ms; node ceiling ${fmt(ceilingRps, 0)} req/s`,
      );
    } finally {
      await stopChild(child);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

async function main(): Promise<void> {
  console.log(`storage-inspector benchmark: ${CONNECTIONS} connections, ${SECONDS} s per load run, node ${process.version}`);
  const ceilingChild = await startChild(['', '--ceiling']);
  const ceiling = await load(ceilingChild.info.port, ['/']);
  await stopChild(ceilingChild.child);
  console.log(`node ceiling (plain node:http, fixed JSON): ${fmt(ceiling.rps, 0)} req/s, p50 ${ceiling.p50} ms, p99 ${ceiling.p99} ms`);

  const header = row([
    'entities',
    'storage',
    'warm: floor / open ms (ratio)',
    'cold: floor / open ms (ratio)',
    'B/entity: index / RSS / heap',
    '/object req/s (% ceiling)',
    '/object p50 / p99 ms',
    '/root req/s (% ceiling)',
    '/root p50 / p99 ms',
    'errors',
  ]);
  const rows = [header, row(Array.from({ length: 10 }, () => '---'))];
  for (const entities of sizes()) {
    rows.push(await benchStorage(entities, ceiling.rps));
    console.log(rows.at(-1));
  }
  const follow = await benchFollow(ceiling.rps);
  console.log(`\n${rows.join('\n')}\n`);
  console.log(follow.join('\n'));
}

await main();
