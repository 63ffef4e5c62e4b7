/**
 * The table of issue 47, measured again (`BENCH_SQL_JAVA_TABLE=1 npm run bench:sql`, or alone:
 * `tsx bench/sql/sql-java-table.ts [entities]` after `npm run build`): the issue's two questions
 * (books per tag with sum and average price; the ten authors with most books) asked of the
 * generated storage the way a user asks them, each a fresh process measured by GNU time (wall,
 * user + system CPU, peak RSS):
 * - `storage-inspector sql DIR "<question>" --no-cache` (cold: no tables kept between runs);
 * - `storage-inspector export DIR --format parquet --out X --no-cache`;
 * - DuckDB alone answering both questions over that export (a process of its own);
 * beside the read-once floor measured in the same run and the Java program's figures as the issue
 * recorded them (MicroStream 4.1 started on the storage, the graph walked and counted, -Xmx16g:
 * 56 s wall, 62 s CPU, 5.0 GB). The machine is shared: the ratios against the floor of the same
 * run say more than the wall times.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readOnceFloor, storageBytes, storageFor } from '../storages.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLI = join(HERE, '..', '..', 'dist', 'cli', 'main.js');
const TIME = '/usr/bin/time';

/** What the issue recorded for the Java program (it is not run here: it needs the application's walk written in Java). */
export const JAVA_RECORDED = { wallMs: 56_000, cpuMs: 62_000, peakRssBytes: 5.0e9 } as const;

export const QUESTIONS: readonly { readonly name: string; readonly sql: string }[] = [
  { name: 'books per tag, sum and average price', sql: 'SELECT tag, count(*) AS books, sum(price) AS total, avg(price) AS average FROM "gen.Book" GROUP BY tag ORDER BY tag' },
  {
    name: 'the ten authors with most books',
    sql: 'SELECT p._oid AS author, p.name, count(*) AS books FROM "gen.Book" b JOIN "gen.Person" p ON b.author = p._oid GROUP BY p._oid, p.name ORDER BY books DESC, author LIMIT 10',
  },
];

export interface Measured {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssBytes: number;
  readonly stdout: string;
}

/** Runs a command under GNU time; its figures from time's last line on standard error. */
function timed(command: string, args: readonly string[]): Promise<Measured> {
  const child = spawn(TIME, ['-f', '@@time %e %U %S %M', command, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: join(HERE, '..', '..') });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('close', (code) => {
      const line = /@@time ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
      if (code !== 0 || line === null) reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${stderr}`));
      else resolve({ wallMs: Number(line[1]) * 1000, cpuMs: (Number(line[2]) + Number(line[3])) * 1000, peakRssBytes: Number(line[4]) * 1024, stdout });
    });
  });
}

/** DuckDB alone over the Parquet files of an export: the two questions, in a process of its own. */
const DUCKDB_ON_PARQUET = `
const { DuckDBInstance } = await import('@duckdb/node-api');
const [dir, ...questions] = process.argv.slice(1);
const connection = await (await DuckDBInstance.create(':memory:')).connect();
const file = (t) => "'" + dir + '/' + t + ".parquet'";
for (const q of questions) {
  const sql = q.replaceAll('"gen.Book"', file('gen.Book')).replaceAll('"gen.Person"', file('gen.Person'));
  console.log(JSON.stringify((await connection.runAndReadAll(sql)).getRowsJson()));
}`;

export interface JavaTable {
  readonly entities: number;
  readonly storageBytes: number;
  readonly load: number;
  readonly floorMs: number;
  readonly sql: readonly Measured[];
  readonly exportRun: Measured;
  readonly duckdb: Measured;
}

export async function javaTable(entities: number): Promise<JavaTable> {
  if (!existsSync(TIME)) throw new Error(`${TIME} (GNU time) is needed to measure CPU and peak RSS of a process`);
  const dir = storageFor(entities);
  await readOnceFloor(dir); // warm the page cache
  const floorMs = await readOnceFloor(dir);
  const load = loadavg()[0]!;
  const sql: Measured[] = [];
  for (const q of QUESTIONS) sql.push(await timed(process.execPath, [CLI, 'sql', dir, q.sql, '--format', 'csv', '--no-cache']));
  const outDir = mkdtempSync(join(tmpdir(), 'sql-java-table-'));
  try {
    const out = join(outDir, 'tables');
    const exportRun = await timed(process.execPath, [CLI, 'export', dir, '--format', 'parquet', '--out', out, '--no-cache']);
    const duckdb = await timed(process.execPath, ['--input-type=module', '-e', DUCKDB_ON_PARQUET, out, ...QUESTIONS.map((q) => q.sql)]);
    return { entities, storageBytes: storageBytes(dir), load, floorMs, sql, exportRun, duckdb };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** The table as lines of Markdown (what docs/benchmarks.md shows). */
export function javaTableLines(t: JavaTable): string[] {
  const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const gb = (bytes: number): string => (bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${Math.round(bytes / 1e6)} MB`);
  const floor = (ms: number): string => `${(ms / t.floorMs).toFixed(1)}×`;
  const times = (java: number, ours: number, what: string): string => (java >= ours ? `${(java / ours).toFixed(1)}× less ${what}` : `${(ours / java).toFixed(1)}× more ${what}`);
  const row = (what: string, m: { wallMs: number; cpuMs: number; peakRssBytes: number }, java: boolean): string =>
    `| ${what} | ${s(m.wallMs)} | ${s(m.cpuMs)} | ${gb(m.peakRssBytes)} | ${java ? '—' : floor(m.wallMs)} | ${java ? '' : `${times(JAVA_RECORDED.cpuMs, m.cpuMs, 'CPU')}, ${times(JAVA_RECORDED.peakRssBytes, m.peakRssBytes, 'memory')}`} |`;
  return [
    `${t.entities.toLocaleString('en')} entities (${gb(t.storageBytes)} on disk), load average ${t.load.toFixed(1)} at the start; read-once floor ${t.floorMs.toFixed(0)} ms (wall, this run)`,
    '',
    '| | wall | CPU | peak RSS | wall ÷ floor | against the Java program |',
    '|---|---|---|---|---|---|',
    row('the Java program (MicroStream 4.1, -Xmx16g; as recorded in the issue)', JAVA_RECORDED, true),
    ...t.sql.map((m, i) => row(`\`sql\`, cold process: ${QUESTIONS[i]!.name}`, m, false)),
    row('`export --format parquet`, cold process', t.exportRun, false),
    row('DuckDB on that export, both questions (whole process)', t.duckdb, false),
  ];
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const t = await javaTable(Number(process.argv[2] ?? 10_000_000));
  for (const line of javaTableLines(t)) console.log(line);
  for (const [i, m] of t.sql.entries()) console.log(`\n${QUESTIONS[i]!.name}:\n${m.stdout.trim()}`);
  console.log(`\nDuckDB on the export:\n${t.duckdb.stdout.trim()}`);
}
