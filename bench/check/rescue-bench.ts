/**
 * `npm run bench:rescue`: `check` and `rescue` on generated storages (BENCH_SIZES, default 10M
 * entities, 4 channels; generated once under bench/.storages), each in a fresh process, against
 * the read-once floor (reading every byte of the storage once, 256 KiB at a time), warm page cache.
 * Prints wall times, their ratio to the floor, peak RSS per entity, and the machine's load
 * average (the figures are only comparable on a quiet machine). BENCH_ROUNDS (default 3) runs,
 * medians. The rescued copy is written under bench/.storages and removed afterwards.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { cannotRun, readOnceFloor, storageBytes, storageFor, STORAGES } from '../storages.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));

interface ChildReport {
  readonly ms: number;
  readonly maxRssBytes: number;
  readonly [key: string]: unknown;
}

function runChild(args: readonly string[]): Promise<ChildReport> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, 'rescue-child.ts'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  return new Promise((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as ChildReport));
    child.once('close', (code) => reject(new Error(`rescue-child exited with ${code} before reporting`)));
  });
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const sizes = (process.env.BENCH_SIZES?.split(',').map(Number) ?? [10_000_000]).filter((n) => {
  const reason = cannotRun(n);
  if (reason !== undefined) console.log(`skipping ${n.toLocaleString('en')} entities: ${reason}`);
  return reason === undefined;
});

const rows: string[] = [];
for (const entities of sizes) {
  const dir = storageFor(entities);
  const bytes = storageBytes(dir);
  const out = join(STORAGES, `rescued-${entities}`);
  await readOnceFloor(dir); // warm the page cache
  const floors: number[] = [];
  const checks: ChildReport[] = [];
  const rescues: ChildReport[] = [];
  const loads: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    loads.push(loadavg()[0]!);
    floors.push(await readOnceFloor(dir));
    checks.push(await runChild(['check', dir]));
    rmSync(out, { recursive: true, force: true });
    rescues.push(await runChild(['rescue', dir, out]));
    loads.push(loadavg()[0]!);
  }
  const outBytes = storageBytes(out);
  rmSync(out, { recursive: true, force: true });
  const floor = median(floors);
  const check = median(checks.map((c) => c.ms));
  const rescue = median(rescues.map((r) => r.ms));
  const rss = (reports: readonly ChildReport[]): string => (median(reports.map((r) => r.maxRssBytes)) / entities).toFixed(1);
  rows.push(
    `| ${entities.toLocaleString('en')} | ${(bytes / 1e6).toFixed(0)} MB → ${(outBytes / 1e6).toFixed(0)} MB | ${floor.toFixed(0)} | ` +
      `${(check / 1000).toFixed(1)} s (${(check / floor).toFixed(1)}×) | ${(rescue / 1000).toFixed(1)} s (${(rescue / floor).toFixed(1)}×) | ` +
      `${rss(checks)} / ${rss(rescues)} | ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} |`,
  );
  console.log(`${entities}: floor ${floors.map((f) => f.toFixed(0)).join(', ')} ms; check ${checks.map((c) => c.ms.toFixed(0)).join(', ')} ms; rescue ${rescues.map((r) => r.ms.toFixed(0)).join(', ')} ms`);
}
console.log('');
console.log('| entities | storage → rescued | read-once floor ms (warm) | check (× floor) | rescue (× floor) | peak RSS B/entity: check / rescue | load average during the run |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const row of rows) console.log(row);
