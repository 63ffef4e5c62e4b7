/**
 * One SQL benchmark run in a fresh process (bench/sql/sql-bench.ts starts it): the graph build, the
 * table build, the first filtered query on the largest type (build included, on a fresh engine),
 * repeated queries, RSS with every table built, and the Parquet export. One JSON line on stdout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The product's defaults (a memory limit of 1 GiB), as a user gets them.
// The built code (dist/, what `npm start` and `npx storage-inspector` run; `npm run bench:sql`
// builds it first) unless BENCH_SOURCE=1, as bench/server-child.ts does: the source run through
// tsx carries its source maps and esbuild's name helpers, about 5 % of the table build's CPU.
process.setSourceMapsEnabled(false);
const from = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', '..', process.env.BENCH_SOURCE === '1' ? 'src' : 'dist')).href;
const { StorageRegistry } = (await import(`${from}/registry/storage-registry.js`)) as typeof import('../../src/registry/storage-registry.js');
const { SqlEngine } = (await import(`${from}/sql/sql-engine.js`)) as typeof import('../../src/sql/sql-engine.js');
const { exportTables } = (await import(`${from}/sql/output/table-export.js`)) as typeof import('../../src/sql/output/table-export.js');
const { Storage } = (await import(`${from}/storage/storage.js`)) as typeof import('../../src/storage/storage.js');
const { appendFloorMs } = await import('./sql-append-floor.js');

const [dir, outBase] = process.argv.slice(2) as [string, string];
const REPEATS = Math.max(5, Number(process.env.BENCH_SQL_REPEATS ?? 30));

const storage = await Storage.open(dir);
const registry = new StorageRegistry();
const context = registry.add('default', storage);
let started = performance.now();
const graphCpuBefore = process.cpuUsage();
registry.startAll();
const graph = await context.graph.ready();
const graphMs = performance.now() - started;
const graphCpu = process.cpuUsage(graphCpuBefore);
const graphCpuMs = (graphCpu.user + graphCpu.system) / 1000;

// The first filtered query on the largest type, the table build included.
const counts = new Map<string, number>();
for (let node = 0; node < graph.nodeCount; node++) {
  if (!graph.isStored(node)) continue;
  const name = graph.types.nameOf(graph.typeOf(node));
  counts.set(name, (counts.get(name) ?? 0) + 1);
}
const fresh = (onBuilt?: (figures: { buildMs: number }) => void): InstanceType<typeof SqlEngine> =>
  new SqlEngine({ storage, graph: async () => graph, timeoutMs: 0, ...(onBuilt === undefined ? {} : { onBuilt }) });
// Every table: the base tables (`_objects`, `_values`, enums; what the first statement builds),
// then every entity type's table (what statements naming them fill; one pass for all here).
let baseMs = 0;
const firstEngine = fresh((f) => (baseMs = f.buildMs));
const cpuBefore = process.cpuUsage();
const schema = await firstEngine.schema();
started = performance.now();
await firstEngine.fillAll();
const fillMs = performance.now() - started;
const buildMs = baseMs + fillMs;
const cpu = process.cpuUsage(cpuBefore);
const buildCpuMs = (cpu.user + cpu.system) / 1000;
firstEngine.close();
const byRows = (a: { name: string }, b: { name: string }): number => (counts.get(b.name) ?? 0) - (counts.get(a.name) ?? 0);
const withText = schema.tables.filter((t) => t.kind === 'type' && t.columns.some((c) => c.type === 'VARCHAR' && !c.name.startsWith('_') && c.name !== 'text')).sort(byRows);
// The first filtered query on the largest table with a text column (build included), and on the
// largest entity type's (not a value type's view: those have a `value` column).
const largest = withText[0]!;
const largestEntity = withText.find((t) => !t.columns.some((c) => c.name === 'value'))!;
const filterOn = (table: (typeof schema.tables)[number]): string =>
  `SELECT count(*) FROM "${table.name}" WHERE "${table.columns.find((c) => c.type === 'VARCHAR' && !c.name.startsWith('_'))!.name}" LIKE '%ab%'`;
const firstSql = filterOn(largest);
const firstEntitySql = filterOn(largestEntity);
const entityEngine = fresh();
started = performance.now();
await entityEngine.query(firstEntitySql, { limit: 10 });
const firstEntityQueryMs = performance.now() - started;
entityEngine.close();
const engine = fresh();
started = performance.now();
await engine.query(firstSql, { limit: 10 });
const firstQueryMs = performance.now() - started;
await engine.fillAll();
const objects = Number((await engine.query('SELECT count(*) FROM _objects', { limit: 1 })).rows[0]![0]);
// The first statement naming _references or _elements fills them (a pass of their own).
started = performance.now();
const linksCpuBefore = process.cpuUsage();
const tableRows = await engine.query(
  `SELECT (SELECT count(*) FROM _references) + (SELECT count(*) FROM _elements) + (SELECT count(*) FROM _values)`,
  { limit: 1 },
);
const linksMs = performance.now() - started;
const linksCpu = process.cpuUsage(linksCpuBefore);
const linksCpuMs = (linksCpu.user + linksCpu.system) / 1000;

const QUERIES: Record<string, string> = {
  'count by type': 'SELECT type_name, count(*) FROM _objects GROUP BY type_name',
  'filter on a string member': `SELECT count(*) FROM "gen.Person" WHERE name LIKE 'A%'`,
  'join via a reference member': `SELECT count(*) FROM "gen.Book" b JOIN "gen.Person" p ON b.author = p._oid WHERE p.age > 50`,
  'aggregate over _elements': 'SELECT owner, count(*) AS n FROM _elements GROUP BY owner ORDER BY n DESC LIMIT 10',
  'recursive walk over _references': `WITH RECURSIVE walk(oid, depth) AS (SELECT min(_oid), 0 FROM "gen.Library" UNION SELECT r.to_oid, w.depth + 1 FROM walk w JOIN _references r ON r.from_oid = w.oid WHERE w.depth < 3) SELECT depth, count(DISTINCT oid) FROM walk GROUP BY depth`,
};
const repeated: Record<string, { p50: number; p99: number }> = {};
for (const [name, sql] of Object.entries(QUERIES)) {
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const t = performance.now();
    await engine.query(sql, { limit: 1000 });
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  repeated[name] = { p50: times[Math.floor(times.length / 2)]!, p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))]! };
}
// The floor: every table's rows, of its column types, appended by DuckDB alone (sql-append-floor.ts).
// A user's statement may no longer read DuckDB's catalog (the sandbox's allow-list): the rows per
// table from the engine's own look at it, the column types from the schema (the tables a user sees).
const estimates = await engine.tableRowEstimates();
const floorTables = schema.tables.filter((t) => estimates.has(t.name)).map((t) => ({ name: t.name, rows: estimates.get(t.name)!, types: t.columns.map((c) => c.type) }));
const rssBytes = process.memoryUsage().rss;
// And once it has settled: freed memory goes back to the system over the next seconds (DuckDB's
// allocator hands it back from threads of its own). Samples 250 ms apart until two differ by less
// than 1 MiB, for at most 5 s.
let settledRssBytes = rssBytes;
for (let waited = 0; waited < 5000; waited += 250) {
  await new Promise((resolve) => setTimeout(resolve, 250));
  const now = process.memoryUsage().rss;
  const stable = Math.abs(now - settledRssBytes) < 2 ** 20;
  settledRssBytes = now;
  if (stable) break;
}
engine.close();
// After the RSS readings: it opens a DuckDB of its own.
const isLink = (t: { name: string }): boolean => t.name === '_elements' || t.name === '_references';
const floorMs = await appendFloorMs(from, floorTables.filter((t) => !isLink(t)));
const floorLinksMs = await appendFloorMs(from, floorTables.filter(isLink));

const out = mkdtempSync(join(outBase, 'sql-export-'));
started = performance.now();
const manifest = await exportTables({ storage, graph: async () => graph, out: join(out, 'tables'), format: 'parquet' });
const exportMs = performance.now() - started;
const parquetBytes = manifest.tables.reduce((n, t) => n + t.bytes, 0);
rmSync(out, { recursive: true, force: true });

await registry.close();
await storage.close();
process.stdout.write(
  `${JSON.stringify({ linksMs, linksCpuMs, buildCpuMs, graphCpuMs, objects, otherRows: Number(tableRows.rows[0]![0]), graphMs, buildMs, baseMs, fillMs, firstSql, firstQueryMs, largest: largest.name, largestRows: counts.get(largest.name) ?? 0, firstEntitySql, firstEntityQueryMs, largestEntity: largestEntity.name, largestEntityRows: counts.get(largestEntity.name) ?? 0, repeated, floorMs, floorLinksMs, rssBytes, settledRssBytes, exportMs, parquetBytes, maxRssBytes: process.resourceUsage().maxRSS * 1024 })}\n`,
);
