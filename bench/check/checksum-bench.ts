/**
 * `npm run bench:checksums`: what verifying EclipseStore 4.2's chunk checksums costs `check`.
 * A storage written with CRC32C chunk checksums (`generate --family eclipsestore --checksums
 * crc32c`, BENCH_CHECKSUM_ENTITIES entities, default 2M; about 75 bytes an entity, so 14M make
 * 1 GB; generated once under bench/.storages and reused) is checked in fresh processes with and
 * without the verification (CheckOptions.verifyChunks), warm page cache, BENCH_ROUNDS (default 3)
 * runs alternating, medians and spread. Before that, CRC32C and chained SHA-256 throughput on one
 * core over 256 MiB. BENCH_SOURCE=1 runs the TypeScript sources instead of dist/.
 */
import { spawn } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { crc32c } from '../../src/format/crc32c.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { readOnceFloor, storageBytes, STORAGES } from '../storages.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const ENTITIES = Number(process.env.BENCH_CHECKSUM_ENTITIES ?? 2_000_000);
if (!Number.isSafeInteger(ENTITIES) || ENTITIES < 60) throw new RangeError(`BENCH_CHECKSUM_ENTITIES must be an integer of at least 60, got ${process.env.BENCH_CHECKSUM_ENTITIES}`);

function throughput(name: string, run: (bytes: Buffer) => unknown): void {
  const bytes = randomFillSync(Buffer.alloc(256 * 1024 * 1024));
  run(bytes.subarray(0, 1024 * 1024)); // warm up
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    run(bytes);
    times.push(performance.now() - started);
  }
  console.log(`${name}: ${(bytes.length / (Math.min(...times) / 1000) / 1e9).toFixed(2)} GB/s (best of 3 over 256 MiB, one core)`);
}

throughput('CRC32C (format/crc32c.ts, slicing-by-8)', (b) => crc32c(b));
throughput('SHA-256 (node:crypto)', (b) => createHash('sha256').update(new Uint8Array(32)).update(b).digest());

const dir = join(STORAGES, `checksums-crc32c-${ENTITIES}`);
if (!existsSync(dir)) {
  const started = performance.now();
  generateStorage({ directory: dir, entities: ENTITIES, channelCount: 4, seed: 1, family: 'eclipsestore', checksums: 'crc32c' });
  console.log(`generated ${dir} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
const bytes = storageBytes(dir);

interface ChildReport {
  readonly ms: number;
  readonly maxRssBytes: number;
  readonly problems: number;
}

function runCheck(verify: boolean): Promise<ChildReport> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, 'rescue-child.ts'), verify ? 'check' : 'check-unverified', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  return new Promise((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as ChildReport));
    child.once('close', (code) => reject(new Error(`rescue-child exited with ${code} before reporting`)));
  });
}

await readOnceFloor(dir); // warm the page cache
const floors: number[] = [];
const verified: number[] = [];
const unverified: number[] = [];
const ratios: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  floors.push(await readOnceFloor(dir));
  const without = await runCheck(false);
  const withVerification = await runCheck(true);
  if (withVerification.problems !== 0 || without.problems !== 0) throw new Error('the bench storage has problems');
  unverified.push(without.ms);
  verified.push(withVerification.ms);
  ratios.push(withVerification.ms / without.ms);
}
const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const range = (values: readonly number[], digits = 0): string => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
console.log(`\n${ENTITIES.toLocaleString('en')} entities, ${(bytes / 1e6).toFixed(0)} MB with CRC32C chunk checksums, ${ROUNDS} rounds, load average ${loadavg()[0]!.toFixed(1)}`);
console.log('| read-once floor ms | check without verification ms | check with verification ms | with / without |');
console.log('|---|---|---|---|');
console.log(`| ${median(floors).toFixed(0)} (${range(floors)}) | ${median(unverified).toFixed(0)} (${range(unverified)}) | ${median(verified).toFixed(0)} (${range(verified)}) | ${median(ratios).toFixed(2)}× (${range(ratios, 2)}) |`);
