/**
 * One measured diff (a child process of diff-bench.ts): opens the two storages, compares them as
 * `storage-inspector diff A B --ndjson` does (every differing object decoded and written, here to
 * nothing), and prints one JSON line: open and compare times (wall and CPU), counts, peak RSS.
 * Uses the built code (dist/), like convert-child.ts: through tsx every index-building thread
 * loaded and compiled the sources again, which counted as opening (BENCH_SOURCE=1: the sources).
 */
const from = process.env.BENCH_SOURCE === '1' ? '../../src' : '../../dist';
const { diffStorages } = (await import(`${from}/diff/storage-diff.js`)) as typeof import('../../src/diff/storage-diff.js');
const { Storage } = (await import(`${from}/storage/storage.js`)) as typeof import('../../src/storage/storage.js');
const { SharedIndexWorkers } = (await import(`${from}/storage/index/shared-index-workers.js`)) as typeof import('../../src/storage/index/shared-index-workers.js');

const [a, b] = process.argv.slice(2) as [string, string];
const started = performance.now();
const cpuStart = process.cpuUsage();
// As the diff command: B indexed by the threads that indexed A.
const workers = new SharedIndexWorkers();
// As the diff command: A's objects counted per type, B opened as A's continuation where it is one
// (BENCH_DIFF_WHOLE=1: B indexed whole and every record of A walked, as before).
const whole = process.env.BENCH_DIFF_WHOLE === '1';
const sa = await Storage.open(a, { recordCacheBytes: 8 * 1024 * 1024, indexWorkers: workers, countLatestTypes: !whole });
const sb = await Storage.open(b, { recordCacheBytes: 8 * 1024 * 1024, indexWorkers: workers, ...(whole ? {} : { basis: sa }) });
void workers.close();
const opened = performance.now();
const cpuOpened = process.cpuUsage(cpuStart);
let lines = 0;
let bytes = 0;
const report = await diffStorages(sa, sb, {
  limit: Number.MAX_SAFE_INTEGER,
  onObject: (change) => {
    lines++;
    bytes += JSON.stringify(change).length + 1;
  },
});
const done = performance.now();
const cpuDone = process.cpuUsage(cpuStart);
await sa.close();
await sb.close();
process.stdout.write(
  `${JSON.stringify({
    openMs: opened - started,
    compareMs: done - opened,
    totalMs: done - started,
    openCpuMs: (cpuOpened.user + cpuOpened.system) / 1000,
    compareCpuMs: (cpuDone.user + cpuDone.system - cpuOpened.user - cpuOpened.system) / 1000,
    changed: report.summary.changed,
    added: report.summary.added,
    removed: report.summary.removed,
    unchanged: report.summary.unchanged,
    lines,
    ndjsonBytes: bytes,
    continued: sb.basisOpening !== undefined,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  })}\n`,
);
