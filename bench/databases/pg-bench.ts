/**
 * `npm run bench:pg`: how long indexing a storage kept in PostgreSQL takes, against the floor of
 * reading all its rows once.
 *
 * A generated storage (bench/.storages, shared with `npm run bench`) is loaded into a throwaway
 * PostgreSQL cluster (the tests' harness: temporary directory, private port and socket) as
 * MicroStream's SQL file system keeps it: one table per directory, rows of at most 1 MiB. Then, in
 * alternating rounds: the floor (`COPY <table> TO STDOUT` of every table through node-postgres,
 * in text — bytea as hex, what the cursor receives — and binary format), `Storage.open` on the
 * tables (the one indexing pass through a cursor), and `Storage.open` on the directory.
 *
 * Environment: BENCH_PG_ENTITIES (default 1000000), BENCH_ROUNDS (default 5), BENCH_PG_ROW_BYTES
 * (default 1 MiB, the connector's largest row; e.g. 16384 for a storage written by many small
 * commits, one row each).
 */
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { loadavg } from 'node:os';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { openStorageSource } from '../../src/storage/open-source.js';
import { Storage } from '../../src/storage/storage.js';
import { startCluster, stopCluster, type ClusterInfo } from '../../test/helpers/real-systems/postgres-cluster.js';
import { MAX_ROW_BYTES, SqlConnector } from '../../test/helpers/real-systems/sql-connector.js';
import { cpuBetween, cpuSnapshot } from '../cpu.js';
import { fmt, fmtSpread, spread } from '../stats.js';
import { cannotRun, storageFor } from '../storages.js';

const ENTITIES = Number(process.env.BENCH_PG_ENTITIES ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROOT = 'ms_bench';
const ROW_BYTES = Number(process.env.BENCH_PG_ROW_BYTES ?? MAX_ROW_BYTES);

async function client(cluster: ClusterInfo, database: string): Promise<pg.Client> {
  const c = new pg.Client({ host: cluster.socketDir, port: cluster.port, user: cluster.adminUser, database });
  await c.connect();
  return c;
}

/** Bytes of every table read once with COPY ... TO STDOUT, and how long it took. */
async function copyFloor(cluster: ClusterInfo, tables: readonly string[], binary: boolean): Promise<{ ms: number; bytes: number }> {
  const c = await client(cluster, 'bench');
  try {
    const started = performance.now();
    let bytes = 0;
    for (const table of tables) {
      const stream = c.query(copyTo(`COPY public."${table}" TO STDOUT${binary ? ' (FORMAT binary)' : ''}`));
      await pipeline(
        stream,
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            bytes += chunk.length;
            done();
          },
        }),
      );
    }
    return { ms: performance.now() - started, bytes };
  } finally {
    await c.end();
  }
}

async function openTime(open: () => Promise<Storage>): Promise<{ ms: number; entities: number }> {
  const started = performance.now();
  const storage = await open();
  const ms = performance.now() - started;
  const entities = storage.entityCount;
  await storage.close();
  return { ms, entities };
}

async function main(): Promise<void> {
  const unable = cannotRun(ENTITIES);
  if (unable !== undefined) {
    console.log(`skipping ${ENTITIES.toLocaleString('en')} entities: ${unable}`);
    return;
  }
  const directory = storageFor(ENTITIES);
  const cluster = await startCluster();
  try {
    const admin = await client(cluster, 'postgres');
    await admin.query('CREATE DATABASE bench');
    await admin.end();
    const loader = await client(cluster, 'bench');
    const loadStarted = performance.now();
    await new SqlConnector(loader, ROOT, 'public', ROW_BYTES).loadDirectory(directory);
    await loader.query('VACUUM ANALYZE');
    const counts = await loader.query<{ tables: string; rows: string; bytes: string }>(
      `SELECT count(DISTINCT c.relname)::text AS tables,
              (SELECT sum(n_live_tup) FROM pg_stat_user_tables)::text AS rows,
              pg_database_size('bench')::text AS bytes
       FROM pg_class c WHERE c.relname LIKE '${ROOT}%' AND c.relkind = 'r'`,
    );
    const tables = (await loader.query<{ name: string }>(`SELECT relname AS name FROM pg_class WHERE relname LIKE '${ROOT}%' AND relkind = 'r' ORDER BY 1`)).rows.map(
      (r) => r.name,
    );
    await loader.end();
    const info = counts.rows[0]!;
    console.log(
      `${ENTITIES.toLocaleString('en')} entities loaded into ${info.tables} tables, ${info.rows} rows of at most ${ROW_BYTES} bytes, database ${fmt(Number(info.bytes) / 2 ** 20)} MiB, in ${fmt((performance.now() - loadStarted) / 1000)} s`,
    );

    // The admin logs in over the unix socket without a password (over TCP it would need one).
    const spec = `postgres://${cluster.adminUser}@${encodeURIComponent(cluster.socketDir)}:${cluster.port}/bench#${ROOT}`;
    const source = (): Promise<Storage> => Storage.open(openStorageSource(spec));
    const results = { copyText: [] as number[], copyBinary: [] as number[], tables: [] as number[], directory: [] as number[] };
    let copyBytes = { text: 0, binary: 0 };
    const before = cpuSnapshot([process.pid]);
    const load = loadavg();
    for (let round = 0; round < ROUNDS; round++) {
      const text = await copyFloor(cluster, tables, false);
      const binary = await copyFloor(cluster, tables, true);
      copyBytes = { text: text.bytes, binary: binary.bytes };
      results.copyText.push(text.ms);
      results.copyBinary.push(binary.ms);
      const fromTables = await openTime(source);
      if (fromTables.entities !== ENTITIES) throw new Error(`indexed ${fromTables.entities} entities from the tables, expected ${ENTITIES}`);
      results.tables.push(fromTables.ms);
      results.directory.push((await openTime(() => Storage.open(directory))).ms);
    }
    const cpu = cpuBetween(before, cpuSnapshot([process.pid]));
    const tablesMedian = spread(results.tables).median;
    console.log(`rounds: ${ROUNDS} (medians [min–max])`);
    console.log(`  COPY TO STDOUT, text   (${fmt(copyBytes.text / 2 ** 20)} MiB): ${fmtSpread(spread(results.copyText), 0, ' ms')}`);
    console.log(`  COPY TO STDOUT, binary (${fmt(copyBytes.binary / 2 ** 20)} MiB): ${fmtSpread(spread(results.copyBinary), 0, ' ms')}`);
    console.log(`  index from the tables (cursor):      ${fmtSpread(spread(results.tables), 0, ' ms')}  = ${fmt(tablesMedian / spread(results.copyText).median, 2)}× COPY text, ${fmt(tablesMedian / spread(results.copyBinary).median, 2)}× COPY binary`);
    console.log(`  index from the directory:            ${fmtSpread(spread(results.directory), 0, ' ms')}`);
    console.log(
      `machine: load average ${load.map((l) => fmt(l, 2)).join(' ')} before, ${loadavg().map((l) => fmt(l, 2)).join(' ')} after; ` +
        `meanwhile this process used ${fmt(cpu?.processes.get(process.pid), 2)} cores and everything else (PostgreSQL and other users) ${fmt(cpu?.others, 2)} on average`,
    );
  } finally {
    stopCluster(cluster);
  }
}

await main();
