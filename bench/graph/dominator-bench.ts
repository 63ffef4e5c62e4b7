/**
 * The dominator tree (retained sizes, src/graph/model/dominator-computation.ts) on generated
 * storages (BENCH_DOMINATOR_SIZES, default 1M and 10M entities, generated once under
 * bench/.storages), in a fresh process each, beside the graph build it follows: the tree at
 * once (time, CPU, its bytes per object, the peak memory it adds), in the background service's
 * slices, and the first page of the tree. Targets: at most 2× the graph build's time and 12
 * bytes more an object. `npm run bench` runs it (BENCH_DOMINATORS=0 skips it);
 * `npm run bench:dominators` alone.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { cannotRun, storageBytes, storageFor } from '../storages.js';

const HERE = dirname(fileURLToPath(import.meta.url));

interface Report {
  entities: number;
  references: number;
  reachable: number;
  reachableBytes: number;
  graphMs: number;
  graphCpuMs: number;
  graphBytesPerEntity: number;
  treeMs: number;
  treeCpuMs: number;
  treeBytesPerEntity: number;
  rssAddedPerEntity: number;
  peakAddedBytes: number;
  slicedMs: number;
  firstPageMs: number;
  rootChildren: number;
  topMs: number;
  topShare: number;
  firstRequestMs: number;
  pageP50: number;
  pageP99: number;
  retainersP50: number;
  retainersMax: number;
}

function runChild(dir: string): Promise<Report> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(HERE, 'dominator-child.ts'), dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  return new Promise((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as Report));
    child.once('close', (code) => reject(new Error(`dominator-child exited with ${code} before reporting`)));
  });
}

const mb = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(0)} MB`;

export async function benchDominators(wanted: readonly number[], print: (line: string) => void = console.log): Promise<string[]> {
  const out: string[] = [];
  const say = (line: string): void => {
    out.push(line);
    print(line);
  };
  for (const entities of wanted) {
    const reason = cannotRun(entities);
    if (reason !== undefined) {
      say(`skipping the dominator tree at ${entities.toLocaleString('en')} entities: ${reason}`);
      continue;
    }
    const dir = storageFor(entities);
    const load = loadavg()[0]!;
    const r = await runChild(dir);
    say(`\nDominator tree at ${entities.toLocaleString('en')} entities (${mb(storageBytes(dir))} on disk, ${r.references.toLocaleString('en')} references, ${r.reachable.toLocaleString('en')} reachable), load average ${load.toFixed(2)}`);
    say(`  graph build                ${r.graphMs.toFixed(0)} ms (${r.graphCpuMs.toFixed(0)} ms of CPU), ${r.graphBytesPerEntity.toFixed(1)} B/entity`);
    say(`  dominator tree at once     ${r.treeMs.toFixed(0)} ms (${r.treeCpuMs.toFixed(0)} ms of CPU): ${(r.treeMs / r.graphMs).toFixed(2)}× the graph build`);
    say(`  in the service's slices    ${r.slicedMs.toFixed(0)} ms (${(r.slicedMs / r.graphMs).toFixed(2)}× the graph build; a server's background path, the graph built again first)`);
    say(`  memory                     ${r.treeBytesPerEntity.toFixed(1)} B/entity kept (RSS +${r.rssAddedPerEntity.toFixed(1)} B/entity settled); peak +${mb(r.peakAddedBytes)} while computing`);
    say(`  first page of the tree     ${r.firstPageMs.toFixed(1)} ms (the roots object's ${r.rootChildren.toLocaleString('en')} children: one scan), top 20 retainers ${r.topMs.toFixed(1)} ms (the first retains ${(100 * r.topShare).toFixed(1)} %)`);
    say(`  /api/v1/dominators?limit=100 p50 ${r.pageP50.toFixed(1)} ms, p99 ${r.pageP99.toFixed(1)} ms (100 requests after the route's first, ${r.firstRequestMs.toFixed(0)} ms with its schemas compiled); /api/v1/retainers?limit=20 p50 ${r.retainersP50.toFixed(1)} ms, first ${r.retainersMax.toFixed(1)} ms (the scan for the top 20)`);
    say(`  targets: time ≤ 2× graph build: ${r.treeMs <= 2 * r.graphMs ? 'met' : 'MISSED'} (${(r.treeMs / r.graphMs).toFixed(2)}×); ≤ 12 B/entity more: ${r.treeBytesPerEntity <= 12 ? 'met' : 'MISSED'} (${r.treeBytesPerEntity.toFixed(1)}); first page ≤ 50 ms p99: ${r.pageP99 <= 50 ? 'met' : 'MISSED'} (${r.pageP99.toFixed(1)} ms)`);
  }
  return out;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await benchDominators((process.env.BENCH_DOMINATOR_SIZES ?? '1000000,10000000').split(',').map(Number));
}
