/**
 * One measured `convert` (a child process of convert-bench.ts): converts the storage into `out`
 * with the given channel count and prints one JSON line: wall and CPU time per phase (the check's
 * indexing and record walk, the reachability search, the copy), what was written and
 * left out, and the peak RSS of this process. Uses the built code (dist/), like rescue-child.ts
 * (BENCH_SOURCE=1: the sources through tsx, whose compiling on first import then counts too).
 */
const from = process.env.BENCH_SOURCE === '1' ? '../src' : '../dist';
const { convertStorage } = (await import(`${from}/convert/convert-storage.js`)) as typeof import('../src/convert/convert-storage.js');

const [dir, out, channels] = process.argv.slice(2) as [string, string, string];
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const phases: { phase: string; ms: number; cpuMs: number }[] = [];
let phase = '';
let phaseStart = performance.now();
let phaseCpu = cpu();
const close = (): void => {
  if (phase !== '') phases.push({ phase, ms: performance.now() - phaseStart, cpuMs: cpu() - phaseCpu });
};
const started = performance.now();
const cpuStarted = cpu();
const report = await convertStorage(dir, {
  out,
  channels: Number(channels),
  onProgress: (p) => {
    if (p === phase) return;
    close();
    phase = p;
    phaseStart = performance.now();
    phaseCpu = cpu();
  },
});
close();
process.stdout.write(
  `${JSON.stringify({
    ms: performance.now() - started,
    cpuMs: cpu() - cpuStarted,
    phases,
    written: report.written,
    superseded: report.superseded,
    garbage: report.garbage,
    sourceDataBytes: report.sourceDataBytes,
    dataBytes: report.dataBytes,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  })}\n`,
);
