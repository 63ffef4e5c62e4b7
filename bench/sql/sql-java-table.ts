/**
 * The table of issue 47, measured again (`BENCH_SQL_JAVA_TABLE=1 npm run bench:sql`, or alone:
 * `tsx bench/sql/sql-java-table.ts [entities]` after `npm run build`): the issue's two questions
 * (books per tag with sum and average price; the ten authors with most books) asked of the
 * generated storage the way a user asks them, each a fresh process measured by GNU time (wall,
 * user + system CPU, peak RSS):
 * - `storage-inspector sql DIR "<question>" --no-cache` (cold: no tables kept between runs);
 * - `storage-inspector export DIR --format parquet --out X --no-cache`;
 * - DuckDB alone answering both questions over that export (a process of its own);
 * - the Java program an application developer writes (java/LibraryQuestions.java): the real
 *   MicroStream 4.1 embedded storage started on a copy of the storage (the library writes a lock
 *   file into what it opens; the copy is made before the measured process and removed after),
 *   the root's shelves and their lazily loaded books walked, the two questions counted; `-Xmx16g`
 *   as the issue ran it, less where the machine has less. Compiled with `javac` into a temporary
 *   directory; the jars from STORAGE_INSPECTOR_JAVA_REFERENCE or `../shared/java` beside the clone.
 *   Its answers are compared with `sql`'s (a line says where they differ). Where `java`, `javac`
 *   or the jars are missing, the table says so and shows the figures the issue recorded (56 s wall,
 *   62 s CPU, 5.0 GB), labelled as recorded;
 * beside the read-once floor measured in the same run. The machine is shared: the ratios against
 * the floor of the same run say more than the wall times.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  answerDifferences,
  compileLibraryQuestions,
  libraryQuestionsMissing,
  withStorageCopy,
} from '../../test/helpers/real-systems/java-library-questions.js';
import { readOnceFloor, storageBytes, storageFor } from '../storages.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLI = join(HERE, '..', '..', 'dist', 'cli', 'main.js');
const TIME = '/usr/bin/time';

/** What the issue recorded for the Java program (shown where it cannot run: no java, javac or jars). */
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
  /** What the process wrote on standard error besides time's line. */
  readonly stderr: string;
}

/** The Java program's run: its figures, heap, and where its answers differ from `sql`'s (none: equal). */
export interface JavaRun extends Measured {
  readonly heap: string;
  readonly differences: readonly string[];
}

/** `-Xmx16g` as the issue ran it; on a machine with less memory, three quarters of it. */
export function javaHeap(): string {
  const gib = Math.floor((totalmem() * 0.75) / 1024 ** 3);
  return gib >= 16 ? '16g' : `${Math.max(1, gib)}g`;
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
      else
        resolve({
          wallMs: Number(line[1]) * 1000,
          cpuMs: (Number(line[2]) + Number(line[3])) * 1000,
          peakRssBytes: Number(line[4]) * 1024,
          stdout,
          stderr: stderr.replace(/@@time .*\n?/, ''),
        });
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
  /** The Java program measured in this run, or why it could not run (then the recorded figures are shown). */
  readonly java: JavaRun | { readonly missing: string };
}

/** The Java program compiled, run on a copy of `dir` under GNU time, its answers compared with `ours`. */
async function runJava(dir: string, ours: readonly string[]): Promise<JavaRun> {
  const program = compileLibraryQuestions();
  try {
    const heap = javaHeap();
    const run = await withStorageCopy(dir, (copy) => timed('java', program.javaArgs(copy, heap)));
    return { ...run, heap, differences: answerDifferences(ours, run.stdout) };
  } finally {
    program.dispose();
  }
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
    const missing = libraryQuestionsMissing();
    const java = missing === undefined ? await runJava(dir, sql.map((m) => m.stdout)) : { missing };
    return { entities, storageBytes: storageBytes(dir), load, floorMs, sql, exportRun, duckdb, java };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** The table as lines of Markdown (what docs/benchmarks/sql.md shows), then whether the answers agree. */
export function javaTableLines(t: JavaTable): string[] {
  const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const gb = (bytes: number): string => (bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${Math.round(bytes / 1e6)} MB`);
  const floor = (ms: number): string => `${(ms / t.floorMs).toFixed(1)}×`;
  const measured = 'missing' in t.java ? undefined : t.java;
  const java = measured ?? JAVA_RECORDED;
  const times = (theirs: number, ours: number, what: string): string =>
    theirs >= ours ? `${(theirs / ours).toFixed(1)}× less ${what}` : `${(ours / theirs).toFixed(1)}× more ${what}`;
  const row = (what: string, m: { wallMs: number; cpuMs: number; peakRssBytes: number }, isJava: boolean): string =>
    `| ${what} | ${s(m.wallMs)} | ${s(m.cpuMs)} | ${gb(m.peakRssBytes)} | ${isJava && measured === undefined ? '—' : floor(m.wallMs)} | ${isJava ? '' : `${times(java.cpuMs, m.cpuMs, 'CPU')}, ${times(java.peakRssBytes, m.peakRssBytes, 'memory')}`} |`;
  const javaWhat =
    measured === undefined
      ? 'the Java program (MicroStream 4.1, -Xmx16g; as recorded in the issue, not run here)'
      : `the Java program (MicroStream 4.1 on a copy, -Xmx${measured.heap}; this run)`;
  const agreement =
    'missing' in t.java
      ? [`The Java program did not run here (${t.java.missing}): its row is the issue's recorded figures.`]
      : t.java.differences.length === 0
        ? ["The Java program's answers equal `sql`'s (both questions)."]
        : [`MISMATCH: the Java program's answers differ from \`sql\`'s:`, ...t.java.differences.map((d) => `- ${d}`)];
  return [
    `${t.entities.toLocaleString('en')} entities (${gb(t.storageBytes)} on disk), load average ${t.load.toFixed(1)} at the start; read-once floor ${t.floorMs.toFixed(0)} ms (wall, this run)`,
    '',
    '| | wall | CPU | peak RSS | wall ÷ floor | against the Java program |',
    '|---|---|---|---|---|---|',
    row(javaWhat, java, true),
    ...t.sql.map((m, i) => row(`\`sql\`, cold process: ${QUESTIONS[i]!.name}`, m, false)),
    row('`export --format parquet`, cold process', t.exportRun, false),
    row('DuckDB on that export, both questions (whole process)', t.duckdb, false),
    '',
    ...agreement,
  ];
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const t = await javaTable(Number(process.argv[2] ?? 10_000_000));
  for (const line of javaTableLines(t)) console.log(line);
  for (const [i, m] of t.sql.entries()) console.log(`\n${QUESTIONS[i]!.name}:\n${m.stdout.trim()}`);
  console.log(`\nDuckDB on the export:\n${t.duckdb.stdout.trim()}`);
  if (!('missing' in t.java)) console.log(`\nThe Java program (${t.java.stderr.trim()}):\n${t.java.stdout.trim()}`);
}
