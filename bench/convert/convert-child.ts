/**
 * One measured `convert` (a child process of convert-bench.ts): converts the storage into `out`
 * with the given channel count and prints one JSON line: wall and CPU time per phase (the check's
 * indexing and record walk, the reachability search, the copy), what was written and
 * left out, and the peak RSS of this process. Uses the built code (dist/), like rescue-child.ts,
 * and runs bundled into plain JavaScript without tsx's loader (convert-bench.ts; BENCH_SOURCE=1:
 * the sources through tsx, whose compiling on first import then counts too).
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on Linux). */
const TICKS = 100;
const from = process.env.BENCH_SOURCE === '1' ? '../../src' : '../../dist';
const { convertStorage } = (await import(`${from}/convert/convert-storage.js`)) as typeof import('../../src/convert/convert-storage.js');

const [dir, out, channels] = process.argv.slice(2) as [string, string, string];
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/**
 * CPU time of this process's main thread alone (Linux: /proc; undefined elsewhere): the walks run
 * on it, the reads, the copy's writes and the index threads beside it, so on a machine with a free
 * core it is what the wall time waits for.
 */
const mainCpu = (): number | undefined => {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
  } catch {
    return undefined;
  }
};
const since = (start: number | undefined): number | undefined => {
  const now = mainCpu();
  return now === undefined || start === undefined ? undefined : now - start;
};
const phases: { phase: string; ms: number; cpuMs: number; mainCpuMs: number | undefined }[] = [];
let phase = '';
let phaseStart = performance.now();
let phaseCpu = cpu();
let phaseMain = mainCpu();
const close = (): void => {
  if (phase !== '') phases.push({ phase, ms: performance.now() - phaseStart, cpuMs: cpu() - phaseCpu, mainCpuMs: since(phaseMain) });
};
const started = performance.now();
const cpuStarted = cpu();
const mainStarted = mainCpu();
const report = await convertStorage(dir, {
  out,
  channels: Number(channels),
  onProgress: (p) => {
    if (p === phase) return;
    close();
    phase = p;
    phaseStart = performance.now();
    phaseCpu = cpu();
    phaseMain = mainCpu();
  },
});
close();
process.stdout.write(
  `${JSON.stringify({
    ms: performance.now() - started,
    cpuMs: cpu() - cpuStarted,
    mainCpuMs: since(mainStarted),
    phases,
    written: report.written,
    superseded: report.superseded,
    garbage: report.garbage,
    sourceDataBytes: report.sourceDataBytes,
    dataBytes: report.dataBytes,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  })}\n`,
);
