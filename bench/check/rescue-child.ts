/**
 * One `check` or `rescue` run in a process of its own, for the rescue benchmark: prints one JSON
 * line with the wall time, the peak RSS of this process and what the run reported. Uses the
 * built code (dist/), like the other benchmark children.
 *
 * Usage: rescue-child.ts check <dir> | rescue-child.ts check-unverified <dir> | rescue-child.ts rescue <dir> <out>
 */
const from = process.env.BENCH_SOURCE === '1' ? '../../src' : '../../dist';
const [mode, dir = '', out = ''] = process.argv.slice(2);
const started = performance.now();
let detail: Record<string, unknown>;
if (mode === 'check' || mode === 'check-unverified') {
  const { checkStorage } = (await import(`${from}/check/check-storage.js`)) as typeof import('../../src/check/check-storage.js');
  // check-unverified: without verifying EclipseStore 4.2's chunk checksums (checksum-bench.ts).
  const report = await checkStorage(dir, { verifyChunks: mode === 'check' });
  detail = { exitCode: report.exitCode, problems: report.problems.length, objects: report.summary.objects };
} else {
  const { rescueStorage } = (await import(`${from}/rescue/rescue-storage.js`)) as typeof import('../../src/rescue/rescue-storage.js');
  const report = await rescueStorage(dir, { out });
  detail = { keptObjects: report.keptObjects, keptBytes: report.keptBytes, lost: report.lost.length };
}
const ms = performance.now() - started;
process.stdout.write(`${JSON.stringify({ ms, maxRssBytes: process.resourceUsage().maxRSS * 1024, ...detail })}\n`);
