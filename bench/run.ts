/**
 * `npm run bench`: for storages of 1M, 10M and 100M entities (generated once under
 * bench/.storages, reused), measured side by side in one run:
 * - the read-once floor and open + index time, warm and cold (page cache dropped; needs root);
 * - index bytes per entity and RSS after opening;
 * - `/object` (random existing ids) and `/root` throughput and latency at 64 connections against
 *   the Node ceiling (a plain node:http server answering a constant); `/object` also on a server
 *   without the cache of records read lately, and what each server read from disk meanwhile.
 * Every figure is the median of BENCH_ROUNDS runs with its spread (min–max). Servers and the
 * load generator (autocannon) run in processes of their own; ceiling and server runs alternate
 * round by round, and each ratio is taken within a round. Each load run also records how much
 * CPU other processes took meanwhile: the machine's noise.
 *
 * Also the graph index (src/graph): built once per size after a warm open (BENCH_GRAPH=0 skips it).
 * Environment: BENCH_SIZES=1000000,10000000 (sizes), BENCH_SECONDS (default 5 per load run),
 * BENCH_ROUNDS (default 3), BENCH_FOLLOW=0 (skip the following benchmark), BENCH_CPU_PROF=<dir>
 * (CPU profiles of the server processes), BENCH_SOURCE=1 (serve the TypeScript sources),
 * BENCH_FAMILY=eclipsestore (EclipseStore-family storages instead of MicroStream 4.1 ones).
 *
 * First, start-up (startup-bench.ts): launch to the first /root answer and `check` on the demo
 * storage beside `node -e 0`. BENCH_STARTUP=0 skips it, BENCH_STARTUP=only runs nothing else;
 * BENCH_STARTUP_LARGE=10000000 adds the launch of that size against `cat` of its files and its
 * memory once the graph index is ready (startup-large-bench.ts).
 *
 * Then the dominator tree (dominator-bench.ts) beside the graph build at BENCH_DOMINATOR_SIZES
 * (default 1M and 10M entities); BENCH_DOMINATORS=0 skips it, `npm run bench:dominators` runs it alone.
 *
 * Then diff (diff-bench.ts): two storages differing in 1 % of their objects against the read-once
 * floor of both, at BENCH_DIFF_SIZES (default 1M entities); BENCH_DIFF=0 skips it, `npm run bench:diff`
 * runs it alone.
 *
 * Then convert (convert-bench.ts): a storage with about 30 % superseded versions and garbage
 * converted to 4 channels, against reading it once plus `cp -r` of the result, at
 * BENCH_CONVERT_SIZES (default 1M entities); BENCH_CONVERT=0 skips it, `npx tsx bench/convert/convert-bench.ts`
 * runs it alone.
 *
 * Last, SQL (sql-bench.ts): the tables built against the graph build, the first and repeated
 * queries, RSS and the Parquet export, at BENCH_SQL_SIZES (default 1M and 10M entities);
 * BENCH_SQL=0 skips it, `npm run bench:sql` runs it alone.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { benchConvert } from './convert/convert-bench.js';
import { benchDiff } from './diff/diff-bench.js';
import { benchFollow } from './follow-bench.js';
import { benchDominators } from './graph/dominator-bench.js';
import { startServer, stopChild } from './processes.js';
import { benchSize, CONNECTIONS, ROUNDS, SECONDS, sizes } from './size-bench.js';
import { noiseLines, row, TABLE_HEADER, tableRow, targetLines } from './size-report.js';
import type { SizeResult } from './size-result.js';
import { benchSql } from './sql/sql-bench.js';
import { benchStartup, startupLines } from './startup/startup-bench.js';
import { benchLargeStartup, largeStartupLines } from './startup/startup-large-bench.js';

async function main(): Promise<void> {
  console.log(
    `storage-inspector benchmark: node ${process.version}, ${cpus().length} cores, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, ` +
      `${CONNECTIONS} connections, ${SECONDS} s per load run, ${ROUNDS} rounds; load average at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  );
  const largeEntities = Number(process.env.BENCH_STARTUP_LARGE ?? 0);
  const startup =
    process.env.BENCH_STARTUP === '0'
      ? undefined
      : [...startupLines(await benchStartup()), ...(largeEntities > 0 ? largeStartupLines(await benchLargeStartup(largeEntities)) : [])];
  if (startup !== undefined) console.log(startup.join('\n'));
  if (process.env.BENCH_STARTUP === 'only') return;
  const results: SizeResult[] = [];
  const ceiling = await startServer(['', '--ceiling']);
  try {
    for (const entities of sizes()) {
      results.push(await benchSize(entities, ceiling));
      console.log(tableRow(results.at(-1)!));
    }
  } finally {
    await stopChild(ceiling.child);
  }
  const follow = process.env.BENCH_FOLLOW === '0' ? [] : await benchFollow({ connections: CONNECTIONS, seconds: SECONDS });
  const dominators = process.env.BENCH_DOMINATORS === '0' ? [] : await benchDominators((process.env.BENCH_DOMINATOR_SIZES ?? '1000000,10000000').split(',').map(Number));
  const diff = process.env.BENCH_DIFF === '0' ? [] : await benchDiff((process.env.BENCH_DIFF_SIZES ?? '1000000').split(',').map(Number));
  const convert = process.env.BENCH_CONVERT === '0' ? [] : await benchConvert((process.env.BENCH_CONVERT_SIZES ?? '1000000').split(',').map(Number));
  const sql = process.env.BENCH_SQL === '0' ? [] : await benchSql((process.env.BENCH_SQL_SIZES ?? '1000000,10000000').split(',').map(Number));
  console.log(`\nMedians of ${ROUNDS} rounds, [min–max] where they differ:\n`);
  console.log([row(TABLE_HEADER), row(TABLE_HEADER.map(() => '---')), ...results.map(tableRow)].join('\n'));
  console.log(`\nTargets:\n${targetLines(results).join('\n')}`);
  console.log(`\nNoise (load average at the end ${loadavg().map((l) => l.toFixed(2)).join(' ')}):\n${noiseLines(results).join('\n')}`);
  if (follow.length > 0) console.log(`\n${follow.join('\n')}`);
  if (startup !== undefined) console.log(`\n${startup.join('\n')}`);
  if (dominators.length > 0) console.log(dominators.join('\n'));
  if (diff.length > 0) console.log(diff.join('\n'));
  if (convert.length > 0) console.log(convert.join('\n'));
  if (sql.length > 0) console.log(sql.join('\n'));
}

await main();
