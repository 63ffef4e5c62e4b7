/**
 * Where a cold first answer's time goes (`npm run build`, then
 * `tsx bench/sql/sql-first-answer-phases.ts DIR "<statement>" ["<statement>"...]`): in one fresh
 * process, DuckDB's library loaded, the storage opened, then each statement (the first with the
 * build it starts, as in `sql`; `SCHEMA_FIRST=1`: the base tables built first, apart; each with the
 * fills it starts), each step's wall time and the process's CPU time
 * (user + system, DuckDB's threads included) and, where Linux tells it, the JavaScript thread's
 * own (`mainCpuMs`: what two free cores cannot overlap); the core count and load average at the
 * start; one JSON line. `EXPORT` as the only statement runs the Parquet export instead (into `OUT`, a
 * directory that must not exist). `DIST` points at another build's `dist` (a build of an
 * earlier commit) to compare two builds in the same hour of the machine.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

process.setSourceMapsEnabled(false);
const from = pathToFileURL(process.env.DIST ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist')).href;
const { loadDuck } = (await import(`${from}/sql/duck-module.js`)) as typeof import('../../src/sql/duck-module.js');
const { SqlEngine } = (await import(`${from}/sql/sql-engine.js`)) as typeof import('../../src/sql/sql-engine.js');
const { Storage } = (await import(`${from}/storage/storage.js`)) as typeof import('../../src/storage/storage.js');

const [dir, ...statements] = process.argv.slice(2);
if (dir === undefined || statements.length === 0) throw new Error('usage: sql-first-answer-phases.ts DIR STATEMENT... | DIR EXPORT');
const cpuMs = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
/** The main thread's user + system time from /proc (clock ticks of 10 ms); undefined elsewhere. */
const mainCpuMs = (): number | undefined => {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
};
const out: Record<string, unknown> = { cores: availableParallelism(), load: loadavg()[0] };
let wall = performance.now();
let cpu = cpuMs();
let main = mainCpuMs();
const mark = (name: string): void => {
  const now = performance.now();
  const used = cpuMs();
  const mainUsed = mainCpuMs();
  out[name] = { ms: Math.round(now - wall), cpuMs: Math.round(used - cpu), ...(mainUsed === undefined || main === undefined ? {} : { mainCpuMs: mainUsed - main }) };
  wall = now;
  cpu = used;
  main = mainUsed;
};

await loadDuck();
mark('duckdb loaded');
const storage = await Storage.open(dir);
mark('storage opened');
if (statements[0] === 'EXPORT') {
  const { exportTables } = (await import(`${from}/sql/output/table-export.js`)) as typeof import('../../src/sql/output/table-export.js');
  const target = process.env.OUT;
  if (target === undefined) throw new Error('OUT names the export directory (a new one)');
  await exportTables({ storage, out: target, format: 'parquet' });
  mark('export');
} else {
  const engine = new SqlEngine({ storage, graph: async () => undefined, timeoutMs: 0 });
  // As `sql` does, the first statement starts the build (and its pass stages the types it names);
  // SCHEMA_FIRST=1 builds the base tables first, to time them apart (the statement's types then
  // walked for by its fill, as in `serve` when the schema is asked for first).
  if (process.env.SCHEMA_FIRST === '1') {
    await engine.schema();
    mark('base tables');
  }
  for (const [i, sql] of statements.entries()) {
    const answer = await engine.query(sql, { limit: 100 });
    mark(`statement ${i + 1}`);
    out[`rows ${i + 1}`] = answer.rows.length;
  }
  engine.close();
}
out.rssMB = Math.round(process.memoryUsage().rss / 2 ** 20);
await storage.close();
process.stdout.write(`${JSON.stringify(out)}\n`);
