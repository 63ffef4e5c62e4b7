/**
 * The SQL floods of `npm run bench:abuse -- sql-flood` (see abuse.ts), against
 * `storage-inspector serve` in a child process on the corpus storage `graph`, with the default
 * SQL limits (1 GiB DuckDB memory, 4 statements at once):
 *
 *   1. the issue's statements: four parallel `SELECT repeat(chr(120), 4000000) FROM range(250)`
 *      (1 GB each) and one `SELECT length(repeat('x', 1500000000))`;
 *   2. what the allow-list leaves an attacker: four parallel JSON answers of 20 rows of 4 MB
 *      built with `string_agg` (80 MB each), and the same four as CSV streams read as fast as
 *      they come;
 *   3. four parallel `SELECT count(*) FROM range(1e12)`-like statements that run until the timeout.
 *
 * Throughout, one client asks /health every 100 ms. Prints each statement's statuses and times,
 * /health p50/p99/max, and the server's peak RSS. ABUSE_ARGS: extra serve options.
 */
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { healthWhile, send, startServer } from './abuse-search.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const GRAPH = join(ROOT, 'test/fixtures/conformance/storages/graph');

/** 20 rows of 4 MB (80 MB): within DuckDB's memory limit, over the JSON answer limit. */
const BIG_ROWS = "SELECT (SELECT string_agg(chr(120), '') FROM range(4000000)) || i AS x FROM range(20) t(i)";

interface Round {
  readonly name: string;
  readonly statements: readonly string[];
  readonly accept?: string;
}

const ROUNDS: readonly Round[] = [
  { name: "the issue's repeat x4 (JSON)", statements: Array(4).fill('SELECT repeat(chr(120), 4000000) FROM range(250)') },
  { name: "the issue's 1.5 GB repeat", statements: ["SELECT length(repeat('x', 1500000000))"] },
  { name: 'string_agg rows of 4 MB x20, x4 (JSON)', statements: Array(4).fill(BIG_ROWS) },
  { name: 'string_agg rows of 4 MB x20, x4 (CSV streams)', statements: Array(4).fill(BIG_ROWS), accept: 'text/csv' },
  { name: 'count over range(1e12), x4 (until the timeout)', statements: Array(4).fill('SELECT count(*) FROM range(1000000000000)') },
];

function summary(statuses: readonly { status: number; ms: number; bytes: number; detail: string }[]): string {
  const by = new Map<number, number[]>();
  for (const s of statuses) by.set(s.status, [...(by.get(s.status) ?? []), s.ms]);
  const bytes = statuses.reduce((n, s) => n + s.bytes, 0);
  const details = [...new Set(statuses.map((s) => s.detail).filter((d) => d !== ''))];
  return (
    [...by].map(([status, ms]) => `${status} x${ms.length} (${Math.round(Math.min(...ms))}-${Math.round(Math.max(...ms))} ms)`).join(', ') +
    `, ${(bytes / 1024 ** 2).toFixed(1)} MiB answered${details.length > 0 ? `; ${details.map((d) => `"${d}"`).join(', ')}` : ''}`
  );
}

async function sqlFlood(): Promise<void> {
  const server = await startServer(GRAPH);
  try {
    // Tables built before the floods (the first statement builds them).
    await send(server.port, 'POST', '/api/v1/sql', JSON.stringify({ sql: 'SELECT count(*) FROM _objects' }), { 'content-type': 'application/json' });
    for (const round of ROUNDS) {
      const all = Promise.all(
        round.statements.map(async (sql) => {
          const answer = await send(server.port, 'POST', '/api/v1/sql', JSON.stringify({ sql, limit: 10_000 }), { 'content-type': 'application/json', ...(round.accept === undefined ? {} : { accept: round.accept }) });
          return { status: answer.status, ms: answer.ms, bytes: answer.body.length, detail: answer.status >= 400 ? ((/"detail":"([^"]{0,90})/.exec(answer.body) ?? [])[1] ?? '') : '' };
        }),
      );
      const health = await healthWhile(server.child.pid!, server.port, all);
      console.log(`${round.name}: ${summary(await all)}`);
      console.log(`  ${health}`);
    }
  } finally {
    server.child.kill('SIGTERM');
  }
}

export async function runSqlScenario(name: string): Promise<boolean> {
  if (name !== 'sql-flood') return false;
  await sqlFlood();
  return true;
}
