/**
 * Two ways to Parquet for link rows (`_references`' shape: two BIGINT ids and a member name), from
 * typed arrays of our own as the link pass holds them (`npm run build`, then
 * `tsx bench/sql/sql-link-export-paths.ts [rows]`): A, DuckDB's appender through our chunk appender
 * into a table, committed, then DuckDB's Parquet writer; B, a CSV file written from the typed
 * arrays (the member as a code), read by DuckDB's parallel CSV reader straight into its Parquet
 * writer with the names joined in. Wall and process CPU per step, the load average; one JSON line.
 */
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const built = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist')).href;
const { loadDuck } = (await import(`${built}/sql/duck-module.js`)) as typeof import('../../src/sql/duck-module.js');
const { ChunkAppender } = (await import(`${built}/sql/chunk-appender.js`)) as typeof import('../../src/sql/tables/chunk-appender.js');
const N = Number(process.argv[2] ?? 4_800_000);
const MEMBERS = ['author', 'tag', 'price', 'books', 'shelves', 'people', 'elements', 'value'];
const from = new BigInt64Array(N), to = new BigInt64Array(N), member = new Uint8Array(N);
for (let i = 0; i < N; i++) { from[i] = 1000000000000000000n + BigInt(i >> 2); to[i] = 1000000000000000000n + BigInt((i * 7919) % N); member[i] = i & 7; }
const duck = await loadDuck();
const cpu = (): number => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
const dir = mkdtempSync(join(tmpdir(), 'linkpaths-'));
const res: Record<string, unknown> = { rows: N, load: loadavg()[0] };
async function step(name: string, fn: () => Promise<void>): Promise<void> { const w = performance.now(), c = cpu(); await fn(); res[name] = { ms: Math.round(performance.now() - w), cpuMs: Math.round(cpu() - c) }; }
// A: appender into a table, then COPY to Parquet
{
  const inst = await duck.DuckDBInstance.create(join(dir, 'a.duckdb'), { memory_limit: '1024MB' });
  const con = await inst.connect();
  await con.run('CREATE TABLE r (from_oid BIGINT, to_oid BIGINT, member VARCHAR)');
  await step('A appender', async () => {
    await con.run('BEGIN TRANSACTION');
    const app = new ChunkAppender(duck, await con.createAppender('r'));
    for (let i = 0; i < N; i++) { app.appendBigInt(from[i]!); app.appendBigInt(to[i]!); app.appendVarchar(MEMBERS[member[i]!]!); app.endRow(); }
    app.closeSync();
    await con.run('COMMIT');
  });
  await step('A copy to parquet', async () => { await con.run(`COPY r TO '${join(dir, 'a.parquet')}' (FORMAT parquet, COMPRESSION zstd)`); });
  con.closeSync(); inst.closeSync();
}
// B: CSV written from the typed arrays, read by DuckDB's parallel CSV reader straight into Parquet
{
  await step('B write csv', async () => {
    const out = createWriteStream(join(dir, 'b.csv'), { highWaterMark: 1 << 20 });
    let buf = '';
    for (let i = 0; i < N; i++) {
      buf += `${from[i]},${to[i]},${member[i]}\n`;
      if (buf.length > 1 << 20) { if (!out.write(buf)) await new Promise<void>((r) => out.once('drain', () => r())); buf = ''; }
    }
    out.write(buf);
    await new Promise<void>((r) => out.end(() => r()));
  });
  const inst = await duck.DuckDBInstance.create(':memory:', { memory_limit: '1024MB' });
  const con = await inst.connect();
  await step('B csv to parquet', async () => {
    await con.run(`COPY (SELECT c.from_oid, c.to_oid, m.name AS member FROM read_csv('${join(dir, 'b.csv')}', header=false, columns={'from_oid': 'BIGINT', 'to_oid': 'BIGINT', 'code': 'UTINYINT'}) c JOIN (SELECT unnest(range(8))::UTINYINT AS code, unnest(${JSON.stringify(MEMBERS).replaceAll('"', "'")}) AS name) m USING (code)) TO '${join(dir, 'b.parquet')}' (FORMAT parquet, COMPRESSION zstd)`);
  });
  res.csvMB = Math.round(statSync(join(dir, 'b.csv')).size / 2 ** 20);
  con.closeSync(); inst.closeSync();
}
res.parquetMB = [statSync(join(dir, 'a.parquet')).size, statSync(join(dir, 'b.parquet')).size].map((b) => Math.round(b / 2 ** 20));
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(res));
