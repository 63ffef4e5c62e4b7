/**
 * Profiling aid (`npm run build`, then `node --import tsx --cpu-prof bench/sql/sql-build-only.ts DIR`): the graph build, then
 * the tables built once, one filtered query; one JSON line (times, CPU, RSS before and after).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The built code unless BENCH_SOURCE=1 (see sql-child.ts); `npm run build` first.
process.setSourceMapsEnabled(false);
const from = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', '..', process.env.BENCH_SOURCE === '1' ? 'src' : 'dist')).href;
const { StorageRegistry } = (await import(`${from}/registry/storage-registry.js`)) as typeof import('../../src/registry/storage-registry.js');
const { SqlEngine } = (await import(`${from}/sql/sql-engine.js`)) as typeof import('../../src/sql/sql-engine.js');
const { Storage } = (await import(`${from}/storage/storage.js`)) as typeof import('../../src/storage/storage.js');

const [dir] = process.argv.slice(2) as [string];
const storage = await Storage.open(dir);
const registry = new StorageRegistry();
const context = registry.add('default', storage);
let started = performance.now();
registry.startAll();
const graph = await context.graph.ready();
const graphMs = performance.now() - started;
const rssGraph = process.memoryUsage().rss;
const engine = new SqlEngine({ storage, graph: async () => graph, timeoutMs: 0 });
const cpu0 = process.cpuUsage();
started = performance.now();
const schema = await engine.schema();
const baseMs = performance.now() - started;
await engine.fillAll();
const buildMs = performance.now() - started;
const cpu = process.cpuUsage(cpu0);
const q0 = performance.now();
await engine.query(`SELECT count(*) FROM "gen.Person" WHERE name LIKE '%ab%'`, { limit: 10 });
const queryMs = performance.now() - q0;
// With LINKS=1: the fill of _elements and _references, which the first statement naming them pays.
let links: { ms: number; cpuMs: number } | undefined;
if (process.env.LINKS === '1') {
  const l0 = performance.now();
  const c0 = process.cpuUsage();
  await engine.query('SELECT count(*) FROM _references', { limit: 1 });
  const c = process.cpuUsage(c0);
  links = { ms: performance.now() - l0, cpuMs: (c.user + c.system) / 1000 };
}
const rss = process.memoryUsage().rss;
engine.close();
await registry.close();
await storage.close();
process.stdout.write(`${JSON.stringify({ graphMs, baseMs, buildMs, buildCpuMs: (cpu.user + cpu.system) / 1000, queryMs, tables: schema.tables.length, rssMB: rss / 2 ** 20, rssGraphMB: rssGraph / 2 ** 20, links })}\n`);
