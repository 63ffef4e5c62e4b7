import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, fmtSpread, spread, type Spread } from '../stats.js';
import { filesOf, storageBytes, storageFor } from '../storages.js';

/**
 * Start-up of a large storage, measured from outside as a user would: `serve` launched (built CLI,
 * plain node) until `/{instance}/maintenance/filesStatistics` has answered, less the same launch on
 * the small demo storage (what every launch costs, measured in startup-bench.ts), against `cat` of
 * the storage's files to /dev/null (reading them once, warm: the files are in the page cache after
 * the first round). And the process's RSS once the graph index is ready and RSS has settled
 * (`settledRss`), less the demo's, per entity, beside the target of 24 B per entity + 8 B per
 * reference; the reading at the moment of the ready line is printed beside it.
 * Rounds alternate demo, large storage and cat; medians of BENCH_STARTUP_LARGE_ROUNDS (default 3)
 * with their spread. `BENCH_STARTUP_LARGE=10000000` (entities; generated once under
 * bench/.storages) runs it from `npm run bench`; alone: `tsx bench/startup/startup-large-bench.ts`.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(process.env.BENCH_STARTUP_DIST ?? join(ROOT, 'dist'), 'cli', 'main.js');
const DEMO = join(ROOT, 'demo', 'graph');

/** Targets of the first five minutes: the launch's excess over `cat`, and memory per entity and reference. */
export const LARGE_STARTUP_TARGETS = { ratio: 3, bytesPerEntity: 24, bytesPerReference: 8 } as const;

interface Launch {
  /** Wall milliseconds from spawn until filesStatistics answered. */
  readonly statisticsMs: number;
  /** CPU milliseconds (all threads) the process had used by then. */
  readonly statisticsCpuMs: number;
  /** RSS bytes at the moment the graph index was declared ready. */
  readonly rssGraphReady: number;
  /** RSS bytes once settled after that (the build's freed pages handed back; see `settledRss`). */
  readonly rssSettled: number;
  readonly objects: number;
  readonly references: number;
}

export interface LargeStartupResult {
  readonly entities: number;
  readonly bytes: number;
  readonly rounds: number;
  readonly demo: Spread;
  readonly large: Spread;
  /** large − demo, within each round. */
  readonly excess: Spread;
  /** The same in CPU time of the launched process (all threads): what a busy machine stretches less. */
  readonly excessCpu: Spread;
  readonly cat: Spread;
  /** excess / cat, within each round. */
  readonly ratio: Spread;
  /** (settled RSS large − settled RSS demo) / entities, within each round: what the index holds. */
  readonly bytesPerEntity: Spread;
  /** The same at the moment the ready line was printed (V8 still handing the build's pages back). */
  readonly bytesPerEntityInstant: Spread;
  readonly references: number;
}

/** CPU milliseconds a running process has used so far (utime + stime, Linux /proc). */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'latin1').replace(/^.*\) /s, '').split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function rssOf(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
  return match === null ? Number.NaN : Number(match[1]) * 1024;
}

function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

/** One launch of `serve` on `dir`: until filesStatistics answers, then until the graph index is ready. */
function launch(dir: string): Promise<Launch> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [CLI, 'serve', dir, '--port', '0', '--no-follow', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise<Launch>((resolve, reject) => {
    let err = '';
    let statisticsMs: number | undefined;
    let statisticsCpuMs = Number.NaN;
    let asked = false;
    const onData = (chunk: Buffer): void => {
      err += chunk.toString();
      const root = /at (http:\/\/\S+)\/root/.exec(err)?.[1];
      if (root !== undefined && !asked) {
        asked = true;
        get(`${root}/maintenance/filesStatistics`).then((status) => {
          if (status !== 200) reject(new Error(`filesStatistics answered ${status}`));
          statisticsMs = Number(process.hrtime.bigint() - started) / 1e6;
          statisticsCpuMs = cpuOf(child.pid ?? 0);
          onData(Buffer.alloc(0));
        }, reject);
      }
      const ready = /graph index ready: ([\d,]+) objects, ([\d,]+) references/.exec(err);
      if (ready !== null && statisticsMs !== undefined) {
        child.stderr.off('data', onData);
        const count = (text: string): number => Number(text.replaceAll(',', ''));
        const pid = child.pid ?? 0;
        const rssGraphReady = rssOf(pid);
        const found = { statisticsMs, statisticsCpuMs, rssGraphReady, objects: count(ready[1]!), references: count(ready[2]!) };
        settledRss(pid).then((rssSettled) => resolve({ ...found, rssSettled }), reject);
      }
    };
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  }).finally(() => {
    child.removeAllListeners('exit');
    child.kill('SIGKILL');
  });
}

/**
 * The process's RSS once it stopped falling: right after the full collection that ends a build,
 * V8's background threads hand the freed pages back to the system (about 100 MB within 25 ms at
 * 10M entities, measured by sampling every 25 ms); the process then stays at that level while
 * idle. Samples every 25 ms until two in a row differ by less than 1 MiB (at most 2 s).
 */
async function settledRss(pid: number): Promise<number> {
  let before = rssOf(pid);
  for (let waited = 0; waited < 2000; waited += 25) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const now = rssOf(pid);
    if (Math.abs(before - now) < 1024 * 1024) return now;
    before = now;
  }
  return before;
}

/** Wall milliseconds of `cat` reading every file of the storage once into /dev/null. */
function cat(dir: string): Promise<number> {
  const sink = openSync('/dev/null', 'w');
  const started = process.hrtime.bigint();
  return new Promise<number>((resolve, reject) => {
    const child = spawn('cat', filesOf(dir), { stdio: ['ignore', sink, 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`cat exited with ${code}`))));
  }).finally(() => closeSync(sink));
}

export async function benchLargeStartup(entities: number, rounds = Math.max(1, Number(process.env.BENCH_STARTUP_LARGE_ROUNDS ?? 3))): Promise<LargeStartupResult> {
  const dir = storageFor(entities);
  // Once each first: the files in the page cache.
  await cat(dir);
  await launch(DEMO);
  await launch(dir);
  const demo: Launch[] = [];
  const large: Launch[] = [];
  const cats: number[] = [];
  for (let i = 0; i < rounds; i++) {
    demo.push(await launch(DEMO));
    large.push(await launch(dir));
    cats.push(await cat(dir));
  }
  const excess = large.map((l, i) => l.statisticsMs - demo[i]!.statisticsMs);
  return {
    entities,
    bytes: storageBytes(dir),
    rounds,
    demo: spread(demo.map((l) => l.statisticsMs)),
    large: spread(large.map((l) => l.statisticsMs)),
    excess: spread(excess),
    excessCpu: spread(large.map((l, i) => l.statisticsCpuMs - demo[i]!.statisticsCpuMs)),
    cat: spread(cats),
    ratio: spread(excess.map((e, i) => e / cats[i]!)),
    bytesPerEntity: spread(large.map((l, i) => (l.rssSettled - demo[i]!.rssSettled) / l.objects)),
    bytesPerEntityInstant: spread(large.map((l, i) => (l.rssGraphReady - demo[i]!.rssGraphReady) / l.objects)),
    references: large[0]!.references,
  };
}

export function largeStartupLines(r: LargeStartupResult): string[] {
  const t = LARGE_STARTUP_TARGETS;
  const memoryTarget = t.bytesPerEntity + (t.bytesPerReference * r.references) / r.entities;
  const met = (ok: boolean): string => (ok ? 'met' : 'NOT met');
  return [
    `Start-up at ${r.entities.toLocaleString('en')} entities (${fmt(r.bytes / 1024 ** 2, 0)} MiB of files), medians of ${r.rounds} alternated rounds [min–max], wall times:`,
    `  launch until filesStatistics answers: demo ${fmtSpread(r.demo, 0, ' ms')}, this storage ${fmtSpread(r.large, 0, ' ms')}`,
    `  excess over the demo's launch ${fmtSpread(r.excess, 0, ' ms')}, cat of the files ${fmtSpread(r.cat, 0, ' ms')}: ${fmtSpread(r.ratio, 2, 'x')} (target <= ${t.ratio}x ${met(r.ratio.median <= t.ratio)}); in CPU time of the process (all threads) ${fmtSpread(r.excessCpu, 0, ' ms')}`,
    `  RSS once the graph index is ready (settled), less the demo's: ${fmtSpread(r.bytesPerEntity, 1, ' B/entity')} (target <= ${fmt(memoryTarget, 1)}: ${t.bytesPerEntity} B + ${t.bytesPerReference} B x ${fmt(r.references / r.entities, 2)} references per entity, ${met(r.bytesPerEntity.median <= memoryTarget)}); at the moment the ready line is printed ${fmtSpread(r.bytesPerEntityInstant, 1, ' B/entity')}`,
  ];
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(largeStartupLines(await benchLargeStartup(Number(process.env.BENCH_STARTUP_LARGE ?? 10_000_000))).join('\n'));
}
