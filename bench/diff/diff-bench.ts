/**
 * `diff` of two storages differing in 1 % of their objects (BENCH_DIFF_SIZES, default 1M entities):
 * a generated storage (bench/.storages) and a copy in which the writer stored 1 % of the objects
 * again with a changed value (Strings spread over the whole storage, one character changed: the
 * same record length, so every record must be compared byte for byte to find them), made once.
 * Measured in a fresh process each round against the read-once floor of both storages (warm page
 * cache): open both, compare, decode every differing object (as `--ndjson` does), wall and CPU
 * time (the CPU time says more on a busy machine), the floor's CPU time beside its wall time; the
 * child runs the built code (`npm run build` first; `npm run bench` builds). Target: at most 3×
 * the floor. Then the
 * history routes on the copy (history-child.ts): the first `/api/v1/commits`, and p50/p99 of the
 * first page and of the newest commit's objects asked again (target p99 < 100 ms). `npm run bench` runs it (BENCH_DIFF=0 skips it); `npm run bench:diff` alone.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { streamRecords } from '../../src/storage/records/record-stream.js';
import { Storage } from '../../src/storage/storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { cannotRun, readOnceFloor, storageBytes, storageFor, STORAGES } from '../storages.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const SHARE = 0.01;

interface Report {
  readonly openMs: number;
  readonly compareMs: number;
  readonly totalMs: number;
  readonly openCpuMs: number;
  readonly compareCpuMs: number;
  readonly changed: number;
  readonly added: number;
  readonly removed: number;
  readonly unchanged: number;
  readonly lines: number;
  readonly maxRssBytes: number;
}

function runChild<T = Report>(args: readonly string[], script = 'diff-child.ts'): Promise<T> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  return new Promise((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as T));
    child.once('close', (code) => reject(new Error(`${script} exited with ${code} before reporting`)));
  });
}

interface HistoryReport {
  readonly firstMs: number;
  readonly firstCpuMs: number;
  readonly commits: number;
  readonly list: { readonly p50: number; readonly p99: number };
  readonly commit: { readonly p50: number; readonly p99: number };
}

/** The copy with 1 % of the objects changed (made once; a marker says it is complete). */
async function changedCopy(dir: string, entities: number): Promise<{ dir: string; changed: number }> {
  const out = join(STORAGES, `diff-${entities}-changed`);
  const marker = join(out, '.changed');
  if (existsSync(marker)) return { dir: out, changed: Number((await import('node:fs')).readFileSync(marker, 'utf8')) };
  rmSync(out, { recursive: true, force: true });
  cpSync(dir, out, { recursive: true });
  rmSync(join(out, '.complete'), { force: true });
  const wanted = Math.round(entities * SHARE);
  // Which Strings: every k-th of those with a character, k from their count.
  const storage = await Storage.open(out, { recordCacheBytes: 0 });
  const stringType = storage.dictionary.currentByName.get('java.lang.String')!.typeId;
  const records: Buffer[] = [];
  let strings = 0;
  const visit = async (pick: (n: number) => boolean): Promise<void> => {
    for (const channel of storage.channels) {
      for (const file of channel.files) {
        await streamRecords(storage.source, file.path, 0, file.totalLength, (bytes, at, offset, length) => {
          if (length < 24 + 16 + 2 || bytes.readBigInt64LE(at + 8) !== stringType) return;
          if (!channel.objects.isLatest(bytes.readInt32LE(at + 16), bytes.readInt32LE(at + 20), file.slot, offset)) return;
          if (!pick(strings++)) return;
          const record = Buffer.from(bytes.subarray(at, at + length));
          record[length - 2] = record[length - 2]! ^ 1; // the last character's low byte
          records.push(record);
        });
      }
    }
  };
  await visit(() => false);
  const every = Math.max(1, Math.floor(strings / wanted));
  strings = 0;
  await visit((n) => n % every === 0 && records.length < wanted);
  await storage.close();
  const writer = await StorageWriter.open(out);
  const builder = writer.beginStore();
  for (let i = 0; i < records.length; i++) {
    builder.addRecord(records[i]!);
    if (builder.byteLength > 16 * 1024 * 1024 || i === records.length - 1) {
      writer.store(builder);
      builder.clear();
    }
  }
  writer.close();
  writeFileSync(marker, String(records.length));
  return { dir: out, changed: records.length };
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function benchDiff(wanted: readonly number[], print: (line: string) => void = console.log): Promise<string[]> {
  const out: string[] = [];
  const rows: string[] = [];
  const historyRows: string[] = [];
  for (const entities of wanted) {
    const reason = cannotRun(entities);
    if (reason !== undefined) {
      out.push(`skipping diff at ${entities.toLocaleString('en')} entities: ${reason}`);
      print(out.at(-1)!);
      continue;
    }
    const a = storageFor(entities);
    const b = await changedCopy(a, entities);
    // The floor's CPU time too: on a loaded machine its wall time says little, and the diff's CPU
    // time is best set against the CPU time of reading (this process reads, the same way).
    const floorCpus: number[] = [];
    const floor = async (): Promise<number> => {
      const cpu = process.cpuUsage();
      const ms = (await readOnceFloor(a)) + (await readOnceFloor(b.dir));
      const used = process.cpuUsage(cpu);
      floorCpus.push((used.user + used.system) / 1000);
      return ms;
    };
    await floor(); // warm
    floorCpus.length = 0;
    const floors: number[] = [];
    const runs: Report[] = [];
    const loads: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      loads.push(loadavg()[0]!);
      floors.push(await floor());
      const run = await runChild([a, b.dir]);
      if (run.changed !== b.changed || run.added + run.removed !== 0) throw new Error(`diff found ${run.changed} changed, ${run.added} added, ${run.removed} removed; ${b.changed} were changed`);
      runs.push(run);
      print(`diff ${entities}: floor ${floors.at(-1)!.toFixed(0)} ms; open ${run.openMs.toFixed(0)} ms (CPU ${run.openCpuMs.toFixed(0)}), compare ${run.compareMs.toFixed(0)} ms (CPU ${run.compareCpuMs.toFixed(0)})`);
    }
    // The history routes on the changed copy (its last commit: the 1 % stored again).
    const h = await runChild<HistoryReport>([b.dir], 'history-child.ts');
    historyRows.push(
      `| ${entities.toLocaleString('en')} | ${h.commits.toLocaleString('en')} | ${h.firstMs.toFixed(0)} (${h.firstCpuMs.toFixed(0)}) | ${h.list.p50.toFixed(1)} / ${h.list.p99.toFixed(1)} | ${h.commit.p50.toFixed(1)} / ${h.commit.p99.toFixed(1)} |`,
    );
    const f = median(floors);
    const fCpu = median(floorCpus);
    const cpuTotal = median(runs.map((r) => r.openCpuMs + r.compareCpuMs));
    const total = median(runs.map((r) => r.totalMs));
    const compare = median(runs.map((r) => r.compareMs));
    const open = median(runs.map((r) => r.openMs));
    rows.push(
      `| ${entities.toLocaleString('en')} | ${((storageBytes(a) + storageBytes(b.dir)) / 1e6).toFixed(0)} MB | ${b.changed.toLocaleString('en')} | ${f.toFixed(0)} | ${open.toFixed(0)} (${median(runs.map((r) => r.openCpuMs)).toFixed(0)}) | ${compare.toFixed(0)} (${median(runs.map((r) => r.compareCpuMs)).toFixed(0)}) | ${total.toFixed(0)} (${(total / f).toFixed(1)}×) | ${(compare / f).toFixed(1)}× | ${fCpu.toFixed(0)} | ${cpuTotal.toFixed(0)} (${(cpuTotal / fCpu).toFixed(1)}×) | ${(median(runs.map((r) => r.maxRssBytes)) / 1e6).toFixed(0)} MB | ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} |`,
    );
  }
  out.push(
    '',
    `diff of two storages differing in 1 % of their objects (medians of ${ROUNDS}, warm page cache; target: at most 3× the read-once floor of both):`,
    '| entities | both storages | objects changed | floor of both ms | open both ms (CPU ms) | compare ms (CPU ms) | open + compare ms (× floor) | compare × floor | floor CPU ms | open + compare CPU ms (× floor CPU) | peak RSS | load average |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    'history routes (in-process requests; the first /commits reads every commit\'s bytes once for the state):',
    '| entities | commits | first /commits ms (CPU ms) | /commits?limit=20 p50 / p99 ms | newest /commits/{timestamp}?limit=20 p50 / p99 ms |',
    '| --- | --- | --- | --- | --- |',
    ...historyRows,
  );
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const lines = await benchDiff((process.env.BENCH_DIFF_SIZES ?? '1000000').split(',').map(Number), () => undefined);
  console.log(lines.join('\n'));
}
