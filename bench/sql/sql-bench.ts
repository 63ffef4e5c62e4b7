/**
 * `npm run bench:sql`: SQL on generated storages (BENCH_SIZES, default 1M entities, 4 channels;
 * generated once under bench/.storages), in a fresh process each: building every table (rows/s)
 * against the graph build and the read-once floor, the first filtered query on the largest type
 * (table build included), repeated queries p50/p99, RSS with every table built against the
 * storage's size on disk, and the Parquet export (MB/s of storage read); then `sql` run twice as a
 * command on the unchanged storage, the second answered from the tables kept between runs
 * (sql-cache-runs.ts). Warm page cache. BENCH_SQL_CACHE_ONLY=1: only the two `sql` runs.
 * BENCH_SQL_JAVA_TABLE=1: then the table of issue 47 (sql-java-table.ts): the two questions as cold
 * `sql` processes, the Parquet export and DuckDB on it, beside the Java program's recorded figures.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { cacheRuns } from './sql-cache-runs.js';
import { javaTable, javaTableLines } from './sql-java-table.js';
import { cannotRun, readOnceFloor, storageBytes, storageFor, STORAGES } from '../storages.js';

const HERE = dirname(fileURLToPath(import.meta.url));

interface Report {
  linksMs: number;
  linksCpuMs: number;
  buildCpuMs: number;
  graphCpuMs: number;
  objects: number;
  otherRows: number;
  graphMs: number;
  buildMs: number;
  baseMs: number;
  fillMs: number;
  firstSql: string;
  firstEntitySql: string;
  firstEntityQueryMs: number;
  largestEntity: string;
  largestEntityRows: number;
  firstQueryMs: number;
  largest: string;
  largestRows: number;
  repeated: Record<string, { p50: number; p99: number }>;
  floorMs: number;
  floorLinksMs: number;
  rssBytes: number;
  settledRssBytes: number;
  maxRssBytes: number;
  exportMs: number;
  parquetBytes: number;
}

function runChild(dir: string): Promise<Report> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, 'sql-child.ts'), dir, STORAGES], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  return new Promise((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as Report));
    child.once('close', (code) => reject(new Error(`sql-child exited with ${code} before reporting`)));
  });
}

const mb = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(1)} MB`;

/** The query of the two `sql` runs without the child (which picks the largest entity type's): the generator's persons. */
const CACHE_QUERY = `SELECT count(*) FROM "gen.Person" WHERE name LIKE '%ab%'`;

function sayCacheRuns(say: (line: string) => void, c: Awaited<ReturnType<typeof cacheRuns>>, sql: string): void {
  const secs = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
  say(`  sql, a fresh process         ${secs(c.cold.answerMs)} to the answer, ${secs(c.cold.exitMs)} to the exit (the tables kept in the cache after the answer: ${mb(c.entryBytes)}): ${sql}`);
  say(`  sql again, storage unchanged ${secs(c.cached.answerMs)} to the answer, ${secs(c.cached.exitMs)} to the exit (the kept tables copied into the private directory; the same answer)`);
}

/** The SQL benchmark at these sizes (entities), one block of lines per size, printed as it goes. */
export async function benchSql(wanted: readonly number[], print: (line: string) => void = console.log): Promise<string[]> {
  const out: string[] = [];
  const say = (line: string): void => {
    out.push(line);
    print(line);
  };
  const sizes = wanted.filter((n) => {
    const reason = cannotRun(n);
    if (reason !== undefined) say(`skipping SQL at ${n.toLocaleString('en')} entities: ${reason}`);
    return reason === undefined;
  });
  for (const entities of sizes) {
    const dir = storageFor(entities);
    const bytes = storageBytes(dir);
    await readOnceFloor(dir); // warm the page cache
    const floorMs = await readOnceFloor(dir);
    const load = loadavg()[0]!;
    if (process.env.BENCH_SQL_CACHE_ONLY === '1') {
      say(`\nSQL at ${entities.toLocaleString('en')} entities (${mb(bytes)} on disk), load average ${load.toFixed(2)}`);
      sayCacheRuns(say, await cacheRuns(dir, CACHE_QUERY), CACHE_QUERY);
      continue;
    }
    const r = await runChild(dir);
    say(`\nSQL at ${entities.toLocaleString('en')} entities (${mb(bytes)} on disk), load average ${load.toFixed(2)}`);
    say(`  read-once floor              ${floorMs.toFixed(0)} ms`);
    say(`  graph build                  ${r.graphMs.toFixed(0)} ms (${r.graphCpuMs.toFixed(0)} ms of CPU in this process; the graph's worker threads count too)`);
    say(`  tables built                 ${r.buildMs.toFixed(0)} ms (${(r.buildMs / r.graphMs).toFixed(2)}× the graph build, ${Math.round(r.objects / (r.buildMs / 1000)).toLocaleString('en')} objects/s; ${r.objects.toLocaleString('en')} objects; with the link tables ${r.otherRows.toLocaleString('en')} rows of _references, _elements, _values; ${r.buildCpuMs.toFixed(0)} ms of CPU)`);
    say(`    of which base tables       ${r.baseMs.toFixed(0)} ms (_values, enums, GigaMaps: what the first statement builds), every entity type's table and _objects ${r.fillMs.toFixed(0)} ms (filled when first named; a pass for the types, one for _objects)`);
    say(`  _elements + _references      ${r.linksMs.toFixed(0)} ms (${r.linksCpuMs.toFixed(0)} ms of CPU), filled when a statement first names them`);
    say(`  DuckDB's append floor        ${r.floorMs.toFixed(0)} ms for the tables' rows (${(r.floorMs / r.graphMs).toFixed(2)}× the graph build), ${r.floorLinksMs.toFixed(0)} ms for _elements + _references: the same rows and column types from values that cost nothing, appended, committed and checkpointed by DuckDB alone`);
    say(`  first query (build included) ${r.firstQueryMs.toFixed(0)} ms on ${r.largest} (${r.largestRows.toLocaleString('en')} rows): ${r.firstSql}`);
    say(`  first query on an entity type ${r.firstEntityQueryMs.toFixed(0)} ms on ${r.largestEntity} (${r.largestEntityRows.toLocaleString('en')} rows, build and fill included): ${r.firstEntitySql}`);
    for (const [name, t] of Object.entries(r.repeated)) say(`  ${name.padEnd(32)} p50 ${t.p50.toFixed(1)} ms, p99 ${t.p99.toFixed(1)} ms`);
    say(`  RSS with every table built   ${mb(r.settledRssBytes)} settled (${(r.settledRssBytes / bytes).toFixed(2)}× the storage on disk); ${mb(r.rssBytes)} right after the queries, peak ${mb(r.maxRssBytes)}`);
    say(`  Parquet export               ${r.exportMs.toFixed(0)} ms, ${mb(r.parquetBytes)} written, ${(bytes / 1024 ** 2 / (r.exportMs / 1000)).toFixed(1)} MB/s of storage`);
    sayCacheRuns(say, await cacheRuns(dir, r.firstEntitySql), r.firstEntitySql);
    if (process.env.BENCH_SQL_JAVA_TABLE === '1') for (const line of javaTableLines(await javaTable(entities))) say(`  ${line}`);
  }
  return out;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await benchSql(process.env.BENCH_SIZES?.split(',').map(Number) ?? [1_000_000]);
}
