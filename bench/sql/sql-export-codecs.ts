/**
 * What DuckDB's Parquet writer costs per codec for the tables of an export (`npm run build`, then
 * `tsx bench/sql/sql-export-codecs.ts EXPORT_DIR [rounds=1] [codec…]`, EXPORT_DIR written by
 * `export --format parquet`). Each file is read into a table in memory once, then written by
 * `COPY … (FORMAT parquet, COMPRESSION c)` for each codec in turn (the order turned by one per
 * table and round, so that no codec always comes first after the load): the process's CPU (user +
 * system, every DuckDB thread), the wall time and the file's size, summed over the tables; the
 * writer alone, without the export's passes over the records. One JSON line per codec, then the
 * load average. The default codecs: zstd at level 1 (the export's, parquet-options.ts), snappy
 * (DuckDB's default), lz4_raw, uncompressed.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const built = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist')).href;
const { loadDuck } = (await import(`${built}/sql/duck-module.js`)) as typeof import('../../src/sql/duck-module.js');

const [from, roundsText = '1', ...named] = process.argv.slice(2);
if (from === undefined) throw new Error('usage: sql-export-codecs.ts EXPORT_DIR [rounds] [codec…]');
const CODECS: Record<string, string> = {
  'zstd-1': 'COMPRESSION zstd, COMPRESSION_LEVEL 1',
  'zstd-3': 'COMPRESSION zstd',
  snappy: 'COMPRESSION snappy',
  lz4_raw: 'COMPRESSION lz4_raw',
  uncompressed: 'COMPRESSION uncompressed',
};
const codecs = named.length > 0 ? named : ['zstd-1', 'snappy', 'lz4_raw', 'uncompressed'];
for (const codec of codecs) if (CODECS[codec] === undefined) throw new Error(`unknown codec ${codec}: ${Object.keys(CODECS).join(', ')}`);
const rounds = Number(roundsText);
const files = readdirSync(from).filter((f) => f.endsWith('.parquet')).sort();
const cpu = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const quote = (text: string): string => `'${text.replace(/'/g, "''")}'`;
const duck = await loadDuck();
const instance = await duck.DuckDBInstance.create(':memory:');
const connection = await instance.connect();
const dir = mkdtempSync(join(tmpdir(), 'codecs-'));
const totals = new Map(codecs.map((c) => [c, { cpuMs: 0, ms: 0, bytes: 0 }]));
const perTable: Record<string, Record<string, { cpuMs: number; bytes: number }>> = {};
const loadAtStart = loadavg()[0];
try {
  let turn = 0;
  for (const file of files) {
    await connection.run(`CREATE OR REPLACE TABLE t AS SELECT * FROM read_parquet(${quote(join(from, file))})`);
    const table: Record<string, { cpuMs: number; bytes: number }> = (perTable[file] = {});
    for (let round = 0; round < rounds; round++) {
      turn++;
      for (let k = 0; k < codecs.length; k++) {
        const codec = codecs[(k + turn) % codecs.length]!;
        const out = join(dir, `${codec}.parquet`);
        const c = cpu();
        const w = performance.now();
        await connection.run(`COPY t TO ${quote(out)} (FORMAT parquet, ${CODECS[codec]})`);
        const spent = { cpuMs: cpu() - c, ms: performance.now() - w, bytes: statSync(out).size };
        rmSync(out);
        const total = totals.get(codec)!;
        total.cpuMs += spent.cpuMs / rounds;
        total.ms += spent.ms / rounds;
        total.bytes = round === 0 ? total.bytes + spent.bytes : total.bytes;
        const row = (table[codec] ??= { cpuMs: 0, bytes: spent.bytes });
        row.cpuMs += spent.cpuMs / rounds;
      }
    }
  }
} finally {
  connection.closeSync();
  instance.closeSync();
  rmSync(dir, { recursive: true, force: true });
}
const biggest = Object.entries(perTable)
  .sort((a, b) => (b[1][codecs[0]!]?.bytes ?? 0) - (a[1][codecs[0]!]?.bytes ?? 0))
  .slice(0, 6);
for (const [codec, t] of totals) console.log(JSON.stringify({ codec, tables: files.length, cpuMs: Math.round(t.cpuMs), ms: Math.round(t.ms), bytes: t.bytes }));
for (const [file, row] of biggest) console.log(JSON.stringify({ file, ...Object.fromEntries(Object.entries(row).map(([c, v]) => [c, { cpuMs: Math.round(v.cpuMs), bytes: v.bytes }])) }));
console.log(JSON.stringify({ loadAtStart, loadAtEnd: loadavg()[0] }));
