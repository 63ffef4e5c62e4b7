/**
 * `npm run bench:databases`: opening and replay times of the EclipseStore 4.2 storages kept in
 * SQLite and MariaDB (test/fixtures/conformance-afs-sql), side by side with the same storages
 * read from a directory.
 *
 * The directory is made from the SQLite file's rows (each file its rows concatenated: the bytes
 * EclipseStore wrote), into a temporary directory; the MariaDB dumps are loaded into a throwaway
 * server (the tests' harness: temporary data directory, 127.0.0.1, a SELECT-only user). Then, in
 * alternating rounds per storage and source: `Storage.open` (listing, dictionary, logs, the index
 * pass) and the replay of every recorded request in process (`app.inject`, one after the other),
 * with the number of answers that differ from the recording (a directory names its files in the
 * statistics otherwise: those differ by design).
 *
 * Environment: BENCH_ROUNDS (default 5).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { buildApp } from '../../src/http/app.js';
import { openStorageSource } from '../../src/storage/open-source.js';
import { Storage } from '../../src/storage/storage.js';
import { AFS_ROOT_TABLE, AFS_SQL_SETS, casesFile, mariadbDump, sqliteFile, type AfsSqlSet } from '../../test/helpers/corpora/afs-sql.js';
import { compareWithCase, loadCases } from '../../test/helpers/corpora/conformance.js';
import { loadDatabase, mariadbServerBinary, MARIADB_READER, startMariadb, stopMariadb, writeReaderPasswordFile } from '../../test/helpers/real-systems/mariadb-server.js';
import { fmtSpread, spread } from '../stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || ROUNDS > 50) throw new Error(`BENCH_ROUNDS must be 1..50, not ${process.env.BENCH_ROUNDS}`);

/** The storage's files out of the SQLite rows: a directory holding the same bytes. */
function directoryFromRows(set: AfsSqlSet, into: string): string {
  const dir = join(into, set);
  const db = new Database(sqliteFile(set), { readonly: true });
  try {
    const tables = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
    for (const table of tables) {
      const folder = table === AFS_ROOT_TABLE ? dir : join(dir, table.slice(`${AFS_ROOT_TABLE}$`.length));
      mkdirSync(folder, { recursive: true });
      const files = new Map<string, Buffer[]>();
      for (const row of db.prepare(`SELECT identifier, data FROM "${table}" ORDER BY identifier, start`).iterate() as Iterable<{ identifier: string; data: Buffer }>) {
        files.set(row.identifier, [...(files.get(row.identifier) ?? []), row.data]);
      }
      for (const [name, parts] of files) writeFileSync(join(folder, name), Buffer.concat(parts));
    }
  } finally {
    db.close();
  }
  return dir;
}

interface Source {
  readonly name: string;
  readonly open: () => Storage | Promise<Storage>;
}

async function measure(source: Source, set: AfsSqlSet): Promise<{ openMs: number; replayMs: number; differing: number; requests: number }> {
  const { header, cases } = loadCases(casesFile('sqlite', set));
  const started = performance.now();
  const storage = await source.open();
  const openMs = performance.now() - started;
  const app = buildApp(storage, { instance: header.instance });
  try {
    const replayStarted = performance.now();
    let differing = 0;
    for (const c of cases) {
      const response = await app.inject({ method: c.method as 'GET', url: c.request, headers: { host: header.host, ...(c.headers ?? {}) } });
      const problem = compareWithCase(c, header.storageDir, header.storageDir, {
        status: response.statusCode,
        contentType: response.headers['content-type'] as string | undefined,
        body: response.rawPayload,
      });
      if (problem !== undefined) differing++;
    }
    return { openMs, replayMs: performance.now() - replayStarted, differing, requests: cases.length };
  } finally {
    await app.close();
    await storage.close();
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'si-bench-databases-'));
  const mariadb = mariadbServerBinary() === undefined ? undefined : await startMariadb();
  if (mariadb === undefined) console.log('MariaDB is not installed (mariadb-server): its rows are left out');
  try {
    const passwordFile = mariadb === undefined ? undefined : writeReaderPasswordFile(mariadb);
    const load = loadavg();
    for (const set of AFS_SQL_SETS) {
      const directory = directoryFromRows(set, work);
      if (mariadb !== undefined) loadDatabase(mariadb, `es_${set}`, mariadbDump(set));
      const sources: Source[] = [
        { name: 'directory', open: () => Storage.open(directory) },
        { name: 'SQLite', open: () => Storage.open(openStorageSource(`sqlite:${sqliteFile(set)}`, { table: AFS_ROOT_TABLE })) },
        ...(mariadb === undefined
          ? []
          : [
              {
                name: 'MariaDB',
                open: () =>
                  Storage.open(openStorageSource(`mariadb://${MARIADB_READER}@127.0.0.1:${mariadb.port}/es_${set}`, { table: AFS_ROOT_TABLE, passwordFile: passwordFile! })),
              },
            ]),
      ];
      const results = new Map(sources.map((s) => [s.name, { open: [] as number[], replay: [] as number[], differing: 0, requests: 0 }]));
      // One warm-up round (module loading, the drivers' first connection), not counted.
      for (const source of sources) await measure(source, set);
      for (let round = 0; round < ROUNDS; round++) {
        for (const source of sources) {
          const r = await measure(source, set);
          const entry = results.get(source.name)!;
          entry.open.push(r.openMs);
          entry.replay.push(r.replayMs);
          entry.differing = r.differing;
          entry.requests = r.requests;
        }
      }
      console.log(`\n${set}: ${ROUNDS} rounds (medians [min–max])`);
      console.log('  source      open                 replay of every recorded request     answers differing from the recording');
      for (const [name, r] of results) {
        const replay = spread(r.replay);
        console.log(
          `  ${name.padEnd(10)}  ${fmtSpread(spread(r.open), 1, ' ms').padEnd(20)} ${fmtSpread(replay, 0, ' ms').padEnd(22)} (${r.requests} requests, ${Math.round((r.requests / replay.median) * 1000)}/s)  ${r.differing}`,
        );
      }
    }
    console.log(`\nload average ${load.map((l) => l.toFixed(2)).join(' ')} before, ${loadavg().map((l) => l.toFixed(2)).join(' ')} after`);
  } finally {
    if (mariadb !== undefined) stopMariadb(mariadb);
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
