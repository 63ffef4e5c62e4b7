/**
 * `convert` of a generated storage with about 30 % of its records superseded versions and garbage
 * (BENCH_CONVERT_SIZES, default 1M entities; written once under bench/.storages with the
 * generator's update ratio 0.5) to 4 channels, each round in a fresh process, against the floor
 * the issue names: reading the source once (`readOnceFloor`, warm page cache) plus writing the
 * same bytes as the result (`cp -r` of the converted storage into a new directory). Reported: wall
 * and CPU time (the floor's too: the read's in this process, `cp`'s as /usr/bin/time reports it),
 * the share of each phase, the ratios to the floor (target: at most 2×) and the peak RSS, against
 * the memory target "the graph index + 64 MB" read two ways, both measured on the same source in a
 * fresh process that opens it and builds the graph index as the server does (`measureOpen` of
 * processes.ts, server-child.ts --open-only --graph): the graph index's own typed arrays
 * (`GraphIndex.memory()`, beyond the storage's object index) and that process's RSS once the index
 * is built and garbage collected (what a server holding the index takes). `npm run bench:convert`
 * runs it alone; `npm run bench` runs it too (BENCH_CONVERT=0 skips it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { bundleChild } from '../bundled-child.js';
import { measureOpen } from '../processes.js';
import { readOnceFloor, storageBytes, STORAGES } from '../storages.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const CHANNELS = 4;
const UPDATE_RATIO = 0.5;
/** The memory target's allowance beyond the graph index (issue: "peak RSS ≤ the graph index + 64 MB"). */
const ALLOWANCE_BYTES = 64e6;

/** What a server holds for the same source once its graph index is built (bytes). */
interface Held {
  /** The graph index's typed arrays alone (`GraphIndex.memory()`, summed). */
  readonly graphBytes: number;
  /** The RSS of the process that opened the source and built the index, after garbage collection. */
  readonly rss: number;
  /** The storage's object index in that process (which convert builds too), for comparison. */
  readonly objectIndexBytes: number;
}

async function heldByServer(source: string): Promise<Held> {
  const info = await measureOpen(source, true);
  if (info.entities === undefined || info.graphBytesPerEntity === undefined || info.rssAfterGraph === undefined) throw new Error(`server-child reported no graph index for ${source}`);
  return { graphBytes: info.graphBytesPerEntity * info.entities, rss: info.rssAfterGraph, objectIndexBytes: (info.indexBytesPerEntity ?? Number.NaN) * info.entities };
}

/** The limit `base` + 64 MB beside `peak`: `160 + 64 = 224 MB, met` (or by how much it is not). */
function againstTarget(peak: number, base: number): string {
  const limit = base + ALLOWANCE_BYTES;
  return `${(base / 1e6).toFixed(0)} + 64 = ${(limit / 1e6).toFixed(0)} MB, ${peak <= limit ? 'met' : `NOT met by ${((peak - limit) / 1e6).toFixed(0)} MB`}`;
}

interface Report {
  readonly ms: number;
  readonly cpuMs: number;
  /** The main thread's CPU time alone (Linux), where the walks run. */
  readonly mainCpuMs?: number | undefined;
  readonly phases: readonly { readonly phase: string; readonly ms: number; readonly cpuMs: number; readonly mainCpuMs?: number | undefined }[];
  readonly written: { readonly objects: number; readonly bytes: number };
  readonly superseded: { readonly objects: number; readonly bytes: number };
  readonly garbage: { readonly objects: number; readonly bytes: number };
  readonly sourceDataBytes: number;
  readonly dataBytes: number;
  readonly maxRssBytes: number;
}

/** The source storage: generated once (a marker says it is complete). */
function sourceFor(entities: number): string {
  const dir = join(STORAGES, `convert-${entities}-u${UPDATE_RATIO * 100}`);
  if (existsSync(join(dir, '.complete'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  const started = Date.now();
  console.log(`generating ${entities.toLocaleString('en')} entities (update ratio ${UPDATE_RATIO}) into ${dir} (once) ...`);
  generateStorage({ directory: dir, entities, channelCount: CHANNELS, seed: 1, updateRatio: UPDATE_RATIO });
  writeFileSync(join(dir, '.complete'), '');
  console.log(`  ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return dir;
}

/**
 * `convert-child.ts` bundled into plain JavaScript (it loads the built code, as users run it) and
 * run without tsx's loader, whose modules (esbuild's service, the loader's caches) took 35-40 MB
 * of the child's RSS before convert began (a child that only imports convert-storage.js: 92-98 MB
 * with the loader, 57-58 MB without), counted in the peak RSS measured against the memory
 * target. Written once per run beside the storages, as processes.ts does for the server's child;
 * with BENCH_SOURCE=1 the child converts with the TypeScript sources and runs through tsx.
 */
let convertChildScript: Promise<string> | undefined;

function convertChild(): Promise<string> {
  convertChildScript ??= (async () => {
    // Bundled at the same depth below the project (bench/.children/), so its import of ../../dist resolves alike.
    const outfile = join(HERE, '..', '.children', 'convert-child.mjs');
    return bundleChild(join(HERE, 'convert-child.ts'), outfile);
  })();
  return convertChildScript;
}

async function runChild(args: readonly string[]): Promise<Report> {
  const script = process.env.BENCH_SOURCE === '1' ? ['--import', 'tsx', join(HERE, 'convert-child.ts')] : [await convertChild()];
  const child = spawn(process.execPath, [...script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  return new Promise((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as Report));
    child.once('close', (code) => reject(new Error(`convert-child.ts exited with ${code} before reporting`)));
  });
}

/** A time of the floor: wall and CPU (user + system) ms. */
interface Timed {
  readonly ms: number;
  readonly cpuMs: number;
}

/** Writing the result's bytes: `cp -r` of the converted storage into a new directory, timed (its CPU time as /usr/bin/time reports it). */
function copyTime(from: string, to: string): Timed {
  rmSync(to, { recursive: true, force: true });
  const started = performance.now();
  const result = spawnSync('/usr/bin/time', ['-f', '%U %S', 'cp', '-r', from, to]);
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`cp -r ${from} ${to} failed: ${result.stderr.toString()}`);
  rmSync(to, { recursive: true, force: true });
  const [user, system] = result.stderr.toString().trim().split('\n').at(-1)!.split(' ').map(Number);
  return { ms, cpuMs: ((user ?? NaN) + (system ?? NaN)) * 1000 };
}

/** Reading the source once (`readOnceFloor`, in this process: its CPU time is this process's). */
async function readTime(source: string): Promise<Timed> {
  const cpu = process.cpuUsage();
  const ms = await readOnceFloor(source);
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function benchConvert(wanted: readonly number[], print: (line: string) => void = console.log): Promise<string[]> {
  const rows: string[] = [];
  const phaseRows: string[] = [];
  for (const entities of wanted) {
    const source = sourceFor(entities);
    const out = join(STORAGES, `convert-${entities}-out`);
    const copy = join(STORAGES, `convert-${entities}-cp`);
    await readOnceFloor(source); // warm
    const floors: number[] = [];
    const floorCpus: number[] = [];
    const runs: Report[] = [];
    const loads: number[] = [];
    loads.push(loadavg()[0]!);
    const held = await heldByServer(source);
    print(`convert ${entities}: a server holding the graph index of this source: graph index ${(held.graphBytes / 1e6).toFixed(0)} MB (beside the object index's ${(held.objectIndexBytes / 1e6).toFixed(0)} MB), its process's RSS ${(held.rss / 1e6).toFixed(0)} MB`);
    for (let round = 0; round < ROUNDS; round++) {
      rmSync(out, { recursive: true, force: true });
      loads.push(loadavg()[0]!);
      const run = await runChild([source, out, String(CHANNELS)]);
      const read = await readTime(source);
      const written = copyTime(out, copy);
      const floor = read.ms + written.ms;
      floors.push(floor);
      floorCpus.push(read.cpuMs + written.cpuMs);
      runs.push(run);
      print(
        `convert ${entities}: ${run.ms.toFixed(0)} ms (CPU ${run.cpuMs.toFixed(0)}, main thread ${run.mainCpuMs?.toFixed(0) ?? '?'}), peak RSS ${(run.maxRssBytes / 1e6).toFixed(0)} MB (graph index ${againstTarget(run.maxRssBytes, held.graphBytes)}; serve's RSS holding it ${againstTarget(run.maxRssBytes, held.rss)}), floor ${floor.toFixed(0)} ms (CPU ${(read.cpuMs + written.cpuMs).toFixed(0)}: read ${read.cpuMs.toFixed(0)}, cp ${written.cpuMs.toFixed(0)}); ${run.phases.map((p) => `${p.phase} ${p.ms.toFixed(0)} (${p.cpuMs.toFixed(0)}, main ${p.mainCpuMs?.toFixed(0) ?? '?'})`).join(', ')}`,
      );
    }
    rmSync(out, { recursive: true, force: true });
    const r = runs[0]!;
    const records = r.written.objects + r.superseded.objects + r.garbage.objects;
    const f = median(floors);
    const ms = median(runs.map((x) => x.ms));
    const cpuMs = median(runs.map((x) => x.cpuMs));
    const fCpu = median(floorCpus);
    const mainCpuMs = median(runs.map((x) => x.mainCpuMs ?? Number.NaN));
    const peak = median(runs.map((x) => x.maxRssBytes));
    rows.push(
      `| ${entities.toLocaleString('en')} | ${(storageBytes(source) / 1e6).toFixed(0)} MB | ${(((r.superseded.objects + r.garbage.objects) / records) * 100).toFixed(0)} % (${(((r.superseded.bytes + r.garbage.bytes) / r.sourceDataBytes) * 100).toFixed(0)} % of bytes) | ${(r.dataBytes / 1e6).toFixed(0)} MB | ${f.toFixed(0)} (CPU ${fCpu.toFixed(0)}) | ${ms.toFixed(0)} (${(ms / f).toFixed(1)}×) | ${cpuMs.toFixed(0)} (${(cpuMs / fCpu).toFixed(1)}× the floor's CPU; main thread ${mainCpuMs.toFixed(0)}) | ${(peak / 1e6).toFixed(0)} MB | ${againstTarget(peak, held.graphBytes)} | ${againstTarget(peak, held.rss)} | ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} |`,
    );
    const names = r.phases.map((p) => p.phase);
    for (let i = 0; i < names.length; i++) {
      const cpuOf = runs.map((x) => x.phases[i]?.cpuMs ?? 0);
      const mainOf = runs.map((x) => x.phases[i]?.mainCpuMs ?? Number.NaN);
      phaseRows.push(`| ${entities.toLocaleString('en')} | ${names[i]} | ${median(runs.map((x) => x.phases[i]?.ms ?? 0)).toFixed(0)} | ${median(cpuOf).toFixed(0)} | ${median(mainOf).toFixed(0)} |`);
    }
  }
  return [
    '',
    `convert to ${CHANNELS} channels (medians of ${ROUNDS}, warm page cache; floor: reading the source once plus cp -r of the result; target: at most 2× the floor; peak RSS at most the graph index + 64 MB, read as the index's own bytes and as the RSS of a process holding it):`,
    '| entities | source | left out (superseded + garbage) | written | floor ms (CPU ms) | convert ms (× floor) | CPU ms (× floor CPU) | peak RSS | graph index + 64 MB | RSS holding it + 64 MB | load average |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    "phases (medians, ms wall, the process's CPU and its main thread's, where the walks run):",
    '| entities | phase | ms | CPU ms | main thread CPU ms |',
    '| --- | --- | --- | --- | --- |',
    ...phaseRows,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const lines = await benchConvert((process.env.BENCH_CONVERT_SIZES ?? '1000000').split(',').map(Number));
  console.log(lines.join('\n'));
}
